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
