package compare

import (
	"fmt"
	"testing"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats/paired"
)

// TestPairedCheckStatusIsItsZone: each paired check's status is the zone
// its own sign tests gave (paired.CheckResult.Zone). A check whose every
// pair is 21/20 against the 5 % margins lies at the fail margin up to
// rounding (its log ratio exceeds log 1.05 by 1.5e-16) and decides nothing;
// reading its bounds again after the round trip through the ratio scale
// failed it. A check clearly beyond the fail margin fails beside it.
func TestPairedCheckStatusIsItsZone(t *testing.T) {
	var refs, cands []*experiment.Experiment
	for i := range 16 {
		level := 1 + 0.001*float64(i%5)
		mk := func(side string, f16, f32 float64) *experiment.Experiment {
			e := exp(fmt.Sprintf("%s/p-%02d", side, i+1), sub("sim", row(16, f16), row(32, f32*level)))
			e.Name = fmt.Sprintf("p-%02d", i+1)
			return e
		}
		refs = append(refs, mk("ref", 20, 100))
		cands = append(cands, mk("cand", 21, 120+float64(i%3)))
	}
	res, err := CompareRuns(refs, cands, Config{Pairing: PairAlways, Metrics: []result.Metric{result.Median}})
	if err != nil {
		t.Fatal(err)
	}
	a := res.Analysis
	if a == nil || len(a.Checks) != 2 {
		t.Fatalf("analysis %+v: want 2 paired checks", a)
	}
	for k, c := range res.Subs[0].Checks {
		want := map[paired.Zone]gate.Status{paired.Fail: gate.Failed, paired.Pass: gate.Passed, paired.Inconclusive: gate.Inconclusive}[a.Checks[k].Zone]
		if c.Status != want {
			t.Errorf("%d B: status %s, but its sign tests' zone is %s (bounds [%v, %v])", c.Payload, c.Status, a.Checks[k].Zone, a.Checks[k].Low, a.Checks[k].High)
		}
	}
	if got := statuses(t, res); got[0] != gate.Inconclusive || got[1] != gate.Failed {
		t.Errorf("statuses %v: want the check at the margin inconclusive and the one 20 %% worse failed", got)
	}
}
