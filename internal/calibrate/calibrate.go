package calibrate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/mqgate/mqgate/internal/gate"
)

// Key names one check of the gate: what gate.Series names, without data.
type Key struct {
	SubExperiment string
	Payload       int
	Metric        gate.Metric
	Threshold     float64
}

// Pool is a set of unchanged runs: Values[k][r] is check Keys[k]'s value in
// run r. Runs are in chronological order (the order SplitOrdered uses).
type Pool struct {
	Keys   []Key
	Values [][]float64
	// RunNames name the runs, for reports (may be empty).
	RunNames []string
}

// Runs returns the number of runs in p.
func (p Pool) Runs() int {
	if len(p.Values) == 0 {
		return len(p.RunNames)
	}
	return len(p.Values[0])
}

// Split modes.
const (
	// SplitRandom draws the reference and candidate halves at random
	// (seeded) from the pool, without overlap: the rate measured is the
	// gate's rate when runs are exchangeable.
	SplitRandom = "random"
	// SplitOrdered takes consecutive blocks in run order, reference before
	// candidate, at every offset: as in CI, where the candidate runs later;
	// slow drift of the machine shows up as false fails here.
	SplitOrdered = "ordered"
)

// Options say how to calibrate.
type Options struct {
	// PerSide is the runs per side N; 0 means half the pool.
	PerSide int
	// Splits is how many random splits to judge (SplitRandom); default 200.
	Splits int
	// Split is SplitRandom (default) or SplitOrdered.
	Split string
	// Seed seeds the random splits.
	Seed uint64
	// FalseFail is the gate's family-wise level (gate.DefaultFalseFail if 0).
	FalseFail float64
	// Factors are the regressions injected for the power curve: every
	// candidate value is made worse by the factor (latency × f, throughput
	// ÷ f). Default DefaultFactors.
	Factors []float64
	// Power is the detection rate sought (default 0.95).
	Power float64
}

// DefaultFactors are the regressions of the power curve: +2 % to +100 %.
var DefaultFactors = []float64{1.02, 1.05, 1.1, 1.15, 1.2, 1.3, 1.5, 1.75, 2}

// Rate is a count of successes out of trials with its Clopper–Pearson 95 %
// interval.
type Rate struct {
	Count  int     `json:"count"`
	Trials int     `json:"trials"`
	Rate   float64 `json:"rate"`
	Low    float64 `json:"low"`
	High   float64 `json:"high"`
}

// Point is one point of the power curve.
type Point struct {
	Factor float64 `json:"factor"`
	// Gate is the rate at which the whole gate fails (detects the
	// regression); Check the rate at which a single check fails.
	Gate  Rate `json:"gate"`
	Check Rate `json:"check"`
}

// Result is a calibration.
type Result struct {
	Runs      int     `json:"runs"`
	PerSide   int     `json:"per_side"`
	Checks    int     `json:"checks"`
	Split     string  `json:"split"`
	Seed      uint64  `json:"seed"`
	FalseFail float64 `json:"false_fail_level"`
	// Measured on the unchanged splits: the whole gate failing (false
	// fail), inconclusive, passed.
	FalseFails   Rate `json:"false_fails"`
	Inconclusive Rate `json:"inconclusive"`
	Passed       Rate `json:"passed"`
	// Curve is the power curve over the factors; Detect the smallest factor
	// whose gate detection rate reaches Power (NaN when none does), and
	// DetectCheck the same for a single check.
	Power       float64 `json:"power"`
	Curve       []Point `json:"curve"`
	Detect      float64 `json:"detect"`
	DetectCheck float64 `json:"detect_check"`
}

// ClopperPearson returns the exact (Clopper–Pearson) two-sided interval at
// confidence 1 − alpha for a binomial proportion with k successes in n
// trials.
func ClopperPearson(k, n int, alpha float64) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	if k > 0 {
		lo = distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(alpha / 2)
	}
	hi = 1
	if k < n {
		hi = distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - alpha/2)
	}
	return lo, hi
}

func rate(k, n int) Rate {
	lo, hi := ClopperPearson(k, n, 0.05)
	r := Rate{Count: k, Trials: n, Low: lo, High: hi, Rate: math.NaN()}
	if n > 0 {
		r.Rate = float64(k) / float64(n)
	}
	return r
}

// split is one reference/candidate division of the runs.
type split struct{ ref, cand []int }

