package requirementsapp

import (
	"strings"
	"testing"
)

func TestRunsArgs(t *testing.T) {
	r := repeatedRuns{Out: "o", RunArgs: []string{"throughput", "-s", "x"}}
	if got := strings.Join(r.runArgs("n"), " "); got != "throughput --out o --name n -s x" {
		t.Errorf("subcommand: %q", got)
	}
	r.RunArgs = []string{"-s", "x"}
	if got := strings.Join(r.runArgs("n"), " "); got != "--out o --name n -s x" {
		t.Errorf("round trips: %q", got)
	}
}
