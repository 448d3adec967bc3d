package requirements

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/stats/dist"
)

// scipyValues are testdata/scipy.json, computed by testdata/scipy_goldens.py
// with scipy 1.10 (stats.shapiro, stats.t) and math.comb.
type scipyValues struct {
	Shapiro []struct {
		X    []float64 `json:"x"`
		W, P float64
	} `json:"shapiro"`
	T []struct {
		DF int `json:"df"`
		P  float64
		Q  float64
	} `json:"t"`
	LogNormalLimit []struct {
		Mean, SD     float64
		N, K         int
		Level, Limit float64
	} `json:"lognormal_limit"`
	OrderChance []struct {
		N, K, R int
		P       float64
	} `json:"order_chance"`
	DeriveLogNormal struct {
		Level float64
		Rows  []struct {
			Type  string
			Bytes int
			N     int
			Cols  map[string]scipyFit
		}
	} `json:"derive_lognormal"`
	JudgeLogNormal struct {
		Level float64
		Cases []struct {
			Limit1, SD                               float64
			N                                        int
			Values                                   []float64
			Margin, Requirement, GMean, P, Low, High float64
		}
	} `json:"judge_lognormal"`
}

type scipyFit struct {
	Method       string
	Limit, SD, P float64
}

func loadScipy(t *testing.T) scipyValues {
	t.Helper()
	b, err := os.ReadFile("testdata/scipy.json")
	if err != nil {
		t.Fatal(err)
	}
	// NaN is not JSON; Python writes it bare.
	b = bytes.ReplaceAll(b, []byte("NaN"), []byte("null"))
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	var v scipyValues
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	// The derivation rows hold their columns by name beside type/bytes/n.
	var rows struct {
		Rows []map[string]json.RawMessage `json:"rows"`
	}
	if err := json.Unmarshal(raw["derive_lognormal"], &rows); err != nil {
		t.Fatal(err)
	}
	for i, r := range rows.Rows {
		v.DeriveLogNormal.Rows[i].Cols = map[string]scipyFit{}
		for _, col := range []string{"Median", "P99", "Max"} {
			var f scipyFit
			if err := json.Unmarshal(r[col], &f); err != nil {
				t.Fatal(err)
			}
			v.DeriveLogNormal.Rows[i].Cols[col] = f
		}
	}
	for i := range v.JudgeLogNormal.Cases {
		c := &v.JudgeLogNormal.Cases[i]
		if len(c.Values) == 1 {
			c.Low, c.High = math.NaN(), math.NaN()
		}
	}
	return v
}

func near(a, b, rel float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= rel*math.Max(math.Abs(b), 1e-300)
}

// TestShapiroWilkMatchesScipy: scipy computes AS R94 in single precision,
// hence the tolerance.
func TestShapiroWilkMatchesScipy(t *testing.T) {
	for _, c := range loadScipy(t).Shapiro {
		w, p, err := dist.ShapiroWilk(c.X)
		if err != nil {
			t.Fatalf("n=%d: %v", len(c.X), err)
		}
		if !near(w, c.W, 2e-6) || !(near(p, c.P, 1e-4) || math.Abs(p-c.P) < 1e-7) {
			t.Errorf("n=%d: W %v p %v, scipy W %v p %v", len(c.X), w, p, c.W, c.P)
		}
	}
}

func TestShapiroWilkErrors(t *testing.T) {
	for _, x := range [][]float64{nil, {1}, {1, 2}, {3, 3, 3, 3}} {
		if _, _, err := dist.ShapiroWilk(x); err == nil {
			t.Errorf("dist.ShapiroWilk(%v): no error", x)
		}
	}
	// A clearly non-normal sample is rejected, a normal one is not.
	r := rand.New(rand.NewPCG(1, 2))
	exp, norm := make([]float64, 40), make([]float64, 40)
	for i := range exp {
		exp[i] = r.ExpFloat64()
		norm[i] = r.NormFloat64()
	}
	if _, p, _ := dist.ShapiroWilk(exp); p > 0.01 {
		t.Errorf("exponential sample: p %v", p)
	}
	if _, p, _ := dist.ShapiroWilk(norm); p < 0.01 {
		t.Errorf("normal sample: p %v", p)
	}
}

func TestTQuantileAndLimitMatchScipy(t *testing.T) {
	v := loadScipy(t)
	for _, c := range v.T {
		if got := dist.TQuantile(c.DF, c.P); !near(got, c.Q, 1e-8) {
			t.Errorf("t(%d).ppf(%v) = %v, scipy %v", c.DF, c.P, got, c.Q)
		}
	}
	for _, c := range v.LogNormalLimit {
		if got := logNormalLimit(c.Mean, c.SD, c.N, c.K, c.Level); !near(got, c.Limit, 1e-8) {
			t.Errorf("logNormalLimit(%+v) = %v, scipy %v", c, got, c.Limit)
		}
	}
}

