package extformat

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/meta"
)

// Format names, as the external driver's --external-format flag takes them.
const (
	FastRTPS = "fastrtps"
	Sockperf = "sockperf"
	ZPing    = "zping"
	Lines    = "lines"
)

// Formats lists the format names.
var Formats = []string{FastRTPS, Sockperf, ZPing, Lines}

// Units of the Lines format, with their size in microseconds.
var units = map[string]float64{"ns": 1e-3, "us": 1, "µs": 1, "ms": 1e3, "s": 1e6}

// Units lists the unit names the Lines format accepts.
var Units = []string{"ns", "us", "ms", "s"}

// Sample is one latency a program reported.
type Sample struct {
	// Payload is the message size in bytes, or 0 when the format does not
	// say (Lines).
	Payload int
	// Micros is the latency in microseconds, in the file's definition
	// (Result.Latency).
	Micros float64
	// Line is the 1-based line of the file it came from.
	Line int
}

// Result is what a reader found in one file.
type Result struct {
	Samples []Sample
	// Latency is the definition of the values: meta.LatencyHalfRTT,
	// meta.LatencyRTT or meta.LatencyOneWay.
	Latency string
	// Dropped is 1 when an unfinished last line was dropped (Partial).
	Dropped int
}

// Options configure a reader.
type Options struct {
	// Unit is the unit of the Lines format: ns, us, ms or s.
	Unit string
	// Latency is the definition of the Lines format's values: rtt,
	// half-rtt or one-way.
	Latency string
	// Partial drops an unfinished last line (no newline at the end of the
	// file), as a program stopped in the middle of a write leaves it.
	Partial bool
}

// Check reports whether format and opts can be used together, naming what
// is wrong.
func Check(format string, opts Options) error {
	if !slices.Contains(Formats, format) {
		return fmt.Errorf("format %q: expected one of %s", format, strings.Join(Formats, ", "))
	}
	if format != Lines {
		return nil
	}
	if _, ok := units[opts.Unit]; !ok {
		return fmt.Errorf("unit %q: expected one of %s", opts.Unit, strings.Join(Units, ", "))
	}
	switch opts.Latency {
	case meta.LatencyRTT, meta.LatencyHalfRTT, meta.LatencyOneWay:
		return nil
	}
	return fmt.Errorf("latency %q: expected %s, %s or %s", opts.Latency, meta.LatencyRTT, meta.LatencyHalfRTT, meta.LatencyOneWay)
}

// Read reads r, named name in errors, in format.
func Read(format string, r io.Reader, name string, opts Options) (Result, error) {
	if err := Check(format, opts); err != nil {
		return Result{}, err
	}
	p, err := newParser(r, name, opts)
	if err != nil {
		return Result{}, err
	}
	switch format {
	case FastRTPS:
		return p.fastRTPS()
	case Sockperf:
		return p.sockperf()
	case ZPing:
		return p.zping()
	default:
		return p.plain()
	}
}

// parser walks the lines of one file.
type parser struct {
	name  string
	opts  Options
	lines []string
	line  int // 1-based number of the current line
	text  string
	res   Result
}

func newParser(r io.Reader, name string, opts Options) (*parser, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fileerr.New(name, 0, "", "%v", err)
	}
	s := string(data)
	p := &parser{name: name, opts: opts}
	if s == "" {
		return p, nil
	}
	p.lines = strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if opts.Partial && !strings.HasSuffix(s, "\n") {
		// A number cut short still parses ("12.3" of "12.345"), so the
		// last line of a stopped program is never trusted.
		p.lines = p.lines[:len(p.lines)-1]
		p.res.Dropped = 1
	}
	return p, nil
}

// next reads the next line; false at the end of the file.
func (p *parser) next() bool {
	if p.line >= len(p.lines) {
		return false
	}
	p.text = strings.TrimRight(p.lines[p.line], "\r")
	p.line++
	return true
}

// failed is the error of the current line, about column col ("" for none).
func (p *parser) failed(col, format string, args ...any) (Result, error) {
	return p.res, fileerr.New(p.name, p.line, col, format, args...)
}

func (p *parser) add(payload int, micros float64) {
	p.res.Samples = append(p.res.Samples, Sample{Payload: payload, Micros: micros, Line: p.line})
}

// latency parses a latency value in µs: finite and ≥ 0.
func latency(s string) (float64, bool) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return v, err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0
}

const fastRTPSHeader = "Sample,Payload [Bytes],Latency [us]"

// fastRTPS reads Fast DDS LatencyTest's raw CSV. Its sample numbers run on
// across payloads (they are renumbered by the caller); its latencies are
// printed by a C++ stream with 6 significant digits, in exponent form when
// large (1.23457e+06).
func (p *parser) fastRTPS() (Result, error) {
	p.res.Latency = meta.LatencyHalfRTT
	if !p.next() {
		return p.res, fileerr.New(p.name, 0, "", "empty file: expected the header %q (Fast DDS LatencyTest --raw_data_file)", fastRTPSHeader)
	}
	if strings.TrimPrefix(p.text, "\ufeff") != fastRTPSHeader {
		return p.res, fileerr.New(p.name, 1, "", "header %q: expected %q (Fast DDS LatencyTest --raw_data_file)", p.text, fastRTPSHeader)
	}
	for p.next() {
		if p.text == "" {
			continue
		}
		f := strings.Split(p.text, ",")
		if len(f) != 3 {
			return p.failed("", "%d fields: expected 3 (Sample,Payload [Bytes],Latency [us])", len(f))
		}
		if n, err := strconv.Atoi(strings.TrimSpace(f[0])); err != nil || n < 1 {
			return p.failed("Sample", "%q is not a positive integer", f[0])
		}
		payload, err := strconv.Atoi(strings.TrimSpace(f[1]))
		if err != nil || payload < 1 {
			return p.failed("Payload [Bytes]", "%q is not a positive integer", f[1])
		}
		v, ok := latency(f[2])
		if !ok {
			return p.failed("Latency [us]", "%q is not a finite number ≥ 0", f[2])
		}
		p.add(payload, v)
	}
	return p.res, nil
}

