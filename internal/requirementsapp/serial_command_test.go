package requirementsapp_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/requirements"
)

// correlatedPool is 20 runs (e000…e019, in run order) of 11 payloads whose
// log values share a machine's AR(1) wander of correlation phi (CV about
// 10 %), besides each payload's own noise.
func correlatedPool(t *testing.T, phi float64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 8))
	var obs []requirements.Observation
	var common float64
	for i := range 20 {
		common = phi*common + math.Sqrt(1-phi*phi)*rng.NormFloat64()
		for p := range 11 {
			v := 100 * math.Exp(0.07*common+0.07*rng.NormFloat64())
			obs = append(obs, requirements.Observation{Experiment: fmt.Sprintf("e%03d", i), Type: "interprocess_reliable", Bytes: 16 << p,
				Median: v, P99: 2 * v, Max: 3 * v})
		}
	}
	return writePool(t, obs)
}

// TestCorrelatedRunsRefusedCommand: statistical requirements from runs
// that wander together are refused, exit 2, naming the correlation, and the
// requirements file there before is left as it was; the same runs give
// percentile limits, which claim no false-fail level, and independent runs
// give statistical ones.
func TestCorrelatedRunsRefusedCommand(t *testing.T) {
	root := correlatedPool(t, 0.8)
	out := filepath.Join(t.TempDir(), "req.csv")
	if err := os.WriteFile(out, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runRequirements(t, root, "-e", root, "-o", out, "--false-fail", "0.01")
	if b, _ := os.ReadFile(out); code != 2 || !strings.Contains(stderr, "serially correlated") || !strings.Contains(stderr, "--percentile") || string(b) != "keep\n" {
		t.Errorf("exit %d, file %q, stderr: %s", code, b, stderr)
	}
	if _, err := os.Stat(requirements.DriftFileFor(out)); err == nil {
		t.Errorf("a drift report was written beside a refused derivation")
	}
	if code, _, stderr := runRequirements(t, root, "-e", root, "-o", out, "--percentile", "90"); code != 0 {
		t.Errorf("percentile: exit %d: %s", code, stderr)
	}
	indep := correlatedPool(t, 0)
	if code, _, stderr := runRequirements(t, indep, "-e", indep, "-o", filepath.Join(t.TempDir(), "req.csv"), "--false-fail", "0.01"); code != 0 {
		t.Errorf("independent runs: exit %d: %s", code, stderr)
	}
}
