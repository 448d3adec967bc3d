package measurements

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/mqgate/mqgate/internal/fileerr"
)

// Header is the exact first line of a raw measurements file.
const Header = "Sample,Payload [Bytes],Latency [us]"

// Column names, in file order.
const (
	ColSample  = "Sample"
	ColPayload = "Payload [Bytes]"
	ColLatency = "Latency [us]"
)

// maxLine bounds a row's length (the reader's buffer); a longer one is not
// a raw measurements row.
const maxLine = 256 << 10

// Sample is one row of a raw measurements file.
type Sample struct {
	Sample  int     // sample number (formats §2: from 1 in each payload, or across payloads)
	Payload int     // payload size in bytes
	Latency float64 // latency in microseconds
}

// Reader reads samples from a raw measurements file one at a time.
//
//	r := measurements.NewReader(f, path)
//	for r.Next() {
//		s := r.Sample()
//	}
//	if err := r.Err(); err != nil { ... }
type Reader struct {
	rd       io.Reader
	buf      []byte // rows buf[pos:end] not yet read, maxLine long
	pos, end int
	rerr     error // the error that ended reading rd (io.EOF at its end)

	file   string
	line   int
	cur    Sample
	err    error
	header bool
	rows   int

	// The Sample column's check (formats §2).
	lenient   bool
	hint      string
	numbering numbering   // how this file counts, once its second payload began
	decided   int         // the line of that second payload's first row
	start     int         // line of the current payload's first row
	ended     map[int]int // payloads already left: first line of their rows
}

// NewReader returns a Reader of r; file names the input in error messages.
func NewReader(r io.Reader, file string) *Reader {
	return &Reader{rd: r, buf: make([]byte, maxLine), file: file}
}

// numbering is how a file counts its samples (formats §2).
type numbering uint8

const (
	// numberingUnknown: the file has not left its first payload yet, where
	// both conventions count 1, 2, 3, …
	numberingUnknown numbering = iota
	// numberingPerPayload: Sample counts from 1 within each payload, as run
	// writes it.
	numberingPerPayload
	// numberingContinuous: one count across payloads in file order, as
	// Fast-RTPS LatencyTest writes it (payload 32 starts at 10001).
	numberingContinuous
)

// SampleRule is formats §2's rule for the Sample column, which errors about
// the column end with.
const SampleRule = "Sample counts 1, 2, 3, … either from 1 within each payload or on across payloads in file order, " +
	"each payload's rows together (formats §2)"

// SetLenientSamples turns off the check of the Sample column. By default
// Next requires what formats §2 says: Sample counts 1, 2, 3, … from the
// first row, and at each new payload either starts again at 1 (as run
// writes files) or carries on from the row before (as Fast-RTPS
// LatencyTest does: its second payload starts at 10001); the file's first
// payload change sets which, and every later one must do the same. A
// payload's rows must be together. So a file cut, spliced, concatenated or
// with lost rows renumbered is not summarised as if it were one
// measurement. A lenient Reader accepts any numbering (gaps, repeats,
// going back, starting elsewhere) and a payload that reappears later.
func (r *Reader) SetLenientSamples(lenient bool) { r.lenient = lenient }

// SetSampleHint sets what an error about the Sample column or a reappearing
// payload ends with: how to read such a file anyway.
func (r *Reader) SetSampleHint(hint string) { r.hint = hint }

// Line returns the line number of the sample last returned by Next.
func (r *Reader) Line() int { return r.line }

// Sample returns the sample read by the last successful Next.
func (r *Reader) Sample() Sample { return r.cur }

// Err returns the first error met, or nil at a clean end of file. An error
// is a *fileerr.Error naming the file, line and column.
func (r *Reader) Err() error { return r.err }

func (r *Reader) fail(line int, column, format string, args ...any) bool {
	r.err = fileerr.New(r.file, line, column, format, args...)
	return false
}

// fill moves the unread bytes to the front of the buffer and reads more
// after them, setting rerr when rd has no more.
func (r *Reader) fill() {
	if r.pos > 0 {
		r.end = copy(r.buf, r.buf[r.pos:r.end])
		r.pos = 0
	}
	for range 100 {
		n, err := r.rd.Read(r.buf[r.end:])
		if n < 0 || n > len(r.buf)-r.end {
			r.rerr = errors.New("invalid count from Read")
			return
		}
		r.end += n
		if err != nil {
			r.rerr = err
			return
		}
		if n > 0 {
			return
		}
	}
	r.rerr = io.ErrNoProgress
}

