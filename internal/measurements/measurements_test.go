package measurements

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
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
		// Said "is not a positive integer" of a positive integer.
		{"payload too large", Header + "\n1,99999999999999999999,2\n", `f.csv:2: column "Payload [Bytes]": "99999999999999999999" is too large: expected a positive integer of at most 16 digits`},
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
		// Two files joined (cat a.csv b.csv): the second header was told
		// '"Sample" is not a positive integer'.
		{"header again", Header + "\n1,16,2\n" + Header + "\n1,16,3\n", "f.csv:3: the header again (two files joined into one?): expected a row"},
		{"header again CRLF", Header + "\r\n1,16,2\r\n" + Header + "\r\n1,16,3\r\n", "f.csv:3: the header again"},
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

// TestSampleNumbering checks formats §2's Sample column: counting from 1,
// and at each new payload either from 1 again or on from the row before,
// the same way throughout the file, each payload's rows together. Every
// break is an error naming the line, the column and what was expected; a
// lenient Reader reads them all.
func TestSampleNumbering(t *testing.T) {
	const rule = ": " + SampleRule
	cases := []struct{ name, rows, want string }{
		{"per payload", "1,16,1\n2,16,1\n3,16,1\n1,32,1\n2,32,1\n1,64,1\n", ""},
		// Fast-RTPS LatencyTest: one count across payloads.
		{"continuous", "1,16,1\n2,16,1\n3,16,1\n4,32,1\n5,32,1\n6,64,1\n", ""},
		{"one payload", "1,16,1\n2,16,1\n", ""},
		{"one row per payload", "1,16,1\n1,32,1\n1,64,1\n", ""},
		{"one row per payload continuous", "1,16,1\n2,32,1\n3,64,1\n", ""},
		{"starts at 2", "2,16,1\n3,16,1\n",
			`f.csv:2: column "Sample": 2 is the first sample of payload 16, expected 1 (the first row of a file)` + rule},
		{"continuous starting late", "10001,32,1\n10002,32,1\n",
			`f.csv:2: column "Sample": 10001 is the first sample of payload 32, expected 1 (the first row of a file)`},
		{"new payload neither", "1,16,1\n2,16,1\n5,32,1\n",
			`f.csv:4: column "Sample": 5 is the first sample of payload 32, expected 1 (counting within each payload) ` +
				`or 3 (counting on from payload 16's last sample, 2)` + rule},
		{"new payload repeats", "1,16,1\n2,16,1\n2,32,1\n",
			`f.csv:4: column "Sample": 2 is the first sample of payload 32, expected 1 (counting within each payload) or 3`},
		{"per payload then continuous", "1,16,1\n2,16,1\n1,32,1\n2,32,1\n3,64,1\n",
			`f.csv:6: column "Sample": 3 is the first sample of payload 64, expected 1: this file counts within each ` +
				`payload (the second payload started again at 1 on line 4)` + rule},
		{"continuous then per payload", "1,16,1\n2,16,1\n3,32,1\n4,32,1\n1,64,1\n",
			`f.csv:6: column "Sample": 1 is the first sample of payload 64, expected 5 (counting on from payload 32's ` +
				`last sample, 4): this file counts across payloads (the second payload carried on the count on line 4)` + rule},
		{"continuous gap at payload", "1,16,1\n2,16,1\n3,32,1\n4,32,1\n9,64,1\n",
			`f.csv:6: column "Sample": 9 is the first sample of payload 64, expected 5`},
		{"decreasing", "1,16,1\n2,16,1\n3,16,1\n2,16,1\n",
			`f.csv:5: column "Sample": 2 goes back from 3 in payload 16, expected 4` + rule},
		{"continuous decreasing", "1,16,1\n2,16,1\n3,32,1\n4,32,1\n2,32,1\n",
			`f.csv:6: column "Sample": 2 goes back from 4 in payload 32, expected 5` + rule},
		{"duplicated", "1,16,1\n2,16,1\n2,16,1\n",
			`f.csv:4: column "Sample": 2 repeats the sample before in payload 16, expected 3` + rule},
		{"continuous duplicated", "1,16,1\n2,16,1\n3,32,1\n3,32,1\n",
			`f.csv:5: column "Sample": 3 repeats the sample before in payload 32, expected 4`},
		{"one missing", "1,16,1\n3,16,1\n",
			`f.csv:3: column "Sample": 3 follows 1: sample 2 is missing in payload 16, expected 2` + rule},
		{"two missing", "1,16,1\n4,16,1\n",
			`f.csv:3: column "Sample": 4 follows 1: samples 2 and 3 are missing in payload 16, expected 2`},
		{"gap", "1,16,1\n2,16,1\n9,16,1\n",
			`f.csv:4: column "Sample": 9 follows 2: samples 3 to 8 are missing in payload 16, expected 3` + rule},
		{"continuous gap", "1,16,1\n2,16,1\n3,32,1\n7,32,1\n",
			`f.csv:5: column "Sample": 7 follows 3: samples 4 to 6 are missing in payload 32, expected 4`},
		{"payload reappears", "1,16,1\n2,16,1\n1,32,1\n1,16,1\n",
			`f.csv:5: column "Payload [Bytes]": payload 16 appears again: its rows began on line 2 and other payloads followed` + rule},
		{"payload reappears continuing", "1,16,1\n2,32,1\n3,16,1\n",
			`f.csv:4: column "Payload [Bytes]": payload 16 appears again`},
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
// payloads (16 B 1-10000, 32 B 10001-20000, …), one of formats §2's two
// conventions, so its file is read whole by default; the same file with a
// row dropped, or numbered from 1 in each payload from the third payload
// on, is refused at that row.
func TestFixtureSampleNumbering(t *testing.T) {
	data, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	samples, err := readAll(t, data, fixture)
	if err != nil || len(samples) != 110000 {
		t.Fatalf("%d samples, %v", len(samples), err)
	}
	if s := samples[10000]; s != (Sample{10001, 32, 130.846}) {
		t.Fatalf("first sample of payload 32: %+v", s)
	}
	lines := strings.SplitAfter(string(data), "\n")
	// Line 5002 holds sample 5001 of payload 16.
	dropped := strings.Join(lines[:5001], "") + strings.Join(lines[5002:], "")
	_, err = readAll(t, []byte(dropped), fixture)
	want := fixture + `:5002: column "Sample": 5002 follows 5000: sample 5001 is missing in payload 16, expected 5001`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("row dropped: error %v, want it to contain %q", err, want)
	}
	// From line 20002 (payload 64) on, count from 1 within each payload.
	var mixed bytes.Buffer
	for i, l := range lines {
		if i >= 20001 && l != "" {
			f := strings.SplitN(l, ",", 2)
			n, _ := strconv.Atoi(f[0])
			l = strconv.Itoa((n-1)%10000+1) + "," + f[1]
		}
		mixed.WriteString(l)
	}
	_, err = readAll(t, mixed.Bytes(), fixture)
	want = fixture + `:20002: column "Sample": 1 is the first sample of payload 64, expected 20001`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("mixed numbering: error %v, want it to contain %q", err, want)
	}
}

