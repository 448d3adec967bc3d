package result

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"
)

const fixture = "../../testdata/fastrtps-v192/measurements_interprocess_reliable_summary.csv"

func TestRoundTripFixture(t *testing.T) {
	data, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := ReadSummary(bytes.NewReader(data), fixture)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 11 || rows[0].Bytes != 16 || rows[10].Bytes != 16384 || rows[0].P9999 != 58.631 {
		t.Fatalf("rows %+v", rows)
	}
	var buf bytes.Buffer
	if err := WriteSummary(&buf, rows); err != nil {
		t.Fatal(err)
	}
	if buf.String() != string(data) {
		t.Fatalf("round trip differs:\n%s\nwant\n%s", buf.String(), data)
	}
}

func TestGet(t *testing.T) {
	r := SummaryRow{Bytes: 16, Summary: Summary{Samples: 3, Max: 9, Min: 1, Median: 5, P99: 8.5, P9999: 8.9}}
	for col, want := range map[string]float64{"Max": 9, "Min": 1, "Median": 5, "99%": 8.5, "99.99%": 8.9} {
		if got, ok := r.Get(col); !ok || got != want {
			t.Errorf("Get(%q) = %v, %v", col, got, ok)
		}
	}
	for _, col := range []string{"Bytes", "Samples", "p99", ""} {
		if _, ok := r.Get(col); ok {
			t.Errorf("Get(%q) accepted", col)
		}
	}
}

func TestFormat3RoundsLikePython(t *testing.T) {
	// Values checked with Python's "{:.3f}".format: it rounds the exact binary value.
	cases := map[float64]string{0.0005: "0.001", 1.0005: "1.000", 2.5e-4: "0.000", 58.6305: "58.630", 0: "0.000"}
	for v, want := range cases {
		if got := Format3(v); got != want {
			t.Errorf("Format3(%v) = %s, want %s", v, got, want)
		}
	}
}