// TestOrderChance checks the closed form against scipy's comb and against
// counting: every way to place the k new runs among the n+k ranks is
// equally likely.
func TestOrderChance(t *testing.T) {
	for _, c := range loadScipy(t).OrderChance {
		if got := orderChance(c.N, c.K, c.R); !near(got, c.P, 1e-12) {
			t.Errorf("orderChance(%d, %d, %d) = %v, want %v", c.N, c.K, c.R, got, c.P)
		}
	}
	for n := 1; n <= 6; n++ {
		for k := 1; k <= 6; k++ {
			// count[r] = placements where at least r new runs are above
			// every old one.
			total := 0
			count := make([]int, k+1)
			for mask := 0; mask < 1<<(n+k); mask++ {
				if popcount(mask) != k {
					continue
				}
				total++
				// Ranks from the top: bit i set = the i-th largest is new.
				top := 0
				for top < n+k && mask&(1<<top) != 0 {
					top++
				}
				for r := 0; r <= top && r <= k; r++ {
					count[r]++
				}
			}
			for r := 0; r <= k; r++ {
				if got, want := orderChance(n, k, r), float64(count[r])/float64(total); !near(got, want, 1e-12) {
					t.Errorf("orderChance(%d, %d, %d) = %v, counting gives %v", n, k, r, got, want)
				}
			}
		}
	}
}

func popcount(x int) int {
	c := 0
	for ; x != 0; x &= x - 1 {
		c++
	}
	return c
}

func TestOrderRunsNeeded(t *testing.T) {
	level := 0.01 / 66
	// 1/C(16,10) = 1/8008 ≤ level < 1/C(15,9) = 1/5005.
	for n, want := range map[int]int{6: 10, 10: 6, 12: 6, 20: 4, 10000: 1} {
		if got := orderRunsNeeded(n, level); got != want {
			t.Errorf("orderRunsNeeded(%d) = %d, want %d", n, got, want)
		}
	}
}

