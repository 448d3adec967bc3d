package requirements

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/goldenfile"

	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/meta"
)

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

// observations reads testdata/observations.csv, a deterministic set of 7
// experiments' summary values (one payload backed by only 4 of them).
func observations(t testing.TB) []Observation {
	f, err := os.Open("testdata/observations.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var obs []Observation
	for _, r := range recs[1:] {
		b, _ := strconv.Atoi(r[2])
		num := func(s string) float64 {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatal(err)
			}
			return x
		}
		obs = append(obs, Observation{r[0], r[1], b, num(r[3]), num(r[4]), num(r[5])})
	}
	return obs
}

// TestDeriveMatchesNumpy compares derive with numpy.percentile over the same
// values; testdata/numpy_p<p>.csv were computed with numpy 1.24, one
// np.percentile per column, printed with "%.3f".
func TestDeriveMatchesNumpy(t *testing.T) {
	obs := observations(t)
	for _, p := range []float64{99, 90, 50, 100, 33.3} {
		t.Run(strconv.FormatFloat(p, 'g', -1, 64), func(t *testing.T) {
			d, err := derive(obs, p)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := Write(&b, d.Rows()); err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile("testdata/numpy_p" + strconv.FormatFloat(p, 'g', -1, 64) + ".csv")
			if err != nil {
				t.Fatal(err)
			}
			if b.String() != string(want) {
				t.Errorf("derive(p=%v):\n%s\nnumpy:\n%s", p, b.String(), want)
			}
			if d.Experiments != 7 {
				t.Errorf("Experiments = %d, want 7", d.Experiments)
			}
		})
	}
}

func TestDeriveEvidence(t *testing.T) {
	d, err := derive(observations(t), 99)
	if err != nil {
		t.Fatal(err)
	}
	var ns []int
	for _, r := range d.Requirements {
		ns = append(ns, r.N)
	}
	// intraprocess_best_effort 32 B is measured by the first 4 experiments only.
	want := []int{7, 7, 7, 7, 4}
	for i := range want {
		if ns[i] != want[i] {
			t.Fatalf("backing counts %v, want %v", ns, want)
		}
	}
	// r = 1 + 6·0.99 = 6.94 → chance (7 − 6.94 + 1)/8.
	r := d.Requirements[0]
	if math.Abs(r.Rank-6.94) > 1e-12 || math.Abs(r.FailChance-1.06/8) > 1e-12 || r.FailChanceMin != 1.0/8 || r.FailChanceMax != 2.0/8 {
		t.Errorf("rank %v chance %v [%v, %v]", r.Rank, r.FailChance, r.FailChanceMin, r.FailChanceMax)
	}
	pass := 1.0
	for _, r := range d.Requirements {
		pass *= math.Pow(1-r.FailChance, 3)
	}
	if math.Abs(d.CheckFailChance-(1-pass)) > 1e-12 {
		t.Errorf("CheckFailChance %v, want %v", d.CheckFailChance, 1-pass)
	}
	if len(d.Warnings) != 2 || !strings.Contains(d.Warnings[0], "rest on 4 experiment(s)") || !strings.Contains(d.Warnings[1], "rest on 7 experiment(s)") {
		t.Errorf("warnings %q", d.Warnings)
	}
}

func TestFailChance(t *testing.T) {
	tests := []struct {
		n            int
		p            float64
		rank, chance float64
		lo, hi       float64
	}{
		// The 99th percentile of 5 runs: about one run in six.
		{5, 99, 4.96, 1.04 / 6, 1.0 / 6, 2.0 / 6},
		// The maximum of n runs is exceeded with chance 1/(n+1).
		{5, 100, 5, 1.0 / 6, 1.0 / 6, 1.0 / 6},
		{19, 100, 19, 1.0 / 20, 1.0 / 20, 1.0 / 20},
		// The median of 3 runs, exactly the 2nd: exceeded with chance 2/4.
		{3, 50, 2, 0.5, 0.5, 0.5},
		// One run: its own value is exceeded half of the time.
		{1, 99, 1, 0.5, 0.5, 0.5},
	}
	for _, tt := range tests {
		rank, chance, lo, hi := failChance(tt.n, tt.p)
		near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
		if !near(rank, tt.rank) || !near(chance, tt.chance) || !near(lo, tt.lo) || !near(hi, tt.hi) {
			t.Errorf("failChance(%d, %v) = %v %v %v %v, want %v %v %v %v", tt.n, tt.p, rank, chance, lo, hi, tt.rank, tt.chance, tt.lo, tt.hi)
		}
	}
}

func TestMinExperiments(t *testing.T) {
	for p, want := range map[float64]int{99: 100, 90: 10, 50: 2, 100: 1, 99.9: 1000, 95: 20} {
		if got := minExperiments(p); got != want {
			t.Errorf("minExperiments(%v) = %d, want %d", p, got, want)
		}
	}
}

