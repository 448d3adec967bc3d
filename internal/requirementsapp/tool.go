package requirementsapp

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/mqgate/mqgate/internal/clobber"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/numflag"
	"github.com/mqgate/mqgate/internal/requirements"
)

// The ranges of requirements' whole-number flags (formats §4, §11).
var (
	RunsRange      = numflag.Int{Min: 1, Max: 10000}
	OrderRankRange = numflag.Int{Min: 1, Max: 10000}
)

// Config is one invocation of the requirements tool, as its command line
// gives it (internal/cliapp/requirementscmd): one field per flag, with the
// flag's default where it has one.
type Config struct {
	ExperimentsResults   string   // --experiments-results
	Runs                 int      // --runs
	Out                  string   // --out
	OutputFile           string   // --output-file
	ThroughputOutputFile string   // --throughput-output-file
	BurstOutputFile      string   // --burst-output-file
	FalseFail            string   // --false-fail, unparsed
	Method               string   // --method
	OrderRank            int      // --order-rank
	NormalityLevel       string   // --normality-level, unparsed
	Percentile           float64  // --percentile
	AllowIncomplete      bool     // --allow-incomplete
	Args                 []string // run's arguments, with --runs only
	Calibrate            bool     // --calibrate, and its flags:
	ReferenceRuns        int      // --reference-runs
	CandidateRuns        int      // --candidate-runs
	Margin               string   // --margin, unparsed
	Columns              string   // --columns, unparsed
	Splits               int      // --splits
	Split                string   // --split
	Seed                 uint64   // --seed
	Factors              string   // --factors, unparsed
	Margins              string   // --margins, unparsed
	Regressed            string   // --regressed
	JSON                 string   // --json
	PlotsDirectory       string   // --plots-directory
	Format               string   // --format
	// Set holds the flags given, by name: the mode, and which flags go
	// together, depend on it.
	Set map[string]bool
}

// Run does what the requirements command does for cfg: it derives the
// latency and throughput requirements (after the runs of --runs), or
// calibrates them (--calibrate), prints tables and progress to stdout and
// warnings to stderr. Errors carry their exit code (package exit).
func Run(ctx context.Context, cfg Config, stdout, stderr io.Writer) error {
	if err := emptyPaths(cfg); err != nil {
		return err
	}
	if cfg.BurstOutputFile != "" {
		return deriveBurstFile(cfg, stdout, stderr)
	}
	percentile, st, err := modeOf(cfg)
	if err != nil {
		return err
	}
	if cfg.Calibrate {
		return runCalibrate(ctx, cfg, st, stdout, stderr)
	}
	out, tout, err := outputFiles(cfg)
	if err != nil {
		return err
	}
	dir, err := experimentsRoot(ctx, cfg, out, tout, stdout, stderr)
	if err != nil {
		return err
	}
	in, err := loadInput(ctx, dir, cfg.AllowIncomplete)
	if err != nil {
		return err
	}
	res, err := requirements.DeriveInput(in, percentile, cfg.Percentile, st)
	if err != nil {
		return exit.With(exit.Usage, err)
	}
	if res.Latency == nil && res.Throughput == nil {
		return exit.With(exit.Usage, nothingDerived(dir, in))
	}
	if err := writeDerived(res, in, out, tout, stderr); err != nil {
		return err
	}
	return printDerived(res, stdout, in, percentile, cfg.Percentile, out, tout)
}

// emptyPaths refuses a file or folder flag given an empty value (an unset
// variable in a CI script), which read as not given: --burst-output-file ""
// derived latency requirements instead, --json "" and --regressed "" left
// the calibration without them, all exiting 0. --output-file and
// --throughput-output-file say it in outputFiles.
func emptyPaths(cfg Config) error {
	for _, f := range []struct {
		flag, value, what string
		optional          bool
	}{
		{"experiments-results", cfg.ExperimentsResults, "a folder of experiments", false},
		{"out", cfg.Out, "a results folder", false},
		{"burst-output-file", cfg.BurstOutputFile, "a file", true},
		{"regressed", cfg.Regressed, "a folder of runs", true},
		{"json", cfg.JSON, "a file", true},
		{"plots-directory", cfg.PlotsDirectory, "a folder", false},
	} {
		if f.value == "" && cfg.Set[f.flag] {
			hint := ""
			if f.optional {
				hint = "; leave the flag out when there is none"
			}
			return exit.Usagef("--%s is empty: expected %s (an unset variable?)%s", f.flag, f.what, hint)
		}
	}
	return nil
}

// nothingDerived is the error of experiments that hold neither latency nor
// throughput summaries (experiments of run burst only): without it the tool
// exited 0 having written and said nothing.
func nothingDerived(root string, in *requirements.Input) error {
	hint := "run process on the experiments first"
	for _, e := range in.Experiments {
		if files, _ := experiment.BurstSummaryFiles(e.Dir); len(files) > 0 {
			hint = fmt.Sprintf("%s holds burst summaries (%s): derive their requirements with --burst-output-file", e.Dir, experiment.BurstSummaryFileName("<type>"))
			break
		}
	}
	return fileerr.New(root, 0, "", "no latency summary (%s) nor throughput summary (%s) in its experiments to derive requirements from: %s",
		experiment.SummaryFileName("<type>"), experiment.ThroughputFileName("<type>"), hint)
}