// readLine returns the next line without its terminator; complete is false
// when the file ended without a newline.
func (r *Reader) readLine() (line []byte, complete bool, err error) {
	for {
		if i := bytes.IndexByte(r.buf[r.pos:r.end], '\n'); i >= 0 {
			b := r.buf[r.pos : r.pos+i]
			r.pos += i + 1
			return bytes.TrimSuffix(b, []byte("\r")), true, nil
		}
		switch {
		case errors.Is(r.rerr, io.EOF):
			b := r.buf[r.pos:r.end]
			r.pos = r.end
			return b, false, io.EOF
		case r.rerr != nil:
			return nil, false, r.rerr
		case r.pos == 0 && r.end == len(r.buf):
			return nil, false, fmt.Errorf("line longer than %d bytes: not a raw measurements row", maxLine)
		}
		r.fill()
	}
}

// Next reads the next sample. It returns false at the end of the file or on
// an error; Err tells which.
func (r *Reader) Next() bool {
	if r.err != nil {
		return false
	}
	// The common row, read in one pass from the buffer; the header, the
	// last row of the buffer and every other row are read by nextLine.
	if r.header {
		if sample, payload, v, n, ok := parseCommon(r.buf[r.pos:r.end]); ok {
			if n < r.end-r.pos && r.buf[r.pos+n] == '\r' {
				n++ // CRLF
			}
			if n < r.end-r.pos && r.buf[r.pos+n] == '\n' {
				r.pos += n + 1
				r.line++
				return r.accept(sample, payload, v)
			}
		}
	}
	return r.nextLine()
}

// nextLine reads the next line as Next does, with no shortcut.
func (r *Reader) nextLine() bool {
	for {
		b, complete, err := r.readLine()
		r.line++
		if err != nil && !errors.Is(err, io.EOF) {
			return r.fail(r.line, "", "%v", err)
		}
		if !r.header {
			if len(b) == 0 && !complete {
				return r.fail(0, "", "empty file: expected the header %q", Header)
			}
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
			if string(b) != Header {
				return r.fail(1, "", "header is %q, expected exactly %q", b, Header)
			}
			r.header = true
			if !complete {
				return r.fail(1, "", "no samples after the header")
			}
			continue
		}
		if !complete {
			if len(b) == 0 {
				if r.rows == 0 {
					return r.fail(r.line-1, "", "no samples after the header")
				}
				return false // clean end of file
			}
			return r.fail(r.line, "", "the last row %q is not terminated by a newline: the file looks cut off "+
				"(re-run the measurement, or drop the incomplete row)", b)
		}
		if len(b) == 0 {
			return r.fail(r.line, "", "empty line: expected a row Sample,Payload,Latency")
		}
		sample, payload, v, ok := parseCommonRow(b)
		if !ok {
			if sample, payload, v, ok = r.parseOtherRow(b); !ok {
				return false
			}
		}
		return r.accept(sample, payload, v)
	}
}

// accept makes a parsed row the current sample, once its Sample is checked.
func (r *Reader) accept(sample, payload int, v float64) bool {
	// The common row carries on its payload's count; anything else (the
	// first row, a new payload, a break) is checked out of line.
	if !r.lenient && (r.rows == 0 || payload != r.cur.Payload || sample != r.cur.Sample+1) &&
		!r.checkSample(sample, payload) {
		return false
	}
	r.cur = Sample{Sample: sample, Payload: payload, Latency: v}
	r.rows++
	return true
}

// parseCommonRow parses a row (without its line end) as mqgate and Fast-RTPS
// write them, in one pass: two positive integers of at most 16 digits and a
// latency of digits with an optional fraction, 15 digits at most. It
// returns ok false for any other row, valid or not, which parseOtherRow
// then reads (a sign, an exponent, more digits) or explains. Where ok is
// true the values are those parseOtherRow gives: up to 15 digits, gathering
// them in an integer is exact, as pandas' legacy float gathering is, and
// the scaling is the same.
func parseCommonRow(b []byte) (sample, payload int, v float64, ok bool) {
	sample, payload, v, n, ok := parseCommon(b)
	if !ok || n != len(b) {
		return 0, 0, 0, false
	}
	return sample, payload, v, true
}