func TestDeriveErrors(t *testing.T) {
	obs := observations(t)
	for _, p := range []float64{0, -1, 100.5, math.NaN()} {
		if _, err := derive(obs, p); err == nil {
			t.Errorf("derive(p=%v) succeeded", p)
		}
	}
	if _, err := derive(nil, 99); err == nil {
		t.Error("derive of nothing succeeded")
	}
	dup := append([]Observation{}, obs[0], obs[0])
	if _, err := derive(dup, 99); err == nil || !strings.Contains(err.Error(), "two rows") {
		t.Errorf("duplicate observation: %v", err)
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	d, err := derive(observations(t), 99)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, d.Rows()); err != nil {
		t.Fatal(err)
	}
	golden(t, "written.csv", b.Bytes())
	rows, err := read(bytes.NewReader(b.Bytes()), "written.csv")
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := Write(&again, rows); err != nil {
		t.Fatal(err)
	}
	if again.String() != b.String() {
		t.Errorf("read → write changed the file:\n%s\nvs\n%s", again.String(), b.String())
	}
}

func TestWriteFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", DefaultFileName)
	rows := []KeyedRow{LatencyRow("interprocess_reliable", 16, 1, 2.0005, 3)}
	if err := WriteFile(path, rows); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Type != "interprocess_reliable" || got[0].Key.Payload != 16 || got[0].Limits["Median"] != 1 || got[0].Limits["Max"] != 3 {
		t.Errorf("got %+v", got)
	}
}

func TestReadFastRTPSFile(t *testing.T) {
	// As pandas writes it: Bytes may come out as a float.
	in := "Experiment type,Bytes,Median,99%,Max\r\ninterprocess_reliable,16.0,29.706,85.156,504.453\r\n"
	rows, err := read(strings.NewReader(in), "r.csv")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rows[0], LatencyRow("interprocess_reliable", 16, 29.706, 85.156, 504.453)) {
		t.Errorf("got %+v", rows[0])
	}
	if v, ok := rows[0].Limits["99%"]; !ok || v != 85.156 {
		t.Errorf("Limits[99%%] = %v, %v", v, ok)
	}
}

// TestLatencyColumn: requirements derived from rtt (or one-way) experiments
// say so in a last Latency column; half-rtt ones are written without it, in
// the Fast-RTPS format, and read as half-rtt.
func TestLatencyColumn(t *testing.T) {
	rtt := []KeyedRow{LatencyRow("a", 16, 1, 2, 3), LatencyRow("a", 32, 1, 2, 3)}
	rtt[0].Latency, rtt[1].Latency = meta.LatencyRTT, meta.LatencyRTT
	var b bytes.Buffer
	if err := Write(&b, rtt); err != nil {
		t.Fatal(err)
	}
	const want = "Experiment type,Bytes,Median,99%,Max,Latency\na,16,1.000,2.000,3.000,rtt\na,32,1.000,2.000,3.000,rtt\n"
	if b.String() != want {
		t.Errorf("written\n%s\nwant\n%s", b.String(), want)
	}
	rows, err := read(&b, "r.csv")
	if err != nil || LatencyOf(rows) != meta.LatencyRTT || rows[1].Latency != meta.LatencyRTT {
		t.Fatalf("read back %+v, %v", rows, err)
	}
	b.Reset()
	half := []KeyedRow{LatencyRow("a", 16, 1, 2, 3)}
	half[0].Latency = meta.LatencyHalfRTT
	if err := Write(&b, half); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "Experiment type,Bytes,Median,99%,Max\na,16,1.000,2.000,3.000\n" {
		t.Errorf("half-rtt written as\n%s", got)
	}
	rows, err = read(&b, "r.csv")
	if err != nil || LatencyOf(rows) != meta.LatencyHalfRTT {
		t.Fatalf("read back %+v, %v", rows, err)
	}
}