// modeOf checks the flags that choose how requirements are derived:
// percentile reports the Fast-RTPS percentile mode, st the statistical
// mode's settings.
func modeOf(cfg Config) (percentile bool, st requirements.StatConfig, err error) {
	// Statistical when any of its flags is given; otherwise the Fast-RTPS
	// percentile mode, which stays the default for compatibility.
	percentile = !(cfg.Set["false-fail"] || cfg.Set["method"] || cfg.Set["normality-level"] || cfg.Set["order-rank"] || cfg.Calibrate)
	st = requirements.StatConfig{Method: cfg.Method, OrderRank: cfg.OrderRank}
	if st.FalseFail, err = numflag.Level.Parse(cfg.FalseFail); err != nil {
		return false, st, exit.Usagef("--false-fail: %v", err)
	}
	if st.NormalityLevel, err = numflag.Level.Parse(cfg.NormalityLevel); err != nil {
		return false, st, exit.Usagef("--normality-level: %v", err)
	}
	if !cfg.Set["order-rank"] {
		st.OrderRank = 0 // chosen from the runs (OrderRankFor)
	} else if err := OrderRankRange.Check("--order-rank", st.OrderRank); err != nil {
		return false, st, exit.With(exit.Usage, err)
	}
	if cfg.Set["runs"] {
		if err := RunsRange.Check("--runs", cfg.Runs); err != nil {
			return false, st, exit.With(exit.Usage, err)
		}
		if cfg.Set["order-rank"] && st.OrderRank >= cfg.Runs {
			return false, st, exit.Usagef("--order-rank %d with --runs %d: expected fewer than the runs (1 is the largest run)", st.OrderRank, cfg.Runs)
		}
	}
	if !cfg.Calibrate {
		if err := calibrateMisused(cfg.Set); err != nil {
			return false, st, err
		}
	}
	switch {
	case !percentile && cfg.Set["percentile"]:
		return false, st, exit.Usagef("--percentile (the Fast-RTPS mode) excludes --false-fail, --method and --normality-level (the statistical mode)")
	case percentile && !(cfg.Percentile > 0 && cfg.Percentile <= 100):
		return false, st, exit.Usagef("--percentile %v: expected a number above 0 and at most 100, e.g. 99", cfg.Percentile)
	case !percentile && st.Method != gate.MethodOrder && st.Method != gate.MethodLogNormal:
		return false, st, exit.Usagef("--method %q: expected %s or %s", st.Method, gate.MethodOrder, gate.MethodLogNormal)
	}
	return percentile, st, nil
}

// outputFiles returns the latency and throughput requirements files to
// write, refusing before any run or read a path that cannot become a file.
func outputFiles(cfg Config) (out, tout string, err error) {
	out = cfg.OutputFile
	if out == "" {
		return "", "", exit.Usagef("--output-file is empty: expected the requirements CSV to write")
	}
	tout = cfg.ThroughputOutputFile
	if !cfg.Set["throughput-output-file"] {
		tout = filepath.Join(filepath.Dir(out), requirements.DefaultThroughputFileName)
	}
	if tout == "" {
		return "", "", exit.Usagef("--throughput-output-file is empty: expected the throughput requirements CSV to write")
	}
	// The default throughput file is checked when it is written, with the
	// others, as it is written only for throughput summaries.
	for _, f := range []struct{ flag, path string }{{"--output-file", out}, {driftFlag, requirements.DriftFileFor(out)}, {"--throughput-output-file", tout}} {
		if f.flag != "--throughput-output-file" || cfg.Set["throughput-output-file"] {
			if err := checkOutputFile(f.flag, f.path); err != nil {
				return "", "", err
			}
		}
	}
	return out, tout, nil
}

// experimentsRoot returns the folder of experiments to derive from:
// --experiments-results, or --out once the runs of --runs are done. It
// refuses outputs out and tout inside it.
func experimentsRoot(ctx context.Context, cfg Config, out, tout string, stdout, stderr io.Writer) (string, error) {
	dir := cfg.ExperimentsResults
	switch {
	case cfg.Set["runs"] || cfg.Set["out"]:
		if dir != "" {
			return "", exit.Usagef("--experiments-results and --runs/--out exclude each other: --runs derives from --out")
		}
		if !cfg.Set["runs"] || cfg.Out == "" {
			return "", exit.Usagef("--runs needs a number of runs ≥ 1 and --out DIR (see 'requirements --help')")
		}
		if err := guard("--out", cfg.Out, out, tout).Check(); err != nil {
			return "", err
		}
		r := repeatedRuns{N: cfg.Runs, Out: cfg.Out, RunArgs: cfg.Args, Stdout: stdout, Stderr: stderr}
		if _, err := r.Execute(ctx); err != nil {
			return "", err
		}
		dir = r.Out
	case dir == "":
		return "", exit.Usagef("--experiments-results DIR (or --runs N --out DIR) is required (see 'requirements --help')")
	default:
		// Arguments are run's, and only with --runs.
		if err := noArgs(cfg.Args); err != nil {
			return "", err
		}
	}
	rootFlag := "--experiments-results"
	if cfg.Set["out"] {
		rootFlag = "--out"
	}
	if err := guard(rootFlag, dir, out, tout).Check(); err != nil {
		return "", err
	}
	return dir, nil
}

