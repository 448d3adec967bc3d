package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/intraprocess"
	"github.com/mqgate/mqgate/internal/engine"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/meta"
)

// named is an in-process transport whose sub-experiments are named by its
// flag "named-type" (driver.ScenarioDefiner), as an external program's are.
type named struct{ intraprocess.Transport }

func (named) Name() string { return "named" }
func (named) Flags() []driver.Flag {
	return []driver.Flag{{Name: "named-type", Usage: "sub-experiment names"}}
}
func (named) DefineScenarios(value func(string) string) ([]driver.Scenario, error) {
	var out []driver.Scenario
	for _, n := range strings.Split(value("named-type"), ",") {
		if n != "" {
			out = append(out, driver.Scenario{Type: n, Reliable: strings.Contains(n, "_reliable")})
		}
	}
	return out, nil
}

var _ driver.ScenarioDefiner = named{}

func init() { driver.Register(named{}) }

// TestDefinedScenarios checks that a user-named sub-experiment runs and
// that naming mistakes are refused before anything is created.
func TestDefinedScenarios(t *testing.T) {
	ctx := context.Background()
	eng := engine.Config{Payloads: []int{16}, Samples: 20, Warmup: 2}
	s, err := Prepare(ctx, Config{Scenarios: []string{"mine_reliable"}, Engine: eng, Params: map[string]string{"named-type": "mine_reliable"}})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "exp")
	m := &meta.Meta{}
	err = s.Run(ctx, Output{Dir: dir, Meta: m})
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, experiment.RawFileName("mine_reliable"))); err != nil {
		t.Fatal(err)
	}
	sub := m.SubExperiments[0]
	if sub.Transport != "named" || !sub.Reliable || sub.Params["named-type"] != "mine_reliable" || !m.Completed {
		t.Errorf("meta sub-experiment %+v", sub)
	}

	for _, tt := range []struct {
		scenarios []string
		names     string
		err       string
	}{
		{[]string{"intraprocess_reliable"}, "mine_reliable", "sub-experiment mine_reliable is defined by the flags of transport named but not selected"},
		{[]string{"Mine"}, "Mine", `transport named: sub-experiment name "Mine" does not follow`},
		{[]string{"intraprocess_reliable"}, "intraprocess_reliable", "sub-experiment intraprocess_reliable is registered already"},
		{[]string{"other_reliable"}, "", `unknown sub-experiment "other_reliable"`},
		{[]string{"other_reliable"}, "", "the flags of transport named define sub-experiments of other names"},
		// A near miss names what was meant, instead of listing every name.
		{[]string{"intraprocess_relaible"}, "", `unknown sub-experiment "intraprocess_relaible": did you mean intraprocess_reliable? ('run --list' lists the`},
		{[]string{"mine_relable"}, "mine_reliable", `unknown sub-experiment "mine_relable": did you mean mine_reliable?`},
		// The beginning of several names guesses none (it got the first
		// known name, intraprocess_best_effort).
		{[]string{"inter"}, "", `unknown sub-experiment "inter"; expected some of`},
	} {
		_, err := Prepare(ctx, Config{Scenarios: tt.scenarios, Engine: eng, Params: map[string]string{"named-type": tt.names}})
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%v with named-type %q: error %v, want %q", tt.scenarios, tt.names, err, tt.err)
		}
	}
}