// TestNoAllocationPerRow: reading allocates per file, not per row, even
// with a hint set (building the error text per row cost process 3×).
func TestNoAllocationPerRow(t *testing.T) {
	file := func(rows int, continuous bool) []byte {
		var b bytes.Buffer
		b.WriteString(Header + "\n")
		for i := 0; i < rows; i++ {
			s := i%(rows/2) + 1
			if continuous {
				s = i + 1
			}
			fmt.Fprintf(&b, "%d,%d,%d.%03d\n", s, 16<<(2*i/rows), 10+i%7, i%1000)
		}
		return b.Bytes()
	}
	for _, continuous := range []bool{false, true} {
		allocs := func(data []byte) float64 {
			return testing.AllocsPerRun(5, func() {
				r := NewReader(bytes.NewReader(data), "f.csv")
				r.SetSampleHint("process --lenient-samples reads it anyway")
				n := 0
				for r.Next() {
					n++
				}
				if r.Err() != nil || n == 0 {
					t.Fatal(n, r.Err())
				}
			})
		}
		small, large := allocs(file(10, continuous)), allocs(file(20000, continuous))
		if large != small {
			t.Errorf("continuous %v: %v allocations reading 10 rows, %v reading 20,000", continuous, small, large)
		}
	}
}

// TestReaderChunks: however the input arrives (a byte at a time, with the
// end of file on the last data, in halves), rows split across reads and
// CRLF rows are read alike, and a read error or an overlong line is an
// error naming the line.
func TestReaderChunks(t *testing.T) {
	data, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	want, err := readAll(t, data, fixture)
	if err != nil {
		t.Fatal(err)
	}
	crlf := bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))
	for name, in := range map[string]io.Reader{
		"one byte":  iotest.OneByteReader(bytes.NewReader(data)),
		"data EOF":  iotest.DataErrReader(bytes.NewReader(data)),
		"half":      iotest.HalfReader(bytes.NewReader(data)),
		"CRLF":      bytes.NewReader(crlf),
		"CRLF half": iotest.HalfReader(bytes.NewReader(crlf)),
	} {
		got, err := read(in, fixture, false)
		if err != nil || len(got) != len(want) {
			t.Fatalf("%s: %d samples, %v", name, len(got), err)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: row %d: %+v, want %+v", name, i+2, got[i], want[i])
			}
		}
	}
	// A read error after 3 rows.
	head := []byte(Header + "\n1,16,1.5\n2,16,2.5\n3,16,3.5\n")
	_, err = read(io.MultiReader(bytes.NewReader(head), iotest.ErrReader(errors.New("disk on fire"))), "f.csv", false)
	if err == nil || err.Error() != "f.csv:5: disk on fire" {
		t.Fatalf("read error: %v", err)
	}
	long := append(append([]byte{}, head...), bytes.Repeat([]byte("7"), maxLine+1)...)
	_, err = read(bytes.NewReader(long), "f.csv", false)
	if err == nil || !strings.Contains(err.Error(), "f.csv:5: line longer than 262144 bytes") {
		t.Fatalf("long line: %v", err)
	}
	// The longest line that fits is read (and refused as a row).
	fits := append(append([]byte{}, head...), bytes.Repeat([]byte("7"), maxLine-1)...)
	_, err = read(bytes.NewReader(append(fits, '\n')), "f.csv", false)
	if err == nil || !strings.Contains(err.Error(), "f.csv:5: row \"7777") {
		t.Fatalf("longest line: %v", err)
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
	f.Add([]byte(Header + "\n1,16,1\n2,16,1\n3,32,1\n4,32,+1\n5,32,1e1\n"))
	f.Add([]byte(Header + "\r\n1,16,1.5\r\n1,32,2\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		samples, err := readAll(t, data, "fuzz.csv")
		// A byte at a time, every row goes the general way: the one-pass
		// reading of common rows changes nothing, errors included.
		slow, slowErr := read(iotest.OneByteReader(bytes.NewReader(data)), "fuzz.csv", false)
		if fmt.Sprint(err) != fmt.Sprint(slowErr) || len(slow) != len(samples) {
			t.Fatalf("read whole: %d samples, %v; a byte at a time: %d samples, %v", len(samples), err, len(slow), slowErr)
		}
		for i := range samples {
			if math.Float64bits(samples[i].Latency) != math.Float64bits(slow[i].Latency) || samples[i] != slow[i] {
				t.Fatalf("row %d: %+v whole, %+v a byte at a time", i+2, samples[i], slow[i])
			}
		}
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
