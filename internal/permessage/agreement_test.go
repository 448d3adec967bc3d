package permessage

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/result"
)

// spreadRun is a run of n messages whose gaps are log-normal with spread
// sigma around gap ns (M = 1): the median of the window rates is
// exp(sigma²/2) times the overall rate, while the windows spread so widely
// that the robust deviation covers the difference.
func spreadRun(n int, gap, sigma float64, seed uint64) *Record {
	rng := rand.New(rand.NewPCG(seed, 1))
	pm := &Record{Payload: 64, M: 1, O: make([]int64, n), I: make([]int64, n), CPUEvery: n}
	t := 1e6
	for i := range n {
		t += gap * math.Exp(sigma*rng.NormFloat64())
		pm.I[i] = int64(t)
		pm.O[i] = pm.I[i] - 1000
	}
	pm.Sender, pm.Receiver, pm.Broker = newCPUSeries(1, 1), newCPUSeries(1, 1), newCPUSeries(1, 1)
	return pm
}

// deliveredRate is what the link carried, from the raw I_n: delivered
// messages less one over the span from the first delivery to the last.
func deliveredRate(pm *Record) float64 {
	first, last, got := int64(math.MaxInt64), int64(math.MinInt64), 0
	for _, v := range pm.I {
		if v != Never {
			first, last, got = min(first, v), max(last, v), got+1
		}
	}
	return float64(got-1) * 1e9 / float64(last-first)
}

// TestAgreementIsRelative: a median 1.2× the overall rate is not
// agreement, however widely the windows spread (it was "agrees" when the
// robust deviation covered the difference); within ±10 % it is. Where they
// disagree, throughput_<type>.csv, what check and requirements gate,
// carries the rate the link carried, computed here from the raw I_n; where
// they agree, the windows' median.
func TestAgreementIsRelative(t *testing.T) {
	wide, steady := spreadRun(20000, 1e5, 0.6, 3), spreadRun(20000, 1e5, 0.05, 4)
	rt := Aggregates(wide)[qRT]
	if ratio := rt.Median / deliveredRate(wide); ratio < 1.15 || math.Abs(rt.Median-rt.Overall) > rt.RobustDev {
		t.Fatalf("the run does not show the case: median %.3f× overall, |median − overall| %g, robust deviation %g", ratio, math.Abs(rt.Median-rt.Overall), rt.RobustDev)
	}
	if rt.Agrees() || !strings.HasPrefix(rt.Note, "disagrees with overall") {
		t.Errorf("median %.2f× overall: %q", rt.Median/rt.Overall, rt.Note)
	}
	if st := Aggregates(steady)[qRT]; !st.Agrees() || !strings.HasPrefix(st.Note, "agrees with overall") {
		t.Errorf("steady run, median %.3f× overall: %q", st.Median/st.Overall, st.Note)
	}
	dir := t.TempDir()
	r := &Runner{Dir: dir, Meta: &meta.Meta{}, NoPlots: true}
	wide.Payload, steady.Payload = 64, 128
	if err := r.write("x", []*Record{wide, steady}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, experiment.ThroughputFileName("x")))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := result.ReadThroughput(f, f.Name())
	if err != nil || len(rows) != 2 {
		t.Fatalf("%v, %d rows", err, len(rows))
	}
	if want := deliveredRate(wide); math.Abs(rows[0].Median-want) > 0.001 {
		t.Errorf("bursts: throughput file holds %.3f msg/s, the link carried %.3f", rows[0].Median, want)
	}
	if want := Aggregates(steady)[qRT].Median; math.Abs(rows[1].Median-want) > 0.001 || rows[1].Samples != len(steady.I)-1 {
		t.Errorf("steady: throughput file holds %.3f msg/s over %d samples, the windows' median is %.3f", rows[1].Median, rows[1].Samples, want)
	}
}
