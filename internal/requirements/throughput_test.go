package requirements

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/result"
)

var tputValues = []float64{100, 90, 110, 95, 105, 98, 102, 97}

func tputObs(vals []float64) []ThroughputObservation {
	var obs []ThroughputObservation
	for i, v := range vals {
		obs = append(obs, ThroughputObservation{Experiment: string(rune('a' + i)), Type: "t", Key: result.Key{Payload: 16, Mode: result.ModeWindow}, Median: v})
	}
	return obs
}

// TestDeriveThroughput: lower limits, numbers checked against numpy and
// scipy: the 1st percentile for --percentile 99; the smallest run (order);
// the lower log-normal prediction bound exp(ȳ − t·s·√(1+1/n)).
func TestDeriveThroughput(t *testing.T) {
	reqs, err := deriveThroughput(tputObs(tputValues), 99)
	if err != nil || len(reqs) != 1 || math.Abs(reqs[0].Limits["Messages/s"]-90.35) > 1e-9 {
		t.Fatalf("percentile: %+v, %v (numpy: 90.35)", reqs, err)
	}
	order, _, err := DeriveThroughputStatistical(tputObs(tputValues), StatConfig{FalseFail: 0.01, Method: gate.MethodOrder, NormalityLevel: 0.05}, 0.01/4)
	if err != nil || order[0].Limits["Messages/s"] != 90 || order[0].Stat.Fits[0].Method != gate.MethodOrder {
		t.Fatalf("order: %+v, %v", order, err)
	}
	// 8 runs cannot back a log-normal bound at 0.25 % (1/(n+1) = 11 %): the
	// limit is the smallest run; the bound refused is scipy's.
	ln, _, err := DeriveThroughputStatistical(tputObs(tputValues), StatConfig{FalseFail: 0.01, Method: gate.MethodLogNormal, NormalityLevel: 0.05}, 0.01/4)
	inv := make([]float64, len(tputValues))
	for i, v := range tputValues {
		inv[i] = -math.Log(v)
	}
	mean, sd := meanSD(inv)
	if err != nil || ln[0].Limits["Messages/s"] != 90 || ln[0].Stat.Fits[0].Method != gate.MethodOrder ||
		math.Abs(ln[0].Stat.Fits[0].NormalityP-0.9997076988220215) > 1e-4 || math.Abs(1/logNormalLimit(mean, sd, 8, 1, 0.01/4)-76.39001455837693) > 1e-6 {
		t.Fatalf("lognormal: %+v %+v, %v (scipy: 76.39001455837693, p 0.99971)", ln[0], ln[0].Stat.Fits[0], err)
	}
	if _, _, err := DeriveThroughputStatistical(tputObs(tputValues[:1]), StatConfig{FalseFail: 0.01, Method: gate.MethodOrder, NormalityLevel: 0.05}, 0.01); err == nil {
		t.Error("one run derived a statistical requirement")
	}
	if got := CheckLevelFor(0.01, 2, 4); got != 0.01/10 {
		t.Errorf("CheckLevelFor = %g", got)
	}
}

