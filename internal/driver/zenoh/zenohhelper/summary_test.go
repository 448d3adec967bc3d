package zenohhelper

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// The files under testdata were written by mqgate-zenoh itself (a ping/pong,
// a pub/sub and a query/queryable run on loopback), so these tests pin the
// reader to what the helper really writes.
var fixtures = []string{"ping", "pong", "pub", "sub", "query", "queryable"}

func TestSummaryRoundTrip(t *testing.T) {
	for _, name := range fixtures {
		path := filepath.Join("testdata", name, SummaryFile)
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s, err := ReadSummary(bytes.NewReader(want), path)
		if err != nil {
			t.Fatal(err)
		}
		if s.Role != name {
			t.Errorf("%s: role %q", path, s.Role)
		}
		var got bytes.Buffer
		if err := WriteSummary(&got, s); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: read and written again differs:\n%s", path, got.String())
		}
	}
}

func TestReadResultsFixtures(t *testing.T) {
	for _, name := range fixtures {
		r, err := ReadResults(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		var received uint64
		for _, p := range r.Summary.Payloads {
			if p.Latency != nil {
				if _, err := p.Latency.Histogram(); err != nil {
					t.Errorf("%s payload %d: %v", name, p.Payload, err)
				}
				received += p.Received
			}
		}
		if uint64(len(r.Samples)) != received {
			t.Errorf("%s: %d samples, %d received", name, len(r.Samples), received)
		}
		if name == "query" && len(r.Last) != len(r.Samples) {
			t.Errorf("query: %d last, %d first", len(r.Last), len(r.Samples))
		}
		for _, p := range r.Summary.Payloads {
			// The queryable echoes each query's payload: every reply
			// carries the payload's size.
			if name == "query" && (p.ResultBytes == nil || *p.ResultBytes != p.Replies*p.Payload || p.Replies == 0) {
				t.Errorf("query payload %d: result_bytes %v, %d replies", p.Payload, p.ResultBytes, p.Replies)
			}
			if name != "query" && p.ResultBytes != nil {
				t.Errorf("%s payload %d: result_bytes %d", name, p.Payload, *p.ResultBytes)
			}
		}
	}
}

// mutate returns the ping fixture's summary with old replaced by new once.
func mutate(t *testing.T, old, new string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "ping", SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("fixture lacks %q", old)
	}
	return strings.Replace(string(b), old, new, 1)
}

func TestReadSummaryErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
	}{
		{"empty", "", "x.json:1:1: EOF"},
		{"truncated", mutate(t, `"express": true,`, `"express": tr`), "x.json:11:16: invalid character '\\n' in literal true"},
		{"unknown field", mutate(t, `"express": true,`, `"express": true, "colour": 1,`), `unknown field "colour"`},
		{"count not a number", mutate(t, `"warmup": 5,`, `"warmup": "5",`), "x.json:21:20: json: cannot unmarshal string"},
		{"negative count", mutate(t, `"warmup": 5,`, `"warmup": -1,`), "x.json:21:19: json: cannot unmarshal number -1"},
		{"other format", mutate(t, `"mqgate-zenoh-summary/1"`, `"mqgate-zenoh-summary/2"`), `format "mqgate-zenoh-summary/2", expected "mqgate-zenoh-summary/1"`},
		{"latency definition", mutate(t, `"latency": "half-rtt"`, `"latency": "quarter-rtt"`), `latency "quarter-rtt"`},
		{"payload 0", mutate(t, `"payload": 16,`, `"payload": 0,`), "payloads[0]: payload 0"},
		{"unknown nested field", mutate(t, `"min_ns": `, `"x": 1, "min_ns": `), `unknown field "x"`},
		{"no reason", mutate(t, `"completed": true,`, `"completed": false,`), "incomplete run without a reason"},
		{"trailing data", mutate(t, "\n}\n", "\n}\n{}\n"), "data after the summary"},
		{"trailing brace", mutate(t, "\n}\n", "\n}\n}\n"), "data after the summary"},
		{"trailing bracket", mutate(t, "\n}\n", "\n}]"), "data after the summary"},
	} {
		_, err := ReadSummary(strings.NewReader(tc.text), "x.json")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	// Percentiles out of order.
	s, err := ReadSummary(strings.NewReader(mutate(t, `"completed": true,`, `"completed": true,`)), "x.json")
	if err != nil {
		t.Fatal(err)
	}
	s.Payloads[0].Latency.P50Ns = s.Payloads[0].Latency.MaxNs + 1
	var b bytes.Buffer
	if err := WriteSummary(&b, s); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSummary(&b, "x.json"); err == nil || !strings.Contains(err.Error(), "percentiles are not in order") {
		t.Errorf("percentiles out of order: %v", err)
	}
}