// writeDerived prints the warnings to stderr and writes the requirements files
// out and tout and the drift report: they land together or not at all, so
// that a call failing on one leaves the earlier files as they were.
func writeDerived(dv requirements.Derived, in *requirements.Input, out, tout string, stderr io.Writer) error {
	var files outputs
	if dv.Latency != nil {
		rows := dv.Latency.Rows()
		for i := range rows {
			rows[i].Latency = in.Latency
		}
		files.Add("--output-file", out, func(w io.Writer) error { return requirements.Write(w, rows) })
	}
	if dv.Throughput != nil {
		rows := make([]requirements.KeyedRow, len(dv.Throughput))
		for i, r := range dv.Throughput {
			rows[i] = r.KeyedRow
		}
		files.Add("--throughput-output-file", tout, func(w io.Writer) error { return requirements.WriteThroughput(w, rows) })
	}
	files.Add(driftFlag, requirements.DriftFileFor(out), func(w io.Writer) error { return requirements.WriteDrift(w, dv.Drift) })
	warnings := in.Warnings
	if dv.Latency != nil {
		warnings = append(warnings, dv.Latency.Warnings...)
	}
	for _, w := range append(warnings, dv.ThroughputWarnings...) {
		fmt.Fprintf(stderr, "requirements: warning: %s\n", w)
	}
	return files.Commit()
}

// printDerived writes the tables of what writeDerived wrote to stdout.
func printDerived(dv requirements.Derived, stdout io.Writer, in *requirements.Input, percentile bool, p float64, out, tout string) error {
	if d := dv.Latency; d != nil {
		print := requirements.PrintTable
		if !percentile {
			print = requirements.PrintStatTable
		}
		if err := print(stdout, d); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%d requirement(s) from %d experiment(s) written to %s\n", len(d.Requirements), len(in.Experiments), out)
	}
	if dv.Throughput != nil {
		if err := requirements.PrintThroughputTable(stdout, dv.Throughput, percentile, p); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%d throughput requirement(s) (lower limits, higher is better) from %d experiment(s) written to %s\n", len(dv.Throughput), len(in.Experiments), tout)
	}
	if err := requirements.PrintDrift(stdout, dv.Drift); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "drift report written to %s\n", requirements.DriftFileFor(out))
	return nil
}

// driftFlag names the drift report in messages: it has no flag of its own.
const driftFlag = "the drift report beside --output-file"

// guard declares what requirements reads (the experiments under root, named
// by rootFlag) and writes (out), see package clobber.
func guard(rootFlag, root, out, tout string) *clobber.Guard {
	g := &clobber.Guard{}
	g.Experiments(rootFlag, root)
	g.OutputOutside("--output-file", out)
	g.OutputOutside("--throughput-output-file", tout)
	g.OutputOutside(driftFlag, requirements.DriftFileFor(out))
	return g
}

// noArgs refuses arguments where only flags belong.
func noArgs(args []string) error {
	if len(args) > 0 {
		return exit.Usagef("unexpected argument %q (see 'requirements --help')", args[0])
	}
	return nil
}

// loadInput reads every experiment folder under root (experiment.LoadRoot) and
// admits them together: an incomplete run is an error unless
// allowIncomplete, and so are experiments with different latency
// definitions. Errors carry exit code 2, or 130 once ctx is cancelled.
func loadInput(ctx context.Context, root string, allowIncomplete bool) (*requirements.Input, error) {
	fail := func(err error) (*requirements.Input, error) {
		if exit.Cancelled(ctx) {
			// Say so, not the cancelled context's "context canceled".
			return nil, exit.ErrInterrupted
		}
		return nil, exit.With(exit.Usage, err)
	}
	exps, warnings, err := experiment.LoadRoot(ctx, root)
	if err != nil {
		return fail(err)
	}
	if err := copiedRuns(root, exps); err != nil {
		return fail(err)
	}
	for _, e := range exps {
		warnings = append(warnings, e.Warnings...)
	}
	latency, more, err := experiment.Admit(exps, allowIncomplete)
	if err != nil {
		return fail(err)
	}
	return &requirements.Input{Experiments: exps, Latency: latency, Warnings: append(warnings, more...)}, nil
}