var (
	sockperfHeader  = regexp.MustCompile(`^packet,\s*txTime\(sec\),\s*rxTime\(sec\),\s*(latency|rtt)\(usec\)$`)
	sockperfMsgSize = regexp.MustCompile(`--msg-size=(\d+)`)
)

// sockperf reads a sockperf ping-pong --full-log file: a preamble whose
// parameters line holds --msg-size, the column header, one row per
// measured message, and a closing line of dashes.
func (p *parser) sockperf() (Result, error) {
	payload := 0
	for {
		if !p.next() {
			return p.res, fileerr.New(p.name, 0, "", "no \"packet, txTime(sec), rxTime(sec), latency(usec)\" header: expected a sockperf ping-pong --full-log file")
		}
		if m := sockperfMsgSize.FindStringSubmatch(p.text); m != nil && strings.HasPrefix(p.text, "test was performed") {
			payload, _ = strconv.Atoi(m[1])
		}
		if m := sockperfHeader.FindStringSubmatch(strings.TrimSpace(p.text)); m != nil {
			p.res.Latency = meta.LatencyHalfRTT
			if m[1] == "rtt" {
				p.res.Latency = meta.LatencyRTT
			}
			break
		}
	}
	if payload < 1 {
		return p.res, fileerr.New(p.name, p.line, "", "no --msg-size in the \"test was performed using the following parameters\" line before the header: expected a sockperf ping-pong --full-log file")
	}
	for p.next() {
		t := strings.TrimSpace(p.text)
		if t == "" {
			continue
		}
		if strings.Trim(t, "-") == "" {
			break // the closing line
		}
		f := strings.Split(t, ",")
		if len(f) != 4 {
			return p.failed("", "%d fields: expected 4 (packet, txTime(sec), rxTime(sec), latency(usec))", len(f))
		}
		v, ok := latency(f[3])
		if !ok {
			col := "latency(usec)"
			if p.res.Latency == meta.LatencyRTT {
				col = "rtt(usec)"
			}
			return p.failed(col, "%q is not a finite number ≥ 0", strings.TrimSpace(f[3]))
		}
		p.add(payload, v)
	}
	return p.res, nil
}

var (
	zpingLine  = regexp.MustCompile(`^(\d+) bytes: seq=(\d+) rtt=([0-9.]+)(µs|us),? lat=([0-9.]+)(µs|us)$`)
	zpingStart = regexp.MustCompile(`^\d+ bytes:`)
)

// zping reads z_ping's output. Lines that do not start "N bytes:" (the
// warm-up notice, log lines) are skipped; those that do must be whole.
func (p *parser) zping() (Result, error) {
	p.res.Latency = meta.LatencyRTT
	for p.next() {
		t := strings.TrimSpace(p.text)
		if !zpingStart.MatchString(t) {
			continue
		}
		m := zpingLine.FindStringSubmatch(t)
		if m == nil {
			return p.failed("", "%q: expected \"N bytes: seq=N rtt=Nµs lat=Nµs\"", t)
		}
		payload, err := strconv.Atoi(m[1])
		v, ok := latency(m[3])
		if err != nil || payload < 1 || !ok {
			return p.failed("", "%q: expected a positive size and a finite rtt", t)
		}
		p.add(payload, v)
	}
	if len(p.res.Samples) == 0 && p.res.Dropped == 0 {
		return p.res, fileerr.New(p.name, 0, "", "no \"N bytes: seq=N rtt=Nµs lat=Nµs\" line: expected the output of zenoh's z_ping")
	}
	return p.res, nil
}

// plain reads one latency per line, in opts.Unit.
func (p *parser) plain() (Result, error) {
	p.res.Latency = p.opts.Latency
	scale := units[p.opts.Unit]
	for p.next() {
		t := strings.TrimSpace(p.text)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		v, ok := latency(t)
		if !ok {
			return p.failed("", "%q is not a latency: expected one finite number ≥ 0 (in %s) per line", t, p.opts.Unit)
		}
		p.add(0, v*scale)
	}
	return p.res, nil
}

// Convert returns micros, a latency of definition from, in definition to:
// half a round trip is half a whole one. A one-way latency converts to
// nothing else (ok false).
func Convert(micros float64, from, to string) (float64, bool) {
	switch {
	case from == to:
		return micros, true
	case from == meta.LatencyRTT && to == meta.LatencyHalfRTT:
		return micros / 2, true
	case from == meta.LatencyHalfRTT && to == meta.LatencyRTT:
		return micros * 2, true
	}
	return 0, false
}
