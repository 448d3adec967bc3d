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
	Sample  int     // sample number, from 1 within each payload
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
	br     *bufio.Reader
	file   string
	line   int
	cur    Sample
	err    error
	header bool
	rows   int

	// The Sample column's check (formats §2).
	lenient bool
	hint    string
	start   int         // line of the current payload's first row
	ended   map[int]int // payloads already left: first line of their rows
}

// NewReader returns a Reader of r; file names the input in error messages.
func NewReader(r io.Reader, file string) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, maxLine), file: file}
}

// SetLenientSamples turns off the check of the Sample column. By default
// Next requires what formats §2 says: Sample counts 1, 2, 3, … within each
// payload, and a payload's rows are together, so that a file cut, spliced
// or concatenated is not summarised as if it were one measurement. Fast-RTPS
// LatencyTest numbers its samples across payloads instead (the second
// payload starts at 10001), and a lenient Reader accepts that, any other
// numbering, and a payload that reappears later.
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

// readLine returns the next line without its terminator; complete is false
// when the file ended without a newline.
func (r *Reader) readLine() (line []byte, complete bool, err error) {
	b, err := r.br.ReadSlice('\n')
	switch {
	case err == nil:
		b = b[:len(b)-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
		return b, true, nil
	case errors.Is(err, bufio.ErrBufferFull):
		return nil, false, fmt.Errorf("line longer than %d bytes: not a raw measurements row", maxLine)
	case errors.Is(err, io.EOF):
		return b, false, io.EOF
	default:
		return nil, false, err
	}
}

// Next reads the next sample. It returns false at the end of the file or on
// an error; Err tells which.
func (r *Reader) Next() bool {
	if r.err != nil {
		return false
	}
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
		if !r.parseRow(b) {
			return false
		}
		r.rows++
		return true
	}
}

func (r *Reader) parseRow(b []byte) bool {
	c1 := bytes.IndexByte(b, ',')
	if c1 < 0 {
		return r.fail(r.line, "", "row %q has 1 field, expected 3 (Sample,Payload,Latency)", b)
	}
	rest := b[c1+1:]
	c2 := bytes.IndexByte(rest, ',')
	if c2 < 0 {
		return r.fail(r.line, "", "row %q has 2 fields, expected 3 (Sample,Payload,Latency)", b)
	}
	lat := rest[c2+1:]
	if bytes.IndexByte(lat, ',') >= 0 {
		return r.fail(r.line, "", "row %q has more than 3 fields, expected 3 (Sample,Payload,Latency)", b)
	}
	sample, ok := parsePositive(b[:c1])
	if !ok {
		return r.fail(r.line, ColSample, "%q is not a positive integer", b[:c1])
	}
	payload, ok := parsePositive(rest[:c2])
	if !ok {
		return r.fail(r.line, ColPayload, "%q is not a positive integer", rest[:c2])
	}
	v, ok := ParseLatency(lat)
	if !ok {
		return r.fail(r.line, ColLatency, "%s", latencyProblem(lat))
	}
	if v < 0 || (v == 0 && len(lat) > 0 && lat[0] == '-') {
		return r.fail(r.line, ColLatency, "%s is negative; a latency is at least 0", quoteField(lat))
	}
	if !r.lenient && !r.checkSample(sample, payload) {
		return false
	}
	r.cur = Sample{Sample: sample, Payload: payload, Latency: v}
	return true
}

// checkSample checks the row's Sample against the row before (formats §2:
// Sample counts from 1 within each payload, a payload's rows together).
func (r *Reader) checkSample(sample, payload int) bool {
	const rule = "Sample counts 1, 2, 3, … within each payload, each payload's rows together (formats §2)"
	hint := ""
	if r.hint != "" {
		hint = "; " + r.hint
	}
	if r.rows == 0 || payload != r.cur.Payload {
		if r.rows > 0 {
			if r.ended == nil {
				r.ended = map[int]int{}
			}
			r.ended[r.cur.Payload] = r.start
		}
		if first, ok := r.ended[payload]; ok {
			return r.fail(r.line, ColPayload, "payload %d appears again: its rows began on line %d and other "+
				"payloads followed; expected %s%s", payload, first, rule, hint)
		}
		r.start = r.line
		if sample != 1 {
			return r.fail(r.line, ColSample, "%d is the first sample of payload %d, expected 1: %s%s",
				sample, payload, rule, hint)
		}
		return true
	}
	prev := r.cur.Sample
	if sample == prev+1 {
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
	return r.fail(r.line, ColSample, "%s in payload %d, expected %d: %s%s", what, payload, prev+1, rule, hint)
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
		p++
		if p < n && (b[p] == '+' || b[p] == '-') {
			p++
		}
		start := p
		for p < n && isDigit(b[p]) {
			p++
		}
		if p == start {
			return false
		}
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

// parsePositive parses a decimal integer in 1..2^53 with no sign or spaces.
func parsePositive(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 16 {
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