func TestBadInput(t *testing.T) {
	h := strings.Join(SummaryColumns, ",") + "\n"
	cases := []struct{ name, data, want string }{
		{"empty", "", "s.csv: empty file: expected the header"},
		{"wrong header", "Bytes,Samples\n", `s.csv:1: header is "Bytes,Samples", expected exactly`},
		{"no rows", h, "s.csv:1: no rows after the header"},
		{"short row", h + "16,10,1,2\n", "s.csv:2: row has 4 fields, expected 12"},
		{"bad bytes", h + "x,10,1,1,1,1,1,1,1,1,1,1\n", `s.csv:2: column "Bytes": "x" is not a positive integer`},
		{"bad float", h + "16,10,1,1,1,1.2.3,1,1,1,1,1,1\n", `s.csv:2: column "Median": "1.2.3" is not a number`},
		{"nan", h + "16,10,1,1,1,nan,1,1,1,1,1,1\n", `s.csv:2: column "Median": "nan" is not a finite latency`},
		{"negative", h + "16,10,1,1,1,1,1,1,1,1,-1,1\n", `s.csv:2: column "99%": "-1" is negative`},
		{"duplicate", h + "16,10,1,1,1,1,1,1,1,1,1,1\n16,10,1,1,1,1,1,1,1,1,1,1\n", `s.csv:3: column "Bytes": payload 16 appears again (first on line 2)`},
		{"quote", h + "16,10,\"1,1\n", "s.csv:2: malformed CSV"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadSummary(strings.NewReader(c.data), "s.csv")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestOneSampleJitterNaN(t *testing.T) {
	h := strings.Join(SummaryColumns, ",") + "\n"
	rows, err := ReadSummary(strings.NewReader(h+"16,1,5.000,5.000,5.000,5.000,0.000,nan,nan,5.000,5.000,5.000\n"), "s.csv")
	if err != nil || len(rows) != 1 {
		t.Fatal(rows, err)
	}
}

func TestReadFileMissing(t *testing.T) {
	_, err := ReadSummaryFile("does/not/exist.csv")
	if err == nil || !strings.Contains(err.Error(), "does/not/exist.csv: cannot read summary file") {
		t.Fatal(err)
	}
}

func FuzzRead(f *testing.F) {
	data, _ := os.ReadFile(fixture)
	f.Add(data)
	f.Add([]byte(strings.Join(SummaryColumns, ",") + "\n1,1,1,1,1,1,1,1,1,1,1,1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := ReadSummary(bytes.NewReader(data), "fuzz.csv")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.csv") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := WriteSummary(&buf, rows); err != nil {
			t.Fatal(err)
		}
		again, err := ReadSummary(&buf, "again")
		if err != nil || len(again) != len(rows) {
			t.Fatalf("written summary does not read back: %v", err)
		}
	})
}

// TestContradictions: a row no latencies can have (Max < Min, Median or
// Mean outside [Min, Max], percentiles out of order, a mean jitter above
// the largest) is an error naming the line, the column
// and the rule.
func TestContradictions(t *testing.T) {
	h := strings.Join(SummaryColumns, ",") + "\n"
	good := "16,10,9.000,1.000,4.000,4.000,2.000,1.000,3.000,7.000,8.000,8.900\n"
	const rule = "expected Min ≤ Median ≤ 90% ≤ 99% ≤ 99.99% ≤ Max"
	cases := []struct{ name, row, want string }{
		//        Bytes,Samples,Max,Min,Mean,Median,Stdev,Mean jitter,Max jitter,90%,99%,99.99%
		{"max below min", "32,10,1.000,9.000,4.000,4.000,2.000,1.000,3.000,7.000,8.000,8.900\n",
			`s.csv:3: column "Max": Max 1.000 is less than Min 9.000: the row contradicts itself`},
		{"median below min", "32,10,9.000,1.000,4.000,0.500,2.000,1.000,3.000,7.000,8.000,8.900\n",
			`s.csv:3: column "Median": Median 0.500 is less than Min 1.000: ` + rule},
		{"median above max", "32,10,9.000,1.000,4.000,9.500,2.000,1.000,3.000,9.600,9.700,9.800\n",
			`s.csv:3: column "99.99%": 99.99% 9.800 is more than Max 9.000: ` + rule},
		{"median above 90%", "32,10,9.000,1.000,4.000,7.500,2.000,1.000,3.000,7.000,8.000,8.900\n",
			`s.csv:3: column "90%": 90% 7.000 is less than Median 7.500: ` + rule},
		{"99% above 99.99%", "32,10,9.000,1.000,4.000,4.000,2.000,1.000,3.000,7.000,8.950,8.900\n",
			`s.csv:3: column "99.99%": 99.99% 8.900 is less than 99% 8.950`},
		{"99.99% above max", "32,10,9.000,1.000,4.000,4.000,2.000,1.000,3.000,7.000,8.000,9.001\n",
			`s.csv:3: column "99.99%": 99.99% 9.001 is more than Max 9.000`},
		{"mean below min", "32,10,9.000,1.000,0.001,4.000,2.000,1.000,3.000,7.000,8.000,8.900\n",
			`s.csv:3: column "Mean": Mean 0.001 is outside Min 1.000 … Max 9.000`},
		{"mean above max", "32,10,9.000,1.000,9.500,4.000,2.000,1.000,3.000,7.000,8.000,8.900\n",
			`s.csv:3: column "Mean": Mean 9.500 is outside`},
		{"max jitter below mean jitter", "32,10,9.000,1.000,4.000,4.000,2.000,1.000,0.000,7.000,8.000,8.900\n",
			`s.csv:3: column "Max jitter": Max jitter 0.000 is less than Mean jitter 1.000`},
	}
	if _, err := ReadSummary(strings.NewReader(h+good), "s.csv"); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadSummary(strings.NewReader(h+good+c.row), "s.csv")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}

// TestWriteRefusesWhatReadRefuses: a summary that its readers would refuse
// is not written.
func TestWriteRefusesWhatReadRefuses(t *testing.T) {
	inf := math.Inf(1)
	for _, r := range []SummaryRow{
		{Bytes: 16, Summary: Summary{Samples: 2, Max: inf, Min: 1, Mean: inf, Median: inf, Stdev: inf, P90: inf, P99: inf, P9999: inf}},
		{Bytes: 16, Summary: Summary{Samples: 2, Max: 1, Min: 1, Mean: math.NaN(), Median: 1, P90: 1, P99: 1, P9999: 1}},
		{Bytes: 16, Summary: Summary{Samples: 2, Max: 1, Min: -1, Mean: 0, Median: 0, P90: 1, P99: 1, P9999: 1}},
	} {
		if err := WriteSummary(&bytes.Buffer{}, []SummaryRow{r}); err == nil {
			t.Errorf("%+v written", r)
		}
	}
	one := SummaryRow{Bytes: 16, Summary: Summary{Samples: 1, Max: 5, Min: 5, Mean: 5, Median: 5, MeanJitter: math.NaN(), MaxJitter: math.NaN(), P90: 5, P99: 5, P9999: 5}}
	if err := WriteSummary(&bytes.Buffer{}, []SummaryRow{one}); err != nil {
		t.Error(err)
	}
}

func TestSetCoversEveryFloatColumn(t *testing.T) {
	for i, col := range SummaryColumns {
		var r SummaryRow
		if _, ok := r.Get(col); !ok {
			if r.Set(col, 1) {
				t.Errorf("Set(%q) accepted an integer column", col)
			}
			continue
		}
		r.Set(col, float64(i)+0.5)
		if v, _ := r.Get(col); v != float64(i)+0.5 {
			t.Errorf("column %s: set %v, got %v", col, float64(i)+0.5, v)
		}
	}
}