// parseCommon parses a common row (see parseCommonRow) at the start of b,
// up to the first byte that is not part of its latency, b[n] (n = len(b) if
// b ends there).
func parseCommon(b []byte) (sample, payload int, v float64, n int, ok bool) {
	i, end := 0, len(b)
	for ; i < end && b[i] != ','; i++ {
		d := b[i] - '0'
		if d > 9 {
			return 0, 0, 0, 0, false
		}
		sample = sample*10 + int(d)
	}
	if i == 0 || i > 16 || i == end || sample == 0 {
		return 0, 0, 0, 0, false
	}
	i++
	start := i
	for ; i < end && b[i] != ','; i++ {
		d := b[i] - '0'
		if d > 9 {
			return 0, 0, 0, 0, false
		}
		payload = payload*10 + int(d)
	}
	if i == start || i-start > 16 || i == end || payload == 0 {
		return 0, 0, 0, 0, false
	}
	i++
	start = i
	var m uint64
	for ; i < end; i++ {
		d := b[i] - '0'
		if d > 9 {
			break
		}
		m = m*10 + uint64(d)
	}
	digits, decimals := i-start, 0
	if i < end && b[i] == '.' {
		i++
		start = i
		for ; i < end; i++ {
			d := b[i] - '0'
			if d > 9 {
				break
			}
			m = m*10 + uint64(d)
		}
		decimals = i - start
		digits += decimals
	}
	if digits == 0 || digits > maxExactDigits {
		return 0, 0, 0, 0, false
	}
	return sample, payload, scaleXstrtod(float64(m), -decimals), i, true
}

// parseOtherRow parses a row parseCommonRow did not take: it reads what
// formats §2 allows (a sign, an exponent, long digit strings) and otherwise
// fails (ok false, Err set) naming the row and column.
func (r *Reader) parseOtherRow(b []byte) (sample, payload int, v float64, ok bool) {
	if string(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))) == Header {
		return 0, 0, 0, r.fail(r.line, "", "the header again (two files joined into one?): expected a row Sample,Payload,Latency")
	}
	c1 := bytes.IndexByte(b, ',')
	if c1 < 0 {
		return 0, 0, 0, r.fail(r.line, "", "row %s has 1 field, expected 3 (Sample,Payload,Latency)", quoteField(b))
	}
	rest := b[c1+1:]
	c2 := bytes.IndexByte(rest, ',')
	if c2 < 0 {
		return 0, 0, 0, r.fail(r.line, "", "row %s has 2 fields, expected 3 (Sample,Payload,Latency)", quoteField(b))
	}
	lat := rest[c2+1:]
	if bytes.IndexByte(lat, ',') >= 0 {
		return 0, 0, 0, r.fail(r.line, "", "row %s has more than 3 fields, expected 3 (Sample,Payload,Latency)", quoteField(b))
	}
	sample, ok = parsePositive(b[:c1])
	if !ok {
		return 0, 0, 0, r.fail(r.line, ColSample, "%s", positiveProblem(b[:c1]))
	}
	payload, ok = parsePositive(rest[:c2])
	if !ok {
		return 0, 0, 0, r.fail(r.line, ColPayload, "%s", positiveProblem(rest[:c2]))
	}
	v, ok = ParseLatency(lat)
	if !ok {
		return 0, 0, 0, r.fail(r.line, ColLatency, "%s", latencyProblem(lat))
	}
	if v < 0 || (v == 0 && len(lat) > 0 && lat[0] == '-') {
		return 0, 0, 0, r.fail(r.line, ColLatency, "%s is negative; a latency is at least 0", quoteField(lat))
	}
	return sample, payload, v, true
}

