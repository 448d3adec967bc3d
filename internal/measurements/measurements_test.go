package measurements

import (
	"bytes"
	"io"
	"math"
	"os"
	"strings"
	"testing"
)

const fixture = "../../testdata/fastrtps-v192/measurements_interprocess_reliable.csv"

func readAll(t testing.TB, data []byte, name string) ([]Sample, error) {
	t.Helper()
	return read(bytes.NewReader(data), name, false)
}

// readLenient reads data with SetLenientSamples, as the Fast-RTPS fixture,
// which numbers samples across payloads, must be read.
func readLenient(t testing.TB, data []byte, name string) ([]Sample, error) {
	t.Helper()
	return read(bytes.NewReader(data), name, true)
}

func read(in io.Reader, name string, lenient bool) ([]Sample, error) {
	r := NewReader(in, name)
	r.SetLenientSamples(lenient)
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
	samples, err := readLenient(t, data, fixture)
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
	again, err := readLenient(t, written, "written")
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
		// Long digit strings overflow the legacy parser's accumulator, which
		// then gave NaN (scaled down by an overflowed power of ten) or +Inf.
		{"600 nines", Header + "\n1,16,1\n2,16,0." + strings.Repeat("9", 600) + "\n",
			`f.csv:3: column "Latency [us]": "0.9999999999999999999999…99999999" (602 characters) has 600 significant digits, more than the 308`},
		{"400 zeros e-600", Header + "\n1,16,1" + strings.Repeat("0", 400) + "e-600\n",
			`f.csv:2: column "Latency [us]": "100000000000000000000000…000e-600" (406 characters) has 401 significant digits`},
		{"1000 digit fraction", Header + "\n1,16,0." + strings.Repeat("1", 1000) + "\n",
			`f.csv:2: column "Latency [us]": "0.1111111111111111111111…11111111" (1002 characters) has 1000 significant digits`},
		{"1000 digit integer", Header + "\n1,16," + strings.Repeat("7", 1000) + "\n",
			`f.csv:2: column "Latency [us]": "777777777777777777777777…77777777" (1000 characters) has 1000 significant digits`},
		{"leading zeros do not count", Header + "\n1,16,0." + strings.Repeat("0", 600) + "1e700\n", ""},
		{"1e309", Header + "\n1,16,1e309\n", `f.csv:2: column "Latency [us]": "1e309" is out of range: expected a finite latency`},
		{"1e-2000", Header + "\n1,16,1e-2000\n", `f.csv:2: column "Latency [us]": "1e-2000" is out of range`},
		{"hex", Header + "\n1,16,0x10\n", `f.csv:2: column "Latency [us]": "0x10" is not a number`},
		{"infinity", Header + "\n1,16,-infinity\n", `f.csv:2: column "Latency [us]": "-infinity" is not a finite latency`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := readAll(t, []byte(c.data), "f.csv")
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range got {
					if math.IsNaN(s.Latency) || math.IsInf(s.Latency, 0) {
						t.Fatalf("read %+v", s)
					}
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}

// TestSampleNumbering checks formats §2's Sample column: counting from 1
// within each payload, each payload's rows together. Every break is an error
// naming the line and what was expected; a lenient Reader reads them all.
func TestSampleNumbering(t *testing.T) {
	const rule = "Sample counts 1, 2, 3, … within each payload, each payload's rows together (formats §2)"
	cases := []struct{ name, rows, want string }{
		{"good", "1,16,1\n2,16,1\n3,16,1\n1,32,1\n2,32,1\n", ""},
		{"starts at 2", "2,16,1\n3,16,1\n", `f.csv:2: column "Sample": 2 is the first sample of payload 16, expected 1: ` + rule},
		{"next payload continues", "1,16,1\n2,16,1\n3,32,1\n", `f.csv:4: column "Sample": 3 is the first sample of payload 32, expected 1`},
		{"decreasing", "1,16,1\n2,16,1\n3,16,1\n2,16,1\n", `f.csv:5: column "Sample": 2 goes back from 3 in payload 16, expected 4: ` + rule},
		{"duplicated", "1,16,1\n2,16,1\n2,16,1\n", `f.csv:4: column "Sample": 2 repeats the sample before in payload 16, expected 3`},
		{"one missing", "1,16,1\n3,16,1\n", `f.csv:3: column "Sample": 3 follows 1: sample 2 is missing in payload 16, expected 2`},
		{"gap", "1,16,1\n2,16,1\n9,16,1\n", `f.csv:4: column "Sample": 9 follows 2: samples 3 to 8 are missing in payload 16, expected 3`},
		{"payload reappears", "1,16,1\n2,16,1\n1,32,1\n1,16,1\n", `f.csv:5: column "Payload [Bytes]": payload 16 appears again: its rows began on line 2 and other payloads followed; expected ` + rule},
		{"payload reappears continuing", "1,16,1\n1,32,1\n2,16,1\n", `f.csv:4: column "Payload [Bytes]": payload 16 appears again`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := []byte(Header + "\n" + c.rows)
			got, err := readAll(t, data, "f.csv")
			switch {
			case c.want == "" && err != nil:
				t.Fatal(err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
			lenient, err := readLenient(t, data, "f.csv")
			if err != nil || len(lenient) != strings.Count(c.rows, "\n") {
				t.Fatalf("lenient: %d samples, %v", len(lenient), err)
			}
			if c.want == "" && len(got) != len(lenient) {
				t.Fatalf("%d samples, lenient %d", len(got), len(lenient))
			}
		})
	}
	// The hint tells how to read such a file anyway.
	r := NewReader(strings.NewReader(Header+"\n2,16,1\n"), "f.csv")
	r.SetSampleHint("use --lenient")
	for r.Next() {
	}
	if err := r.Err(); err == nil || !strings.HasSuffix(err.Error(), rule+"; use --lenient") {
		t.Fatalf("error %v, want it to end with the hint", err)
	}
}

// TestFixtureSampleNumbering: Fast-RTPS LatencyTest numbers samples across
// payloads, so its file breaks formats §2 where the second payload starts,
// and is read whole by a lenient Reader.
func TestFixtureSampleNumbering(t *testing.T) {
	f, err := os.Open(fixture)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = read(f, fixture, false)
	want := fixture + `:10002: column "Sample": 10001 is the first sample of payload 32, expected 1`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want it to contain %q", err, want)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	samples, err := read(f, fixture, true)
	if err != nil || len(samples) != 110000 {
		t.Fatalf("lenient: %d samples, %v", len(samples), err)
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
		r.SetLenientSamples(true)
		n := 0
		for r.Next() {
			n++
		}
		if r.Err() != nil || n != 110000 {
			b.Fatal(n, r.Err())
		}
	}
}
