package check

import (
	"context"
	"fmt"
	"io"

	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/report"
)

// Run does what the check command does for cfg (internal/cliapp/checkcmd):
// it refuses a cfg that names no requirements or no runs, checks (Judge),
// and prints the verdict to stdout. One directory in cfg.ExperimentDirs
// without cfg.ExperimentsRoot is a single run (cfg.ExperimentDir). A failed
// gate exits 1, an undecided one 3 (package exit).
func Run(ctx context.Context, cfg Config, stdout io.Writer) error {
	switch dirs := cfg.ExperimentDirs; {
	case cfg.Requirements == "" && cfg.ThroughputRequirements == "":
		return exit.Usagef("--requirements or --throughput-requirements is required (see 'check --help')")
	case cfg.ExperimentDir == "" && len(dirs) == 0 && cfg.ExperimentsRoot == "":
		return exit.Usagef("--experiment-directory DIR (repeatable) or --experiments-results ROOT is required (see 'check --help')")
	case cfg.ExperimentDir == "" && len(dirs) == 1 && cfg.ExperimentsRoot == "":
		cfg.ExperimentDir, cfg.ExperimentDirs = dirs[0], nil
		if cfg.OutputDir != "" {
			return exit.Usagef("--output-directory is for several runs; one run's check reports go into its directory")
		}
	}
	res, err := Judge(ctx, cfg)
	if err != nil {
		return err
	}
	v := res.Verdict
	if cfg.PrintSummaries {
		for _, ch := range v.Checks {
			fmt.Fprintf(stdout, "%-40s %-8s %s\n", ch.SubExperiment, ch.Status, ch.Message)
		}
		fmt.Fprintln(stdout)
	}
	if err := report.Text(stdout, v); err != nil {
		return err
	}
	switch v.Status {
	case gate.Passed:
		return nil
	case gate.Inconclusive:
		return exit.With(exit.Inconclusive, fmt.Errorf("inconclusive: %d of %d checks undecided, none failed; more runs would decide", v.Inconclusive, len(v.Checks)))
	}
	msg := fmt.Sprintf("%d of %d checks failed, %d missing", v.Failed, len(v.Checks), v.Missing)
	if v.Inconclusive > 0 {
		msg += fmt.Sprintf(", %d inconclusive", v.Inconclusive)
	}
	return exit.GateFailedf("%s", msg)
}
