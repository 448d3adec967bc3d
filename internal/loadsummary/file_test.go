package loadsummary

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRoundTrip: a summary as run load writes it reads back and writes
// again to the same bytes.
func TestRoundTrip(t *testing.T) {
	path := filepath.Join("testdata", FileName("intraprocess_best_effort"))
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Payloads) != 2 || s.Parameters.Padding != "random" || s.Payloads[1].Latency.P99Ns == 0 {
		t.Fatalf("read %+v", s)
	}
	var b bytes.Buffer
	if err := Write(&b, s); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("written again, %s differs", path)
	}
}

// TestReadFileStrict checks that the summary JSON process reads is one
// JSON object and nothing after it, in UTF-8: trailing data (a second
// object, a stray brace, text) is refused at its line and column.
func TestReadFileStrict(t *testing.T) {
	good := `{"format": "` + Format + `"}`
	for _, c := range []struct{ name, in, want string }{
		{"second object", good + "\n" + good + "\n", "s.json:2:1: unexpected data after the JSON object"},
		{"stray brace", good + "}", "s.json:1:36: unexpected data after the JSON object"},
		{"stray bracket", good + "\n ]", "s.json:2:2: unexpected data after the JSON object"},
		{"text", good + "\ngarbage", "s.json:2:1: unexpected data after the JSON object"},
		{"not UTF-8", `{"format": "` + Format + `",` + "\n\"transport\": \"tc\xffp\"}", "s.json:2:17: byte 0xFF is not UTF-8"},
		{"empty", "", "s.json: empty file"},
		// Not JSON from the first byte, and a bad value deep in the file:
		// the column is the offending byte's.
		{"garbage", "garbage", "s.json:1:1: invalid character 'g'"},
		{"bad value", `{"format": "` + Format + `",` + "\n" + `"payloads": [{"payload": 16, "receive_rate": x}]}`,
			"s.json:2:46: invalid character 'x'"},
		// Cut short: the decoder gives no offset, and the file was named at 1:1.
		{"truncated", `{"format": "` + Format + `",` + "\n" + `"payloads": [{"payload": 16`,
			"s.json:2:28: truncated JSON: the object does not end (a file cut short?)"},
		// What no run writes, and process drew silently.
		{"payload twice", `{"format": "` + Format + `", "payloads": [{"payload": 16}, {"payload": 16}]}`,
			"s.json: payloads[1] (payload 16): payload 16 is given again (first in payloads[0])"},
		{"payload 0", `{"format": "` + Format + `", "payloads": [{"payload": 0}]}`,
			"s.json: payloads[0] (payload 0): the payload is not a positive byte count"},
		{"negative latency", `{"format": "` + Format + `", "payloads": [{"payload": 16, "latency": {"count": 3, "p99_ns": -4}}]}`,
			`s.json: payloads[0] (payload 16): field "latency": p99_ns -4 is negative: a latency is at least 0`},
		{"negative rate", `{"format": "` + Format + `", "payloads": [{"payload": 16, "receive_rate": -1}]}`,
			`s.json: payloads[0] (payload 16): field "receive_rate" is -1: expected at least 0`},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.json")
			if err := os.WriteFile(path, []byte(c.in), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadFile(path)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%q: %v, want %q", c.in, err, c.want)
			}
		})
	}
	for _, in := range []string{good, good + "\n", " \n" + good + " \r\n\t"} {
		path := filepath.Join(t.TempDir(), "s.json")
		if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadFile(path); err != nil {
			t.Errorf("%q: %v", in, err)
		}
	}
}

// TestReadErrors: another format, an unknown field and a syntax error are
// refused, located in the file.
func TestReadErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"format": "other/1"}`, `format "other/1"`},
		{"{\n\"format\": \"mqgate-load-summary/2\",\n\"bogus\": 1}", `j.json:3:1: json: unknown field "bogus"`},
		{`{"format": "mqgate-load-summary/1"}`, `format "mqgate-load-summary/1", expected "mqgate-load-summary/2"`},
		{"{\n\"format\": \n}", "j.json:3:"},
		{`{"format": "mqgate-load-summary/2", "payloads": [{"payload": "16"}]}`, "j.json:1:"},
	} {
		_, err := Read(strings.NewReader(c.in), "j.json")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}

// FuzzRead: whatever Read accepts, Write writes and Read reads back to the
// same bytes again.
func FuzzRead(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("testdata", FileName("intraprocess_best_effort"))); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"format": "` + Format + `"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Read(bytes.NewReader(data), "f.json")
		if err != nil {
			return
		}
		var once, twice bytes.Buffer
		if err := Write(&once, s); err != nil {
			t.Fatal(err)
		}
		s2, err := Read(bytes.NewReader(once.Bytes()), "f.json")
		if err != nil {
			t.Fatalf("written summary does not read back: %v", err)
		}
		if err := Write(&twice, s2); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(once.Bytes(), twice.Bytes()) {
			t.Fatal("a second round trip changed the summary")
		}
	})
}

// TestByteOrderMark: a summary saved by an editor that starts it with a
// UTF-8 byte-order mark reads, as meta.json and the CSV files do; it was
// refused as an invalid character.
func TestByteOrderMark(t *testing.T) {
	s, err := Read(strings.NewReader("\ufeff"+`{"format": "`+Format+`", "payloads": [{"payload": 16}]}`), "s.json")
	if err != nil || len(s.Payloads) != 1 {
		t.Fatalf("%+v, %v", s, err)
	}
}

// TestEmptyStatsNull: statistics of no latency at all (an unpaced run's
// send delay) are written null beside their count of 0, never as a latency
// of 0, and read back as the empty Stats.
func TestEmptyStatsNull(t *testing.T) {
	s := Summary{Format: Format, Payloads: []PayloadSummary{{Payload: 16, SendDelay: Stats{}, Latency: Stats{Count: 2, P50Ns: 7, MaxNs: 9}}}}
	var b bytes.Buffer
	if err := Write(&b, s); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{`"send_delay": {
        "count": 0,
        "min_ns": null,`, `"p50_ns": 7,`} {
		if !strings.Contains(out, want) {
			t.Errorf("written:\n%s\nwant it to contain %s", out, want)
		}
	}
	path := filepath.Join(t.TempDir(), FileName("x"))
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Payloads[0]; got.SendDelay != (Stats{}) || got.Latency.P50Ns != 7 {
		t.Errorf("read back %+v", got)
	}
}

// TestEmptyStatsFields: the empty Stats writes every field one with a
// latency writes.
func TestEmptyStatsFields(t *testing.T) {
	keys := func(st Stats) []string {
		b, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		return slices.Sorted(maps.Keys(m))
	}
	if empty, full := keys(Stats{}), keys(Stats{Count: 1, P50Ns: 3}); !slices.Equal(empty, full) {
		t.Errorf("empty Stats writes %v, one with a latency %v", empty, full)
	}
}