// TestJudgeThroughput: below the limit fails, above passes, in every mode;
// the numbers come back in msg/s.
func TestJudgeThroughput(t *testing.T) {
	cfgL := StatConfig{FalseFail: 0.01, Method: gate.MethodLogNormal, NormalityLevel: 0.05}
	ln, _, _ := DeriveThroughputStatistical(tputObs(tputValues), cfgL, 0.2) // ≥ 1/(n+1): log-normal
	order, _, _ := DeriveThroughputStatistical(tputObs(tputValues), StatConfig{FalseFail: 0.01, Method: gate.MethodOrder, NormalityLevel: 0.05}, 0.01)
	pct, _ := deriveThroughput(tputObs(tputValues), 99)
	for _, tt := range []struct {
		name   string
		row    KeyedRow
		values []float64
		margin float64
		want   string
	}{
		{"lognormal one run above", ln[0].KeyedRow, []float64{99}, 0, "passed"},
		{"lognormal one run far below", ln[0].KeyedRow, []float64{50}, 0, "failed"},
		{"lognormal one run below, within margin", ln[0].KeyedRow, []float64{ln[0].Limits["Messages/s"] * 0.95}, 0.1, "passed"},
		{"lognormal 5 runs unchanged", ln[0].KeyedRow, []float64{99, 101, 97, 103, 100}, 0, "passed"},
		{"lognormal 5 runs 15% lower", ln[0].KeyedRow, []float64{85, 86, 84, 87, 85}, 0, "failed"},
		{"order one run below: cannot fail", order[0].KeyedRow, []float64{80}, 0, "inconclusive"},
		{"order 5 runs all below", order[0].KeyedRow, []float64{80, 81, 79, 82, 80}, 0, "failed"},
		{"order 5 runs, 1 below: no evidence", order[0].KeyedRow, []float64{80, 100, 101, 99, 100}, 0, "inconclusive"},
		{"order 7 runs, none below", order[0].KeyedRow, []float64{95, 100, 101, 99, 100, 98, 97}, 0, "passed"},
		{"percentile one run below", pct[0].KeyedRow, []float64{90}, 0, "failed"},
		{"percentile one run above", pct[0].KeyedRow, []float64{91}, 0, "passed"},
	} {
		j := Judge(tt.row.Limit(result.MessageRate), tt.values, tt.margin)
		if string(j.Status) != tt.want {
			t.Errorf("%s: %s (%s), want %s", tt.name, j.Status, j.Why, tt.want)
		}
		if j.Requirement != tt.row.Limits["Messages/s"] && tt.row.Stat == nil {
			t.Errorf("%s: requirement %g, want %g", tt.name, j.Requirement, tt.row.Limits["Messages/s"])
		}
		if strings.Contains(j.Why, "exceed") {
			t.Errorf("%s: %q speaks of exceeding a lower limit", tt.name, j.Why)
		}
	}
}

// TestThroughputFalseFail: statistical lower limits from 20 unchanged runs
// (seeded log-normal noise) fail new unchanged runs at about the check
// level, and a 20 % drop almost always.
func TestThroughputFalseFail(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	draw := func(f float64) float64 { return 1000 * f * math.Exp(0.05*rng.NormFloat64()) }
	level := 0.05
	trials, fails, drops := 2000, 0, 0
	cfg := StatConfig{FalseFail: level, Method: gate.MethodLogNormal, NormalityLevel: 1e-9}
	for range trials {
		var ref []float64
		for range 20 {
			ref = append(ref, draw(1))
		}
		reqs, _, err := DeriveThroughputStatistical(tputObs(ref), cfg, level)
		if err != nil {
			t.Fatal(err)
		}
		if Judge(reqs[0].KeyedRow.Limit(result.MessageRate), []float64{draw(1)}, 0).Status == "failed" {
			fails++
		}
		if Judge(reqs[0].KeyedRow.Limit(result.MessageRate), []float64{draw(0.8), draw(0.8), draw(0.8)}, 0).Status == "failed" {
			drops++
		}
	}
	// Exactly level in expectation; 2000 trials give ±1 percentage point.
	if rate := float64(fails) / float64(trials); rate < 0.03 || rate > 0.07 {
		t.Errorf("false-fail rate %.3f, want ≈ %.2f", rate, level)
	}
	if rate := float64(drops) / float64(trials); rate < 0.95 {
		t.Errorf("a 20%% drop failed only %.3f of the time", rate)
	}
}