func TestReadErrors(t *testing.T) {
	const h = "Experiment type,Bytes,Median,99%,Max\n"
	const hl = "Experiment type,Bytes,Median,99%,Max,Latency\n"
	tests := []struct {
		name, in string
		want     string // the whole error message
	}{
		{"empty", "", `r.csv: empty file: expected the header "Experiment type,Bytes,Median,99%,Max"`},
		{"header only", h, `r.csv: no requirements: the file holds only a header`},
		{"wrong header", "Experiment,Bytes,Median,99%,Max\n", `r.csv:1: header is "Experiment,Bytes,Median,99%,Max", expected exactly "Experiment type,Bytes,Median,99%,Max" (optionally followed by ",Latency", or by the statistical columns of formats §11)`},
		{"summary file", "Bytes,Samples,Max,Min,Mean,Median,Stdev,Mean jitter,Max jitter,90%,99%,99.99%\n", `r.csv:1: header is "Bytes,Samples,Max,Min,Mean,Median,Stdev,Mean jitter,Max jitter,90%,99%,99.99%", expected exactly "Experiment type,Bytes,Median,99%,Max" (optionally followed by ",Latency", or by the statistical columns of formats §11)`},
		{"short row", h + "a,16,1,2,3\na,32,1,2\n", `r.csv:3: 4 fields: expected 5 (Experiment type,Bytes,Median,99%,Max)`},
		{"not a number", h + "a,16,1,2x,3\n", `r.csv:2: column "99%": "2x" is not a number`},
		{"empty value", h + "a,16,,2,3\n", `r.csv:2: column "Median": empty: expected a latency in microseconds`},
		{"NaN", h + "a,16,1,2,NaN\n", `r.csv:2: column "Max": "NaN" is not a finite latency`},
		{"infinite", h + "a,16,1,inf,3\n", `r.csv:2: column "99%": "inf" is not a finite latency`},
		{"negative latency", h + "a,16,-1,2,3\n", `r.csv:2: column "Median": -1 is negative: a latency requirement is at least 0`},
		{"negative payload", h + "a,-16,1,2,3\n", `r.csv:2: column "Bytes": -16 is negative: expected a payload size in bytes`},
		{"fractional payload", h + "a,16.5,1,2,3\n", `r.csv:2: column "Bytes": "16.5" is not a whole number of bytes`},
		{"bad type", h + "Inter Process,16,1,2,3\n", `r.csv:2: column "Experiment type": sub-experiment name "Inter Process": only lower-case letters, digits and '_' are allowed`},
		{"duplicate", h + "a,16,1,2,3\nb,16,1,2,3\na,16,4,5,6\n", `r.csv:4: duplicate requirement for a, 16 bytes (first on line 2): keep one row per sub-experiment and payload`},
		{"bad quoting", h + "a,16,1,\"2,3\n", `r.csv:2: malformed CSV: extraneous or missing " in quoted-field`},
		{"unknown latency", hl + "a,16,1,2,3,rtt\nb,16,1,2,3,RTT\n", `r.csv:3: column "Latency": "RTT": expected half-rtt, rtt or one-way (formats §2)`},
		{"mixed latency", hl + "a,16,1,2,3,rtt\nb,16,1,2,3,half-rtt\n", `r.csv:3: column "Latency": "half-rtt" differs from "rtt" above: the requirements of one file measure latency one way`},
		{"latency missing on a row", hl + "a,16,1,2,3\n", `r.csv:2: 5 fields: expected 6 (Experiment type,Bytes,Median,99%,Max,Latency)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := read(strings.NewReader(tt.in), "r.csv")
			if err == nil {
				t.Fatal("no error")
			}
			if _, ok := fileerr.As(err); !ok {
				t.Errorf("%v is not a fileerr.Error", err)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n%s\nwant\n%s", err, tt.want)
			}
		})
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte("Experiment type,Bytes,Median,99%,Max\ninterprocess_reliable,16,1.000,2.000,3.000\n"))
	f.Add([]byte("Experiment type,Bytes,Median,99%,Max\na,16.0,1,2,3\nb,0,0,0,0\n"))
	f.Add([]byte("Experiment type,Bytes,Median,99%,Max\na,1,\"1\",2,3"))
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, err := read(bytes.NewReader(in), "f.csv")
		if err != nil {
			if _, ok := fileerr.As(err); !ok && !strings.HasPrefix(err.Error(), "f.csv: ") {
				t.Fatalf("error without file name: %v", err)
			}
			return
		}
		// Whatever parses must survive write → read with the same rows, up
		// to the 3 decimals written.
		var b bytes.Buffer
		if err := Write(&b, rows); err != nil {
			t.Fatal(err)
		}
		again, err := read(&b, "again.csv")
		if err != nil {
			t.Fatalf("rewritten file does not parse: %v\n%s", err, b.String())
		}
		if len(again) != len(rows) {
			t.Fatalf("%d rows, then %d", len(rows), len(again))
		}
		for i := range rows {
			if again[i].Type != rows[i].Type || again[i].Key != rows[i].Key || math.Abs(again[i].Limits["Max"]-rows[i].Limits["Max"]) > 0.0005+1e-12*rows[i].Limits["Max"] {
				t.Fatalf("row %d: %+v then %+v", i, rows[i], again[i])
			}
		}
	})
}

func BenchmarkDerive(b *testing.B) {
	obs := observations(b)
	for b.Loop() {
		if _, err := derive(obs, 99); err != nil {
			b.Fatal(err)
		}
	}
}
