package loadsummary

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mqgate/mqgate/internal/fileerr"
)

// Write writes s as indented JSON, one object and a newline.
func Write(w io.Writer, s Summary) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// ReadFile reads the summary JSON at path, a regular file, as Read does.
func ReadFile(path string) (Summary, error) {
	data, err := fileerr.ReadRegular(path, "a load summary")
	if err != nil {
		return Summary{}, err
	}
	return parse(data, path)
}

// Read reads a summary JSON from r, as Write writes it: one UTF-8 JSON
// object and nothing after it. A byte that is not UTF-8, an unknown field,
// data after the object (a second object, a stray brace) or another format
// is an input error located in file.
func Read(r io.Reader, file string) (Summary, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Summary{}, fmt.Errorf("%s: %w", file, err)
	}
	return parse(data, file)
}

// unknownField starts encoding/json's error about a field that the type
// lacks, followed by the field's name in quotes.
const unknownField = "json: unknown field "

// parse reads the summary in data, the contents of file. A leading UTF-8
// byte-order mark is skipped, as in meta.json and the CSV files.
func parse(data []byte, file string) (Summary, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	// encoding/json would read a byte that is not UTF-8 as U+FFFD.
	if off := fileerr.InvalidUTF8(data); off >= 0 {
		line, col := fileerr.Position(data, off)
		return Summary{}, fileerr.At(file, line, col, "byte 0x%02X is not UTF-8 (expected run load's summary, %s)", data[off], Format)
	}
	var s Summary
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&s); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		off := int(d.InputOffset())
		switch {
		case errors.As(err, &se):
			off = fileerr.SyntaxOffset(data, int(se.Offset))
		case errors.As(err, &te):
			off = int(te.Offset)
		case strings.HasPrefix(err.Error(), unknownField):
			// The decoder stops at the end of the object: point at the field.
			if i := bytes.Index(data, []byte(strings.TrimPrefix(err.Error(), unknownField)+":")); i >= 0 {
				off = i
			}
		case errors.Is(err, io.EOF):
			return Summary{}, fileerr.New(file, 0, "", "empty file: expected the JSON of run load's summary (%s)", Format)
		case errors.Is(err, io.ErrUnexpectedEOF):
			// The decoder reports no offset: the file ends inside the object.
			line, col := fileerr.Position(data, len(data))
			return Summary{}, fileerr.At(file, line, col, "truncated JSON: the object does not end (a file cut short?); expected run load's whole summary (%s)", Format)
		}
		line, col := fileerr.Position(data, off)
		return Summary{}, fileerr.At(file, line, col, "%v (expected run load's summary, %s)", err, Format)
	}
	// The decoder stops after the first value: what follows is not part of
	// the summary, and may be a second run's.
	if rest := bytes.TrimLeft(data[d.InputOffset():], " \t\r\n"); len(rest) > 0 {
		line, col := fileerr.Position(data, len(data)-len(rest))
		return Summary{}, fileerr.At(file, line, col, "unexpected data after the JSON object; expected the end of the file (one summary per file, %s)", Format)
	}
	if s.Format != Format {
		return Summary{}, fileerr.New(file, 0, "", "format %q, expected %q (a summary of run load)", s.Format, Format)
	}
	if err := s.check(); err != nil {
		return Summary{}, fileerr.New(file, 0, "", "%v", err)
	}
	return s, nil
}

// check returns what no run load writes in s: a payload that is not a
// positive size or is given twice (a reader would draw it twice), a
// negative rate, or a latency statistic below 0.
func (s Summary) check() error {
	seen := map[int]int{}
	for i, p := range s.Payloads {
		at := fmt.Sprintf("payloads[%d] (payload %d)", i, p.Payload)
		if p.Payload < 1 {
			return fmt.Errorf("%s: the payload is not a positive byte count", at)
		}
		if j, dup := seen[p.Payload]; dup {
			return fmt.Errorf("%s: payload %d is given again (first in payloads[%d]): expected one entry per payload", at, p.Payload, j)
		}
		seen[p.Payload] = i
		for _, r := range []struct {
			name string
			v    float64
		}{{"send_rate", p.SendRate}, {"receive_rate", p.ReceiveRate}, {"receive_mbps", p.ReceiveMbps},
			{"delivery_ratio", p.DeliveryRatio}, {"delivery_rate", p.DeliveryRate}, {"measured_s", p.MeasuredS}} {
			if r.v < 0 {
				return fmt.Errorf("%s: field %q is %g: expected at least 0", at, r.name, r.v)
			}
		}
		for _, l := range []struct {
			name string
			s    Stats
		}{{"latency", p.Latency}, {"latency_from_send", p.LatencyFromSend}} {
			if err := l.s.check(); err != nil {
				return fmt.Errorf("%s: field %q: %v", at, l.name, err)
			}
		}
	}
	return nil
}

// check returns an error when a statistic of a histogram with values is
// below 0: no latency is (run load records a negative one as 0).
func (st Stats) check() error {
	if st.Count < 0 {
		return fmt.Errorf("count %d is negative", st.Count)
	}
	for _, f := range []struct {
		name string
		v    int64
	}{{"min_ns", st.MinNs}, {"p50_ns", st.P50Ns}, {"p95_ns", st.P95Ns}, {"p99_ns", st.P99Ns}, {"p999_ns", st.P999Ns}, {"max_ns", st.MaxNs}} {
		if f.v < 0 {
			return fmt.Errorf("%s %d is negative: a latency is at least 0", f.name, f.v)
		}
	}
	if st.MeanNs < 0 {
		return fmt.Errorf("mean_ns %g is negative: a latency is at least 0", st.MeanNs)
	}
	return nil
}