func TestThroughputCSV(t *testing.T) {
	ln, _, _ := DeriveThroughputStatistical(tputObs(tputValues), StatConfig{FalseFail: 0.01, Method: gate.MethodLogNormal, NormalityLevel: 0.05}, 0.0025)
	pct, _ := deriveThroughput(tputObs(tputValues), 99)
	rate := KeyedRow{Type: "t", Key: result.Key{Payload: 1024, Mode: result.ModeRate, Offered: 5000}, Limits: map[string]float64{"Messages/s": 4900.5}}
	for _, rows := range [][]KeyedRow{{pct[0].KeyedRow, rate}, {ln[0].KeyedRow}} {
		var b bytes.Buffer
		if err := WriteThroughput(&b, rows); err != nil {
			t.Fatal(err)
		}
		back, err := readThroughput(bytes.NewReader(b.Bytes()), "x.csv")
		if err != nil || len(back) != len(rows) {
			t.Fatalf("%s: %v", b.String(), err)
		}
		for i := range rows {
			if back[i].Key != rows[i].Key || math.Abs(back[i].Limits["Messages/s"]-rows[i].Limits["Messages/s"]) > 0.0005 || (back[i].Stat == nil) != (rows[i].Stat == nil) {
				t.Errorf("row %d: %+v, want %+v", i, back[i], rows[i])
			}
		}
		t.Log(b.String())
	}
	header := strings.Join(ThroughputColumns, ",") + "\n"
	for _, tt := range []struct{ text, want string }{
		{"", "x.csv: empty file"},
		{"Experiment type,Bytes,Median\n", "x.csv:1: header"},
		{header, "x.csv:2: no requirements"},
		{header + "t,16,window,0\n", "x.csv:2: 4 columns, expected 5"},
		{header + "t,16,burst,0,100.000\n", `x.csv:2: column "Load": "burst": expected window or rate`},
		{header + "t,16,rate,-1,100.000\n", `x.csv:2: column "Offered": "-1" is not an offered rate`},
		{header + "t,16,rate,10,fast\n", `x.csv:2: column "Median [msg/s]": "fast" is not a throughput > 0`},
		{header + "t,16,rate,10,0\n", `x.csv:2: column "Median [msg/s]": "0" is not a throughput > 0`},
		{header + "t,16,rate,10,1\nt,16,rate,10,2\n", "x.csv:3: t 16 B rate 10 msg/s repeats an earlier row"},
		{header + "T,16,rate,10,1\n", `x.csv:2: column "Experiment type"`},
	} {
		_, err := readThroughput(strings.NewReader(tt.text), "x.csv")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.text, err, tt.want)
		}
	}
}

// TestThroughputOrderRankOfTheRuns: --order-rank J of n throughput runs
// needs J < n, as the latency rows do: with J > n the requirement written
// said order:J of n runs, its limit the best run (a file check refuses);
// with J = n the limit is the best run, which no practical number of
// candidate runs fails. Both are refused now, latency rows at J = n too.
func TestThroughputOrderRankOfTheRuns(t *testing.T) {
	n := len(tputValues)
	for _, tt := range []struct {
		rank int
		want string
	}{{n + 3, "at the 11-th largest run need at least 11 runs per throughput row"}, {n, "--order-rank 8 of 8 runs: the 8-th worst run of 8 is the best one"}} {
		cfg := StatConfig{FalseFail: 0.01, Method: gate.MethodOrder, NormalityLevel: 0.05, OrderRank: tt.rank}
		if reqs, _, err := DeriveThroughputStatistical(tputObs(tputValues), cfg, 0.01/4); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("rank %d of %d runs: %+v, %v; want %q", tt.rank, n, reqs, err, tt.want)
		}
	}
	cfg := StatConfig{FalseFail: 0.01, Method: gate.MethodOrder, NormalityLevel: 0.05, OrderRank: n - 1}
	if reqs, _, err := DeriveThroughputStatistical(tputObs(tputValues), cfg, 0.01/4); err != nil || math.Abs(reqs[0].Limits["Messages/s"]-105) > 1e-9 {
		t.Errorf("rank %d of %d runs: %+v, %v; want the 2nd best run, 105", n-1, n, reqs, err)
	}
	var obs []Observation
	for i, v := range tputValues {
		obs = append(obs, Observation{Experiment: string(rune('a' + i)), Type: "t", Bytes: 16, Median: v, P99: 2 * v, Max: 3 * v})
	}
	if _, err := DeriveStatistical(obs, StatConfig{FalseFail: 0.01, Method: gate.MethodOrder, NormalityLevel: 0.05, OrderRank: n}); err == nil ||
		!strings.Contains(err.Error(), "--order-rank 8 of 8 runs") {
		t.Errorf("latency, rank %d of %d runs: %v", n, n, err)
	}
}