// checkSample checks a row's Sample that does not simply carry on its
// payload's count: the first row, the first row of a payload, or a break
// (formats §2, SampleRule). Its messages are built only here, on a row that
// needs them.
func (r *Reader) checkSample(sample, payload int) bool {
	if r.rows == 0 {
		r.start = r.line
		if sample != 1 {
			return r.failSample(ColSample, "%d is the first sample of payload %d, expected 1 (the first row of a file)", sample, payload)
		}
		return true
	}
	prev, prevPayload := r.cur.Sample, r.cur.Payload
	if payload != prevPayload {
		if r.ended == nil {
			r.ended = map[int]int{}
		}
		r.ended[prevPayload] = r.start
		if first, ok := r.ended[payload]; ok {
			return r.failSample(ColPayload, "payload %d appears again: its rows began on line %d and other "+
				"payloads followed", payload, first)
		}
		switch r.numbering {
		case numberingUnknown:
			switch sample {
			case 1:
				r.numbering = numberingPerPayload
			case prev + 1:
				r.numbering = numberingContinuous
			default:
				return r.failSample(ColSample, "%d is the first sample of payload %d, expected 1 (counting "+
					"within each payload) or %d (counting on from payload %d's last sample, %d)",
					sample, payload, prev+1, prevPayload, prev)
			}
			r.decided = r.line
		case numberingPerPayload:
			if sample != 1 {
				return r.failSample(ColSample, "%d is the first sample of payload %d, expected 1: this file "+
					"counts within each payload (the second payload started again at 1 on line %d)",
					sample, payload, r.decided)
			}
		case numberingContinuous:
			if sample != prev+1 {
				return r.failSample(ColSample, "%d is the first sample of payload %d, expected %d (counting on "+
					"from payload %d's last sample, %d): this file counts across payloads (the second "+
					"payload carried on the count on line %d)", sample, payload, prev+1, prevPayload, prev, r.decided)
			}
		}
		r.start = r.line
		return true
	}
	var what string
	switch {
	case sample == prev:
		what = fmt.Sprintf("%d repeats the sample before", sample)
	case sample < prev:
		what = fmt.Sprintf("%d goes back from %d", sample, prev)
	case sample == prev+2:
		what = fmt.Sprintf("%d follows %d: sample %d is missing", sample, prev, prev+1)
	case sample == prev+3:
		what = fmt.Sprintf("%d follows %d: samples %d and %d are missing", sample, prev, prev+1, prev+2)
	default:
		what = fmt.Sprintf("%d follows %d: samples %d to %d are missing", sample, prev, prev+1, sample-1)
	}
	return r.failSample(ColSample, "%s in payload %d, expected %d", what, payload, prev+1)
}

// failSample fails with a message about the Sample column or a payload's
// rows, ending with SampleRule and the hint.
func (r *Reader) failSample(column, format string, args ...any) bool {
	msg := fmt.Sprintf(format, args...) + ": " + SampleRule
	if r.hint != "" {
		msg += "; " + r.hint
	}
	return r.fail(r.line, column, "%s", msg)
}

// maxDigits is the most significant digits ParseLatency takes: it gathers
// them in a float64, as pandas' legacy parser does, which overflows at 309.
const maxDigits = 308

// latencyProblem says why ParseLatency refused b, for the error message. It
// runs only on a bad row, so it may be slow.
func latencyProblem(b []byte) string {
	q := quoteField(b)
	v, err := strconv.ParseFloat(string(b), 64)
	switch {
	case err == nil && (math.IsNaN(v) || math.IsInf(v, 0)):
		return q + " is not a finite latency"
	case !isDecimal(b):
		return q + " is not a number"
	case significantDigits(b) > maxDigits:
		return fmt.Sprintf("%s has %d significant digits, more than the %d a latency can have before "+
			"reading it overflows (as it does for the Fast-RTPS scripts): expected a finite latency "+
			"in microseconds such as 58.625", q, significantDigits(b), maxDigits)
	default:
		return fmt.Sprintf("%s is out of range: expected a finite latency in microseconds "+
			"(at most %.1e, exponent from -1021 to 1024)", q, math.MaxFloat64)
	}
}

// isDecimal reports whether b is a plain decimal as ParseLatency reads them:
// optional sign, digits with an optional fraction, optional exponent.
func isDecimal(b []byte) bool {
	p, n := 0, len(b)
	if p < n && (b[p] == '+' || b[p] == '-') {
		p++
	}
	digits, point := 0, false
	for ; p < n; p++ {
		if isDigit(b[p]) {
			digits++
		} else if b[p] == '.' && !point {
			point = true
		} else {
			break
		}
	}
	if digits == 0 {
		return false
	}
	if p < n && (b[p] == 'e' || b[p] == 'E') {
		_, end, ok := readExponent(b, p)
		return ok && end == n
	}
	return p == n
}

