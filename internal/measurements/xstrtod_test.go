package measurements

import (
	"encoding/json"
	"math"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestParseLatencyMatchesPandasLegacy compares ParseLatency, bit for bit,
// with what pandas' legacy parser read for every distinct latency of the
// Fast-RTPS fixture and 20,000 random decimals (testdata/pandas_legacy.py).
func TestParseLatencyMatchesPandasLegacy(t *testing.T) {
	data, err := os.ReadFile("testdata/pandas_legacy.json")
	if err != nil {
		t.Fatal(err)
	}
	var pairs [][2]string
	if err := json.Unmarshal(data, &pairs); err != nil {
		t.Fatal(err)
	}
	differFromStrconv := 0
	for _, p := range pairs {
		want, err := strconv.ParseFloat(p[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := ParseLatency([]byte(p[0]))
		if !ok || got != want {
			t.Errorf("ParseLatency(%q) = %v (%x), %v; pandas legacy %v (%s)", p[0], got, got, ok, want, p[1])
		}
		if exact, _ := strconv.ParseFloat(p[0], 64); exact != want {
			differFromStrconv++
		}
	}
	// The point of the exercise: the legacy parser is not correctly rounded.
	if differFromStrconv == 0 {
		t.Error("no value differs from strconv.ParseFloat; the reference data cannot tell the parsers apart")
	}
	t.Logf("%d of %d values differ from the correctly rounded parse", differFromStrconv, len(pairs))
}

func TestParseLatencyRejects(t *testing.T) {
	for _, s := range []string{"", "-", "+", ".", "1e", "1e+", "abc", "1.2.3", "12.5x", "NaN", "inf", "1 ", " 1", "1e5000", "0x10",
		"0." + strings.Repeat("9", 600), "1" + strings.Repeat("0", 400) + "e-600", strings.Repeat("1", 1000), "1e309"} {
		if v, ok := ParseLatency([]byte(s)); ok {
			t.Errorf("ParseLatency(%q) = %v, accepted", s, v)
		}
	}
}

// TestAppendLatencyReadsBack checks, over values as run produces them (whole
// and half nanoseconds) and arbitrary floats, that what is written reads
// back exactly.
func TestAppendLatencyReadsBack(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 200000; i++ {
		var v float64
		switch i % 3 {
		case 0:
			v = float64(rng.Int63n(1e9)) / 1000 // whole ns
		case 1:
			v = float64(rng.Int63n(2e9)) / 2000 // half round trip of whole ns
		default:
			v = rng.ExpFloat64() * 100
		}
		s := AppendLatency(nil, v)
		got, ok := ParseLatency(s)
		if i%3 == 2 {
			// Arbitrary 17-digit floats, which no clock produces: within
			// 1e-13 relative (the legacy parser rounds as it accumulates
			// more digits than a float holds).
			if !ok || math.Abs(got-v) > 1e-13*v {
				t.Fatalf("AppendLatency(%v) = %q reads back as %v", v, s, got)
			}
			continue
		}
		if !ok || got != v {
			t.Fatalf("AppendLatency(%v) = %q reads back as %v", v, s, got)
		}
	}
}

// otherRow parses b with parseOtherRow, the general path.
func otherRow(b []byte) (sample, payload int, v float64, ok bool) {
	r := Reader{file: "f.csv"}
	return r.parseOtherRow(b)
}

// checkCommonRow fails t if parseCommonRow takes b and reads it other than
// parseOtherRow does; it reports whether parseCommonRow took it.
func checkCommonRow(t testing.TB, b []byte) bool {
	s, p, v, ok := parseCommonRow(b)
	if !ok {
		return false
	}
	s2, p2, v2, ok2 := otherRow(b)
	if !ok2 || s != s2 || p != p2 || math.Float64bits(v) != math.Float64bits(v2) {
		t.Fatalf("row %q: common path %d,%d,%v (%x); general path %d,%d,%v (%x), %v",
			b, s, p, v, math.Float64bits(v), s2, p2, v2, math.Float64bits(v2), ok2)
	}
	return true
}

// TestCommonRowMatchesPandasLegacy: the one-pass parser of common rows reads
// every latency it takes as pandas' legacy parser did, and takes the
// plain decimals Fast-RTPS and run write.
func TestCommonRowMatchesPandasLegacy(t *testing.T) {
	data, err := os.ReadFile("testdata/pandas_legacy.json")
	if err != nil {
		t.Fatal(err)
	}
	var pairs [][2]string
	if err := json.Unmarshal(data, &pairs); err != nil {
		t.Fatal(err)
	}
	taken := 0
	for _, p := range pairs {
		want, _ := strconv.ParseFloat(p[1], 64)
		row := []byte("10001,32," + p[0])
		if !checkCommonRow(t, row) {
			continue
		}
		taken++
		if _, _, v, _ := parseCommonRow(row); v != want {
			t.Errorf("%q read as %v, pandas legacy %v", row, v, want)
		}
	}
	if taken < len(pairs)*9/10 {
		t.Errorf("the common path took %d of %d plain decimals", taken, len(pairs))
	}
}

// TestCommonRowEdges: rows at the edges of what the one-pass parser takes
// read as the general parser reads them, and the rest are left to it.
func TestCommonRowEdges(t *testing.T) {
	takes := []string{"1,16,0", "1,16,5.", "1,16,.5", "1,16,0.000", "1,16,58.625", "9999999999999999,16,1",
		"1,9999999999999999,1", "1,16,123456789012345", "1,16,1234567890.12345", "1,16,0.00000000000001",
		"1,16,000000000000001", "1,16,999999999999999", "1,16,12.345"}
	leaves := []string{"", ",16,1", "1,,1", "1,16,", "1,16,.", "0,16,1", "1,0,1", "01234567890123456,16,1",
		"1,16,1234567890123456", "1,16,0.0000000000000001", "1,16,-1", "1,16,+1", "1,16,1e3", "1,16,1.5x",
		"1,16,1.5,", "1,16,1,2", "x,16,1", "1,1x,1", "1,16,1.2.3", "1,16,1 ", " 1,16,1", "1,16,NaN", "1,16"}
	for _, s := range takes {
		if !checkCommonRow(t, []byte(s)) {
			t.Errorf("%q left to the general parser", s)
		}
	}
	for _, s := range leaves {
		if checkCommonRow(t, []byte(s)) {
			t.Errorf("%q taken by the common path", s)
		}
	}
	// Random plain decimals of 1 to 15 digits, as written and otherwise.
	rng := rand.New(rand.NewSource(3))
	for i := 0; i < 200000; i++ {
		digits := 1 + rng.Intn(15)
		b := []byte("7,16,")
		point := rng.Intn(digits + 1)
		for d := 0; d < digits; d++ {
			if d == point {
				b = append(b, '.')
			}
			b = append(b, byte('0'+rng.Intn(10)))
		}
		if !checkCommonRow(t, b) {
			t.Fatalf("%q left to the general parser", b)
		}
	}
}

func FuzzCommonRow(f *testing.F) {
	f.Add([]byte("1,16,58.625"))
	f.Add([]byte("10001,32,130.846"))
	f.Add([]byte("1,16,1e3"))
	f.Fuzz(func(t *testing.T, b []byte) { checkCommonRow(t, b) })
}

// BenchmarkParseLatency is the cost of reading one latency field, over
// the spellings a raw file holds (plain decimals, an exponent now and then).
func BenchmarkParseLatency(b *testing.B) {
	fields := [][]byte{[]byte("58.625"), []byte("1234.5"), []byte("0.001"), []byte("17"), []byte("1.5e3"), []byte("123456789012.25")}
	b.ReportAllocs()
	sum := 0.0
	for i := range b.N {
		v, ok := ParseLatency(fields[i%len(fields)])
		if !ok {
			b.Fatal(string(fields[i%len(fields)]))
		}
		sum += v
	}
	if sum <= 0 {
		b.Fatal(sum)
	}
}