func (o *Options) defaults(runs int) error {
	if o.PerSide == 0 {
		o.PerSide = runs / 2
	}
	if o.PerSide < 2 {
		return fmt.Errorf("calibration needs at least 2 runs per side, so at least 4 unchanged runs; got %d", runs)
	}
	if 2*o.PerSide > runs {
		return fmt.Errorf("%d runs per side need at least %d unchanged runs; the pool has %d", o.PerSide, 2*o.PerSide, runs)
	}
	if o.Splits == 0 {
		o.Splits = 200
	}
	if o.Split == "" {
		o.Split = SplitRandom
	}
	if o.Split != SplitRandom && o.Split != SplitOrdered {
		return fmt.Errorf("unknown split %q: expected %s or %s", o.Split, SplitRandom, SplitOrdered)
	}
	if o.FalseFail == 0 {
		o.FalseFail = gate.DefaultFalseFail
	}
	if o.Factors == nil {
		o.Factors = DefaultFactors
	}
	for _, f := range o.Factors {
		if !(f > 1) || math.IsInf(f, 0) {
			return fmt.Errorf("regression factor %v: expected a number above 1 (1.1 = 10 %% worse)", f)
		}
	}
	if o.Power == 0 {
		o.Power = 0.95
	}
	return nil
}

func (o Options) splits(runs int) []split {
	var out []split
	if o.Split == SplitOrdered {
		for i := 0; i+2*o.PerSide <= runs; i++ {
			out = append(out, split{seq(i, o.PerSide), seq(i+o.PerSide, o.PerSide)})
		}
		return out
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x6d71676174650a))
	for i := 0; i < o.Splits; i++ {
		perm := rng.Perm(runs)
		out = append(out, split{perm[:o.PerSide], perm[o.PerSide : 2*o.PerSide]})
	}
	return out
}

func seq(from, n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = from + i
	}
	return s
}

// Run calibrates the gate on pool: it judges every split of the unchanged
// runs as gate.Judge would a real comparison, counting how often the whole
// gate fails (the false-fail rate), and again with every candidate value
// made worse by each factor (the power curve).
func Run(ctx context.Context, pool Pool, opt Options) (*Result, error) {
	runs := pool.Runs()
	if len(pool.Keys) == 0 {
		return nil, errors.New("calibration needs at least one check")
	}
	for k, v := range pool.Values {
		if len(v) != runs {
			return nil, fmt.Errorf("check %d has %d values for %d runs", k, len(v), runs)
		}
	}
	if err := opt.defaults(runs); err != nil {
		return nil, err
	}
	splits := opt.splits(runs)
	factors := append([]float64{1}, opt.Factors...)
	// outcome[f][s]: gate status and number of failed checks.
	type outcome struct {
		status gate.Status
		failed int
	}
	out := make([][]outcome, len(factors))
	for f := range out {
		out[f] = make([]outcome, len(splits))
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				f, s := j/len(splits), j%len(splits)
				checks := gate.Judge(pool.series(splits[s], factors[f]), opt.FalseFail, "reference")
				v := gate.Verdict{}
				v.Add(checks...)
				v.Finish()
				out[f][s] = outcome{v.Status, v.Failed}
			}
		}()
	}
feed:
	for j := 0; j < len(factors)*len(splits); j++ {
		select {
		case jobs <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	res := &Result{Runs: runs, PerSide: opt.PerSide, Checks: len(pool.Keys), Split: opt.Split, Seed: opt.Seed,
		FalseFail: opt.FalseFail, Power: opt.Power, Detect: math.NaN(), DetectCheck: math.NaN()}
	if opt.Split == SplitOrdered {
		res.Seed = 0
	}
	count := func(f int) (failed, inconclusive, passed, checksFailed int) {
		for _, o := range out[f] {
			switch o.status {
			case gate.Failed:
				failed++
			case gate.Inconclusive:
				inconclusive++
			case gate.Passed:
				passed++
			}
			checksFailed += o.failed
		}
		return
	}
	n := len(splits)
	failed, inconclusive, passed, _ := count(0)
	res.FalseFails, res.Inconclusive, res.Passed = rate(failed, n), rate(inconclusive, n), rate(passed, n)
	for f := 1; f < len(factors); f++ {
		failed, _, _, checksFailed := count(f)
		p := Point{Factor: factors[f], Gate: rate(failed, n), Check: rate(checksFailed, n*len(pool.Keys))}
		res.Curve = append(res.Curve, p)
		if math.IsNaN(res.Detect) && p.Gate.Rate >= opt.Power {
			res.Detect = p.Factor
		}
		if math.IsNaN(res.DetectCheck) && p.Check.Rate >= opt.Power {
			res.DetectCheck = p.Factor
		}
	}
	return res, nil
}

// series is the gate's input for one split, the candidate made worse by
// factor.
func (p Pool) series(s split, factor float64) []gate.Series {
	ss := make([]gate.Series, len(p.Keys))
	for k, key := range p.Keys {
		worse := factor
		if key.Metric.Better == gate.HigherIsBetter {
			worse = 1 / factor
		}
		se := gate.Series{SubExperiment: key.SubExperiment, Payload: key.Payload, Metric: key.Metric, Threshold: key.Threshold,
			Reference: make([]float64, len(s.ref)), Candidate: make([]float64, len(s.cand))}
		for i, r := range s.ref {
			se.Reference[i] = p.Values[k][r]
		}
		for i, r := range s.cand {
			se.Candidate[i] = p.Values[k][r] * worse
		}
		ss[k] = se
	}
	return ss
}