// significantDigits counts the digits of b's mantissa from the first
// non-zero one.
func significantDigits(b []byte) int {
	n := 0
	for _, c := range b {
		if c == 'e' || c == 'E' {
			break
		}
		if isDigit(c) && (n > 0 || c != '0') {
			n++
		}
	}
	return n
}

// quoteField quotes a field for an error message, eliding the middle of a
// long one so that the message stays readable.
func quoteField(b []byte) string {
	const head, tail = 24, 8
	if len(b) <= head+tail+8 {
		return strconv.Quote(string(b))
	}
	return fmt.Sprintf("%s (%d characters)", strconv.Quote(string(b[:head])+"…"+string(b[len(b)-tail:])), len(b))
}

// positiveProblem says why parsePositive refused b: too many digits, or
// not a positive integer at all.
func positiveProblem(b []byte) string {
	if len(b) > maxPositiveDigits && len(bytes.Trim(b, "0123456789")) == 0 {
		return fmt.Sprintf("%s is too large: expected a positive integer of at most %d digits", quoteField(b), maxPositiveDigits)
	}
	return quoteField(b) + " is not a positive integer"
}

// maxPositiveDigits is the most digits parsePositive reads.
const maxPositiveDigits = 16

// parsePositive parses a decimal integer in 1..2^53 with no sign or spaces.
func parsePositive(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > maxPositiveDigits {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n > 0
}

// AppendLatency appends us as the decimal with the fewest decimals, at
// least three (nanosecond resolution), that ParseLatency reads back to
// exactly us: 58.625 → "58.625", 14.27 → "14.270" (or "14.27" where the
// Fast-RTPS parser reads those differently), and 12.345, which that parser
// reads one unit in the last place off, → "12.3450". Every whole or half
// nanosecond reads back bit for bit, so a file written by mqgate re-reads
// to the same values and writing it again gives identical bytes.
func AppendLatency(dst []byte, us float64) []byte {
	start := len(dst)
	for prec := 3; prec <= 17; prec++ {
		dst = strconv.AppendFloat(dst[:start], us, 'f', prec, 64)
		if v, ok := ParseLatency(dst[start:]); ok && v == us {
			return dst
		}
		if prec == 3 {
			// A value read from a file that printed fewer decimals.
			dst = strconv.AppendFloat(dst[:start], us, 'f', -1, 64)
			if v, ok := ParseLatency(dst[start:]); ok && v == us {
				return dst
			}
		}
	}
	// No decimal reads back exactly under the Fast-RTPS parser (a float
	// with more digits than a measurement has): keep the shortest exact
	// form, which any correctly rounding reader reads back.
	return padDecimals(strconv.AppendFloat(dst[:start], us, 'f', -1, 64), start)
}

// padDecimals pads the number starting at dst[start] to three decimals.
func padDecimals(dst []byte, start int) []byte {
	dot := bytes.IndexByte(dst[start:], '.')
	if dot < 0 {
		return append(dst, ".000"...)
	}
	for decimals := len(dst) - start - dot - 1; decimals < 3; decimals++ {
		dst = append(dst, '0')
	}
	return dst
}

// Writer writes a raw measurements file. The header is written before the
// first row, or by Flush if there is none.
type Writer struct {
	w      *bufio.Writer
	buf    []byte
	header bool
}

// NewWriter returns a Writer to w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: bufio.NewWriterSize(w, 64<<10), buf: make([]byte, 0, 64)}
}

func (w *Writer) writeHeader() error {
	if w.header {
		return nil
	}
	w.header = true
	_, err := w.w.WriteString(Header + "\n")
	return err
}

// Write writes one sample.
func (w *Writer) Write(s Sample) error {
	if err := w.writeHeader(); err != nil {
		return err
	}
	if math.IsNaN(s.Latency) || math.IsInf(s.Latency, 0) || s.Latency < 0 {
		return fmt.Errorf("sample %d of payload %d: latency %v is not a finite non-negative number", s.Sample, s.Payload, s.Latency)
	}
	b := w.buf[:0]
	b = strconv.AppendInt(b, int64(s.Sample), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(s.Payload), 10)
	b = append(b, ',')
	b = AppendLatency(b, s.Latency)
	b = append(b, '\n')
	w.buf = b
	_, err := w.w.Write(b)
	return err
}

// Flush writes the header if no row was written, then any buffered data.
func (w *Writer) Flush() error {
	if err := w.writeHeader(); err != nil {
		return err
	}
	return w.w.Flush()
}