// TestDeriveStatisticalMatchesScipy derives log-normal requirements from
// testdata/observations.csv: at its check level (0.0667 %) 7 or 4 runs
// cannot back a log-normal bound (1/(n+1) is 12.5 % or 20 %), so every
// column is refused with the reason and set distribution-free; the log
// standard deviations, Shapiro–Wilk p-values and the log-normal bounds
// refused (logNormalLimit from the runs' log mean and sd) match scipy's.
func TestDeriveStatisticalMatchesScipy(t *testing.T) {
	v := loadScipy(t)
	obs := observations(t)
	d, err := DeriveStatistical(obs, StatConfig{FalseFail: 0.01, Method: gate.MethodLogNormal, NormalityLevel: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if !near(d.CheckLevel, v.DeriveLogNormal.Level, 1e-15) || d.Mode != gate.MethodLogNormal {
		t.Errorf("mode %s level %v, want %v", d.Mode, d.CheckLevel, v.DeriveLogNormal.Level)
	}
	if len(d.Requirements) != len(v.DeriveLogNormal.Rows) {
		t.Fatalf("%d rows, scipy %d", len(d.Requirements), len(v.DeriveLogNormal.Rows))
	}
	for i, want := range v.DeriveLogNormal.Rows {
		r := d.Requirements[i]
		if r.Type != want.Type || r.Key.Payload != want.Bytes || r.N != want.N || r.Stat.Runs != want.N {
			t.Fatalf("row %d is %s %d (%d runs), scipy %s %d (%d)", i, r.Type, r.Key.Payload, r.N, want.Type, want.Bytes, want.N)
		}
		for ci, col := range []string{"Median", "P99", "Max"} {
			w, f := want.Cols[col], r.Stat.Fits[ci]
			var vals, logs []float64
			for _, o := range obs {
				if o.Type == r.Type && o.Bytes == r.Key.Payload {
					x := observationColumns[ci](o)
					vals, logs = append(vals, x), append(logs, math.Log(x))
				}
			}
			if f.Method != gate.MethodOrder || r.Limits[metricNames[ci]] != slices.Max(vals) || !near(f.LogSD, w.SD, 1e-12) || !near(f.NormalityP, w.P, 2e-4) {
				t.Errorf("%s %d %s: %s limit %v sd %v p %v; want order at the largest run %v, scipy sd %v p %v", r.Type, r.Key.Payload, col,
					f.Method, r.Limits[metricNames[ci]], f.LogSD, f.NormalityP, slices.Max(vals), w.SD, w.P)
			}
			if mean, sd := meanSD(logs); w.Method == gate.MethodLogNormal && !near(logNormalLimit(mean, sd, r.N, 1, d.CheckLevel), w.Limit, 1e-9) {
				t.Errorf("%s %d %s: log-normal bound %v, scipy %v", r.Type, r.Key.Payload, col, logNormalLimit(mean, sd, r.N, 1, d.CheckLevel), w.Limit)
			}
			if r.Chances[ci] != 0 { // 1/(n+1) > the level: a single run cannot fail it
				t.Errorf("%s %d %s: chance %v, want 0", r.Type, r.Key.Payload, col, r.Chances[ci])
			}
		}
	}
	// The refusals are said, with the reason.
	if w := strings.Join(d.Warnings, "\n"); !strings.Contains(w, "12 check(s) fall back to the distribution-free bound (the check level is below 1/(n+1) = 12.5% for n = 7 runs") ||
		!strings.Contains(w, "3 check(s) fall back to the distribution-free bound (the check level is below 1/(n+1) = 20% for n = 4 runs") {
		t.Errorf("warnings %q", d.Warnings)
	}
}

func TestDeriveStatisticalOrder(t *testing.T) {
	obs := observations(t)
	d, err := DeriveStatistical(obs, StatConfig{FalseFail: 0.05, Method: gate.MethodOrder, NormalityLevel: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	pd, _ := derive(obs, 100)
	for i, r := range d.Requirements {
		// The distribution-free limit is the largest run: the 100th percentile.
		if !maps.Equal(r.Limits, pd.Requirements[i].Limits) {
			t.Errorf("%s %d: %v, maxima %v", r.Type, r.Key.Payload, r.Limits, pd.Requirements[i].Limits)
		}
		for ci, f := range r.Stat.Fits {
			if f.Method != gate.MethodOrder || r.NeedRuns[ci] != orderRunsNeeded(r.N, 0.05/15) {
				t.Errorf("%s %d: fit %+v needs %d", r.Type, r.Key.Payload, f, r.NeedRuns[ci])
			}
		}
	}
	if d.Requirements[4].N != 4 || d.Requirements[4].NeedRuns[0] != 7 { // 1/C(11,7) = 1/330 ≤ 1/300 < 1/C(10,6)
		t.Errorf("4-run row needs %d runs", d.Requirements[4].NeedRuns[0])
	}
}

func TestDeriveStatisticalErrors(t *testing.T) {
	obs := observations(t)
	for _, cfg := range []StatConfig{
		{FalseFail: 0, Method: gate.MethodOrder, NormalityLevel: 0.05},
		{FalseFail: 1, Method: gate.MethodOrder, NormalityLevel: 0.05},
		{FalseFail: 0.01, Method: "normal", NormalityLevel: 0.05},
		{FalseFail: 0.01, Method: gate.MethodLogNormal, NormalityLevel: 0},
	} {
		if _, err := DeriveStatistical(obs, cfg); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
	one := []Observation{{Experiment: "a", Type: "intraprocess_reliable", Bytes: 16, Median: 1, P99: 2, Max: 3}}
	if _, err := DeriveStatistical(one, StatConfig{FalseFail: 0.01, Method: gate.MethodOrder, NormalityLevel: 0.05}); err == nil ||
		!strings.Contains(err.Error(), "need at least 2 runs") {
		t.Errorf("one run: %v", err)
	}
}

// TestStatisticalFileRoundTrip: a statistical file says its mode and keeps
// the model through Write and read.
func TestStatisticalFileRoundTrip(t *testing.T) {
	d, err := DeriveStatistical(observations(t), StatConfig{FalseFail: 0.01, Method: gate.MethodLogNormal, NormalityLevel: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, d.Rows()); err != nil {
		t.Fatal(err)
	}
	golden(t, "statistical_lognormal.csv", b.Bytes())
	rows, err := read(bytes.NewReader(b.Bytes()), "s.csv")
	if err != nil {
		t.Fatal(err)
	}
	if !Statistical(rows) || LatencyOf(rows) != "half-rtt" {
		t.Fatalf("read back as percentile rows: %+v", rows[0])
	}
	for i, r := range rows {
		w := d.Requirements[i]
		if r.Stat.Method != gate.MethodLogNormal || r.Stat.Runs != w.N || !near(r.Stat.CheckLevel, d.CheckLevel, 1e-5) || r.Stat.FalseFail != 0.01 {
			t.Errorf("row %d model %+v", i, r.Stat)
		}
		for ci := range r.Stat.Fits {
			if r.Stat.Fits[ci].Method != w.Stat.Fits[ci].Method || !near(r.Stat.Fits[ci].LogSD, w.Stat.Fits[ci].LogSD, 1e-5) {
				t.Errorf("row %d fit %d: %+v, wrote %+v", i, ci, r.Stat.Fits[ci], w.Stat.Fits[ci])
			}
		}
	}
}

func TestStatisticalReadErrors(t *testing.T) {
	header := "Experiment type,Bytes,Median,99%,Max,Latency," + strings.Join(StatColumns, ",") + "\n"
	good := "a_b,16,1.000,2.000,3.000,half-rtt,order,6,0.01,0.001,order,0.1,0.5,order,0.2,0.5,lognormal,0.3,0.5\n"
	if _, err := read(strings.NewReader(header+good), "s.csv"); err != nil {
		t.Fatalf("good file: %v", err)
	}
	for _, tt := range []struct{ name, row, want string }{
		{"mode", strings.Replace(good, ",order,6,", ",normal,6,", 1), `s.csv:2: column "Mode": "normal": expected order or lognormal`},
		{"runs", strings.Replace(good, ",order,6,", ",order,1,", 1), `s.csv:2: column "Runs": "1": expected a whole number of runs ≥ 2`},
		{"false fail", strings.Replace(good, ",0.01,", ",2,", 1), `s.csv:2: column "False fail": "2": expected a probability in (0, 1)`},
		{"method", strings.Replace(good, ",0.001,order,", ",0.001,tukey,", 1), `s.csv:2: column "Median method": "tukey": expected order, lognormal or order:J (the J-th largest run, J ≥ 2)`},
		{"log sd", strings.Replace(good, ",lognormal,0.3,", ",lognormal,,", 1), `s.csv:2: column "Max log sd": empty: a log-normal limit needs the log standard deviation`},
		{"p", strings.Replace(good, ",0.2,0.5,", ",0.2,1.5,", 1), `s.csv:2: column "99% normality p": "1.5" is not a valid value`},
	} {
		_, err := read(strings.NewReader(header+tt.row), "s.csv")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
	mixed := header + good + strings.Replace(good, "a_b,16,", "a_b,32,", 1)
	mixed = mixed[:len(mixed)-len(good)] + strings.Replace(strings.Replace(good, "a_b,16,", "a_b,32,", 1), ",0.01,", ",0.05,", 1)
	if _, err := read(strings.NewReader(mixed), "s.csv"); err == nil || !strings.Contains(err.Error(), "one file holds one derivation") {
		t.Errorf("two derivations in one file: %v", err)
	}
}

// TestDefaultRankFollowsRuns: without --order-rank a distribution-free
// limit is the largest of up to 18 runs and the orderRankFor(n)-th largest
// beyond (the 90th percentile of the runs), written as order:J so that
// check judges it with that rank; --order-rank 1 keeps the largest.
func TestDefaultRankFollowsRuns(t *testing.T) {
	for _, tt := range []struct{ n, rank int }{{2, 1}, {18, 1}, {19, 2}, {28, 2}, {29, 3}, {40, 4}, {100, 10}} {
		if got := orderRankFor(tt.n); got != tt.rank {
			t.Errorf("orderRankFor(%d) = %d, want %d", tt.n, got, tt.rank)
		}
	}
	var obs []Observation
	for i := range 40 {
		v := float64(100 + i)
		obs = append(obs, Observation{Experiment: strconv.Itoa(i), Type: "a_b", Bytes: 16, Median: v, P99: 2 * v, Max: 3 * v})
	}
	for _, tt := range []struct {
		rank   int
		limit  float64
		method string
	}{{0, 136, "order:4"}, {1, 139, "order"}, {3, 137, "order:3"}} {
		d, err := DeriveStatistical(obs, StatConfig{FalseFail: 0.01, Method: gate.MethodOrder, NormalityLevel: 0.05, OrderRank: tt.rank})
		if err != nil {
			t.Fatal(err)
		}
		r := d.Requirements[0]
		if r.Limits["Median"] != tt.limit || r.Stat.Fits[0].MethodText() != tt.method || r.Limits["Max"] != 3*tt.limit {
			t.Errorf("--order-rank %d: limit %v (%s), want %v (%s)", tt.rank, r.Limits["Median"], r.Stat.Fits[0].MethodText(), tt.limit, tt.method)
		}
		// The text output names the rank unless it is the largest run.
		if got := rankText(d); (tt.rank == 1) != (got == "") || (tt.rank == 0 && !strings.HasPrefix(got, "the 4th largest of 40 runs (")) {
			t.Errorf("--order-rank %d: rank text %q", tt.rank, got)
		}
	}
}