// copyFixture copies testdata/name into a temporary directory.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("testdata", name, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestReadResultsDisagreement(t *testing.T) {
	edit := func(t *testing.T, name, file string, f func(string) string) string {
		dir := copyFixture(t, name)
		p := filepath.Join(dir, file)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f(string(b))), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	dropLine := func(n int) func(string) string {
		return func(s string) string {
			lines := strings.SplitAfter(s, "\n")
			return strings.Join(append(lines[:n:n], lines[n+1:]...), "")
		}
	}
	for _, tc := range []struct {
		name string
		dir  string
		want string
	}{
		{"row missing at the end", edit(t, "ping", RawFile, func(s string) string {
			lines := strings.SplitAfter(strings.TrimSuffix(s, "\n"), "\n")
			return strings.Join(lines[:len(lines)-1], "")
		}), "the summary says"},
		{"row missing inside", edit(t, "ping", RawFile, dropLine(5)), `:6: column "Sample": 6 follows 4: sample 5 is missing in payload 16, expected 5`},
		{"unknown payload", edit(t, "ping", RawFile, func(s string) string { return s + "1,99,1.000\n" }), "payload 99 is not in the summary"},
		{"bad latency", edit(t, "sub", RawFile, func(s string) string { return strings.Replace(s, "\n1,16,", "\n1,16,x", 1) }), `measurements.csv:2`},
		{"raw file missing", func() string {
			dir := copyFixture(t, "query")
			os.Remove(filepath.Join(dir, RawLastFile))
			return dir
		}(), "measurements_last.csv: missing"},
	} {
		if _, err := ReadResults(tc.dir); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := ReadResults(t.TempDir()); err == nil || !strings.Contains(err.Error(), SummaryFile) {
		t.Errorf("empty directory: %v", err)
	}
}

func FuzzReadSummary(f *testing.F) {
	for _, name := range fixtures {
		b, err := os.ReadFile(filepath.Join("testdata", name, SummaryFile))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ReadSummary(bytes.NewReader(b), "f.json")
		if err != nil {
			return
		}
		var w bytes.Buffer
		if err := WriteSummary(&w, s); err != nil {
			t.Fatal(err)
		}
		first := bytes.Clone(w.Bytes())
		s2, err := ReadSummary(&w, "f.json")
		if err != nil {
			t.Fatalf("written summary does not read back: %v", err)
		}
		var w2 bytes.Buffer
		if err := WriteSummary(&w2, s2); err != nil || !bytes.Equal(first, w2.Bytes()) {
			t.Fatalf("second write differs:\n%s\n%s", first, w2.Bytes())
		}
	})
}

// Histogram decodes the histogram.
func (l *LatencyStats) Histogram() (*hdrhistogram.Histogram, error) {
	h, err := hdrhistogram.Decode([]byte(l.HDR))
	if err != nil {
		return nil, fmt.Errorf("hdr: %w", err)
	}
	return h, nil
}

// WriteSummary writes s as the helper does: JSON indented by two spaces,
// then a newline, so that a file read and written again is unchanged.
func WriteSummary(w io.Writer, s Summary) error {
	if s.Payloads == nil {
		s.Payloads = []PayloadCounts{}
	}
	if s.Links == nil {
		s.Links = []string{}
	}
	for i := range s.Payloads {
		if s.Payloads[i].Publishers == nil {
			s.Payloads[i].Publishers = []PublisherCounts{}
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // the helper writes <, > and & as they are
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}
