package measurements

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

const fixture = "../../testdata/fastrtps-v192/measurements_interprocess_reliable.csv"

func readAll(t testing.TB, data []byte, name string) ([]Sample, error) {
	t.Helper()
	r := NewReader(bytes.NewReader(data), name)
	var out []Sample
	for r.Next() {
		out = append(out, r.Sample())
	}
	return out, r.Err()
}

func writeAll(t testing.TB, samples []Sample) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, s := range samples {
		if err := w.Write(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestRoundTripFixture reads the real Fast-RTPS file, writes it, and reads it
// back: every value survives bit for bit, and a file written by mqgate
// round-trips to identical bytes. (The Fast-RTPS file itself prints "14.27"
// where mqgate prints "14.270", formats §2's three decimals.)
func TestRoundTripFixture(t *testing.T) {
	data, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	samples, err := readAll(t, data, fixture)
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 110000 {
		t.Fatalf("read %d samples, want 110000", len(samples))
	}
	if s := samples[0]; s != (Sample{1, 16, 58.625}) {
		t.Fatalf("first sample %+v", s)
	}
	written := writeAll(t, samples)
	again, err := readAll(t, written, "written")
	if err != nil {
		t.Fatal(err)
	}
	for i := range samples {
		if samples[i] != again[i] {
			t.Fatalf("row %d: %+v became %+v", i+2, samples[i], again[i])
		}
	}
	if !bytes.Equal(writeAll(t, again), written) {
		t.Fatal("second write differs from the first")
	}
	// Identical bytes to the original apart from zero padding to 3 decimals.
	orig := strings.Split(string(data), "\n")
	got := strings.Split(string(written), "\n")
	for i := range orig {
		if orig[i] != got[i] && !strings.HasPrefix(got[i], orig[i]) {
			t.Fatalf("line %d: %q written as %q", i+1, orig[i], got[i])
		}
	}
}

func TestAppendLatency(t *testing.T) {
	cases := map[float64]string{
		14.27: "14.270", 58.625: "58.625", 39.4555: "39.4555", 12: "12.000", 0: "0.000",
		0.0001: "0.0001", 1234567.891: "1234567.8910", 12.345678901: "12.345678901",
	}
	for v, want := range cases {
		if got := string(AppendLatency(nil, v)); got != want {
			t.Errorf("AppendLatency(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestBadInput(t *testing.T) {
	cases := []struct{ name, data, want string }{
		{"empty", "", `f.csv: empty file: expected the header "Sample,Payload [Bytes],Latency [us]"`},
		{"wrong header", "Sample,Payload,Latency\n1,16,2\n", `f.csv:1: header is "Sample,Payload,Latency", expected exactly`},
		{"header only", Header + "\n", "f.csv:1: no samples after the header"},
		{"header no newline", Header, "f.csv:1: no samples after the header"},
		{"not a number", Header + "\n1,16,12.5x\n", `f.csv:2: column "Latency [us]": "12.5x" is not a number`},
		{"empty latency", Header + "\n1,16,\n", `f.csv:2: column "Latency [us]": "" is not a number`},
		{"nan", Header + "\n1,16,NaN\n", `f.csv:2: column "Latency [us]": "NaN" is not a finite latency`},
		{"inf", Header + "\n1,16,+Inf\n", `f.csv:2: column "Latency [us]": "+Inf" is not a finite latency`},
		{"negative", Header + "\n1,16,2\n2,16,-1.5\n", `f.csv:3: column "Latency [us]": "-1.5" is negative`},
		{"payload zero", Header + "\n1,0,2\n", `f.csv:2: column "Payload [Bytes]": "0" is not a positive integer`},
		{"payload float", Header + "\n1,16.5,2\n", `f.csv:2: column "Payload [Bytes]": "16.5" is not a positive integer`},
		{"payload negative", Header + "\n1,-16,2\n", `column "Payload [Bytes]": "-16" is not a positive integer`},
		{"sample", Header + "\nx,16,2\n", `f.csv:2: column "Sample": "x" is not a positive integer`},
		{"two fields", Header + "\n1,16\n", `f.csv:2: row "1,16" has 2 fields, expected 3`},
		{"four fields", Header + "\n1,16,2,3\n", `f.csv:2: row "1,16,2,3" has more than 3 fields`},
		{"cut off", Header + "\n1,16,2.5\n2,16,3.", `f.csv:3: the last row "2,16,3." is not terminated by a newline`},
		{"blank line", Header + "\n1,16,2\n\n2,16,3\n", "f.csv:3: empty line"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := readAll(t, []byte(c.data), "f.csv")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestCRLFAndBOM(t *testing.T) {
	got, err := readAll(t, []byte("\xef\xbb\xbf"+Header+"\r\n1,16,2.5\r\n"), "f.csv")
	if err != nil || len(got) != 1 || got[0] != (Sample{1, 16, 2.5}) {
		t.Fatalf("%+v %v", got, err)
	}
}

func TestWriterRejectsBadLatency(t *testing.T) {
	w := NewWriter(&bytes.Buffer{})
	if err := w.Write(Sample{1, 16, -1}); err == nil {
		t.Fatal("negative latency written")
	}
}

func FuzzReader(f *testing.F) {
	f.Add([]byte(Header + "\n1,16,58.625\n2,16,39.4555\n"))
	f.Add([]byte(Header + "\n1,16,1e3\n"))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		samples, err := readAll(t, data, "fuzz.csv")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.csv") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		// Whatever parses must write and parse back to the same values.
		again, err := readAll(t, writeAll(t, samples), "again")
		if err != nil {
			t.Fatalf("re-reading written samples: %v", err)
		}
		if len(again) != len(samples) {
			t.Fatalf("%d samples became %d", len(samples), len(again))
		}
		for i := range samples {
			if samples[i] != again[i] {
				t.Fatalf("%+v became %+v", samples[i], again[i])
			}
		}
	})
}

func BenchmarkReadFixture(b *testing.B) {
	data, err := os.ReadFile(fixture)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r := NewReader(bytes.NewReader(data), fixture)
		n := 0
		for r.Next() {
			n++
		}
		if r.Err() != nil || n != 110000 {
			b.Fatal(n, r.Err())
		}
	}
}
