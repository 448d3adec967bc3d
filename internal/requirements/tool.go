package requirements

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/clobber"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/numflag"
	"github.com/mqgate/mqgate/internal/result"
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
	in, err := Load(ctx, dir, cfg.AllowIncomplete)
	if err != nil {
		if exit.Cancelled(ctx) {
			return exit.With(exit.Interrupted, err)
		}
		return exit.With(exit.Usage, err)
	}
	dv, err := derive(in, percentile, cfg.Percentile, st)
	if err != nil {
		return err
	}
	if err := dv.write(in, out, tout, stderr); err != nil {
		return err
	}
	return dv.print(stdout, in, percentile, cfg.Percentile, out, tout)
}

// modeOf checks the flags that choose how requirements are derived:
// percentile reports the Fast-RTPS percentile mode, st the statistical
// mode's settings.
func modeOf(cfg Config) (percentile bool, st StatConfig, err error) {
	// Statistical when any of its flags is given; otherwise the Fast-RTPS
	// percentile mode, which stays the default for compatibility.
	percentile = !(cfg.Set["false-fail"] || cfg.Set["method"] || cfg.Set["normality-level"] || cfg.Set["order-rank"] || cfg.Calibrate)
	p := cfg.Percentile
	st = StatConfig{Method: cfg.Method, OrderRank: cfg.OrderRank}
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
	case percentile && !(p > 0 && p <= 100):
		return false, st, exit.Usagef("--percentile %v: expected a number above 0 and at most 100, e.g. 99", p)
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
		tout = filepath.Join(filepath.Dir(out), DefaultThroughputFileName)
	}
	if tout == "" {
		return "", "", exit.Usagef("--throughput-output-file is empty: expected the throughput requirements CSV to write")
	}
	// The default throughput file is checked when it is written, with the
	// others, as it is written only for throughput summaries.
	for _, f := range []struct{ flag, path string }{{"--output-file", out}, {driftFlag, DriftFileFor(out)}, {"--throughput-output-file", tout}} {
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
		r := Runs{N: cfg.Runs, Out: cfg.Out, RunArgs: cfg.Args, Stdout: stdout, Stderr: stderr}
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

// derived is what Run derives from the experiments: the latency
// requirements (nil without latency summaries), the throughput ones (nil
// without throughput summaries) with their warnings, and the drift report.
type derived struct {
	d         *Derivation
	treqs     []ThroughputRequirement
	twarnings []string
	drift     Drift
}

// derive derives the requirements of in, at percentile p or, unless
// percentile, statistically with st. The serial-correlation test refuses
// statistical requirements here, before anything is written.
func derive(in *Input, percentile bool, p float64, st StatConfig) (dv derived, err error) {
	latObs, tputObs := in.Observations(), in.ThroughputObservations()
	_, tputKeys := groupThroughput(tputObs)
	dv.drift = DriftOf(in)
	if !percentile && dv.drift.Pooled.Refuse {
		return dv, exit.With(exit.Usage, refuseCorrelated(dv.drift.Pooled))
	}
	if len(latObs) > 0 {
		if percentile {
			dv.d, err = Derive(latObs, p)
		} else {
			dv.d, err = DeriveStatisticalWith(latObs, st, len(tputKeys))
		}
		if err != nil {
			return dv, exit.With(exit.Usage, err)
		}
	}
	if len(tputObs) > 0 {
		if percentile {
			dv.treqs, err = DeriveThroughput(tputObs, p)
		} else {
			latRows := 0
			if dv.d != nil {
				latRows = len(dv.d.Requirements)
			}
			dv.treqs, dv.twarnings, err = DeriveThroughputStatistical(tputObs, st, CheckLevelFor(st.FalseFail, latRows, len(tputKeys)))
		}
		if err != nil {
			return dv, exit.With(exit.Usage, err)
		}
	}
	return dv, nil
}

// write prints the warnings to stderr and writes the requirements files
// out and tout and the drift report: they land together or not at all, so
// that a call failing on one leaves the earlier files as they were.
func (dv derived) write(in *Input, out, tout string, stderr io.Writer) error {
	var files outputs
	if dv.d != nil {
		rows := dv.d.Rows()
		for i := range rows {
			rows[i].Latency = in.Latency
		}
		files.Add("--output-file", out, func(w io.Writer) error { return Write(w, rows) })
	}
	if dv.treqs != nil {
		rows := make([]KeyedRow, len(dv.treqs))
		for i, r := range dv.treqs {
			rows[i] = r.KeyedRow
		}
		files.Add("--throughput-output-file", tout, func(w io.Writer) error { return WriteThroughput(w, rows) })
	}
	if dv.d != nil || dv.treqs != nil {
		files.Add(driftFlag, DriftFileFor(out), func(w io.Writer) error { return WriteDrift(w, dv.drift) })
	}
	warnings := in.Warnings
	if dv.d != nil {
		warnings = append(warnings, dv.d.Warnings...)
	}
	for _, w := range append(warnings, dv.twarnings...) {
		fmt.Fprintf(stderr, "requirements: warning: %s\n", w)
	}
	_, err := files.Commit()
	return err
}

// print writes the tables of what write wrote to stdout.
func (dv derived) print(stdout io.Writer, in *Input, percentile bool, p float64, out, tout string) error {
	if d := dv.d; d != nil {
		print := PrintTable
		if !percentile {
			print = PrintStatTable
		}
		if err := print(stdout, d); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%d requirement(s) from %d experiment(s) written to %s\n", len(d.Requirements), len(in.Experiments), out)
	}
	if dv.treqs != nil {
		if err := PrintThroughputTable(stdout, dv.treqs, percentile, p); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%d throughput requirement(s) (lower limits, higher is better) from %d experiment(s) written to %s\n", len(dv.treqs), len(in.Experiments), tout)
	}
	if dv.d != nil || dv.treqs != nil {
		if err := PrintDrift(stdout, dv.drift); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "drift report written to %s\n", DriftFileFor(out))
	}
	return nil
}

// driftFlag names the drift report in messages: it has no flag of its own.
const driftFlag = "the drift report beside --output-file"

// PrintThroughputTable writes throughput requirements for people: the
// lower limits, the runs behind them and the chance that an unchanged
// system falls below each on its next run.
func PrintThroughputTable(w io.Writer, reqs []ThroughputRequirement, percentile bool, p float64) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%-58s %8s %16s %5s  %s\n", "Throughput (higher is better)", "Bytes", "Min [msg/s]", "Runs", "Chance an unchanged run fails the check; candidate runs needed to fail")
	for _, r := range reqs {
		need := strconv.Itoa(r.NeedRuns)
		if r.NeedRuns < 0 {
			need = ">100000"
		}
		fmt.Fprintf(bw, "%-58s %8d %16.3f %5d  %.3g%%; %s\n", result.ThroughputLabel(r.Type, r.Key), r.Key.Payload, r.Limits[result.MessageRate.Name], r.N, 100*r.FailChance, need)
	}
	if percentile {
		fmt.Fprintf(bw, "Mode: percentile: each limit is the %s percentile of the runs' Median [msg/s] (the low end, as latency takes the %s).\n", ordinal(100-p), ordinal(p))
	} else if len(reqs) > 0 {
		st := reqs[0].Stat
		fmt.Fprintf(bw, "Mode: statistical (%s), %s per check; with the latency requirements derived with them, an unchanged system fails a whole check with chance ≤ %s.\n",
			st.Method, pct(st.CheckLevel), pct(st.FalseFail))
	}
	return bw.Flush()
}

// guard declares what requirements reads (the experiments under root, named
// by rootFlag) and writes (out), see package clobber.
func guard(rootFlag, root, out, tout string) *clobber.Guard {
	g := &clobber.Guard{}
	g.Experiments(rootFlag, root)
	g.OutputOutside("--output-file", out)
	g.OutputOutside("--throughput-output-file", tout)
	g.OutputOutside(driftFlag, DriftFileFor(out))
	return g
}

// PrintTable writes d for people: the requirements with their backing and
// failure chances, then the chance that a whole check fails.
func PrintTable(w io.Writer, d *Derivation) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%-40s %8s %12s %12s %12s %5s %6s  %s\n",
		"Experiment type", "Bytes", "Median [µs]", "99% [µs]", "Max [µs]", "Runs", "Rank", "Chance an unchanged system fails each check")
	for _, r := range d.Requirements {
		chance := fmt.Sprintf("%5.1f%% (1 run in %.1f)", r.FailChance*100, 1/r.FailChance)
		if r.FailChanceMin != r.FailChanceMax {
			chance += fmt.Sprintf(", between %.1f%% and %.1f%%", r.FailChanceMin*100, r.FailChanceMax*100)
		}
		fmt.Fprintf(bw, "%-40s %8d %12.3f %12.3f %12.3f %5d %6.2f  %s\n",
			r.Type, r.Key.Payload, r.Limits[metricNames[0]], r.Limits[metricNames[1]], r.Limits[metricNames[2]], r.N, r.Rank, chance)
	}
	n := len(d.Requirements) * ChecksPerRequirement
	fmt.Fprintf(bw, "Chance that a check of an unchanged system fails at least one of its %d checks: %.1f%%", n, d.CheckFailChance*100)
	if d.CheckFailChance > 0 && d.CheckFailChance < 1 {
		fmt.Fprintf(bw, " (1 run in %.1f)", 1/d.CheckFailChance)
	}
	fmt.Fprintln(bw, "\n(assuming checks fail independently; checks of one run are usually positively correlated, which makes the true chance lower)")
	return bw.Flush()
}

// PrintStatTable writes a statistical derivation for people: per
// requirement its limits, runs and, per column, the method used (L
// log-normal, O distribution-free) and the candidate runs a check needs
// before it can fail; then the family-wise statement.
func PrintStatTable(w io.Writer, d *Derivation) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%-40s %8s %12s %12s %12s %5s  %s\n",
		"Experiment type", "Bytes", "Median [µs]", "99% [µs]", "Max [µs]", "Runs", "Method, candidate runs needed to fail (Median; 99%; Max)")
	gateable := 0
	for _, r := range d.Requirements {
		var cols []string
		for i, f := range r.Stat.Fits {
			tag := "O"
			if f.Method == gate.MethodLogNormal {
				tag = "L"
			}
			if r.NeedRuns[i] == 1 {
				gateable++
			}
			need := strconv.Itoa(r.NeedRuns[i])
			if r.NeedRuns[i] < 0 {
				need = ">100000"
			}
			cols = append(cols, tag+" "+need)
		}
		fmt.Fprintf(bw, "%-40s %8d %12.3f %12.3f %12.3f %5d  %s\n", r.Type, r.Key.Payload, r.Limits[metricNames[0]], r.Limits[metricNames[1]], r.Limits[metricNames[2]], r.N, strings.Join(cols, "; "))
	}
	m := len(d.Requirements) * ChecksPerRequirement
	method := "distribution-free (order statistics; runs assumed exchangeable)"
	if d.Mode == gate.MethodLogNormal {
		method = "log-normal prediction bounds where the runs can back the check level (≥ 1/(n+1)) and Shapiro–Wilk does not reject, distribution-free elsewhere"
	}
	fmt.Fprintf(bw, "Mode: statistical, %s.\n", method)
	if ranks := rankText(d); ranks != "" {
		fmt.Fprintf(bw, "Distribution-free limits: %s.\n", ranks)
	}
	fmt.Fprintf(bw, "An unchanged system fails a whole check with chance ≤ %s: Bonferroni over the %d checks, %s each.\n",
		pct(d.FalseFail), m, pct(d.CheckLevel))
	fmt.Fprintf(bw, "%d of %d checks can fail on a single candidate run; the others need the candidate runs listed, all above the limit (L: log-normal, O: distribution-free).\n", gateable, m)
	return bw.Flush()
}

// rankText says which order statistic the distribution-free limits of d
// are where one is not the largest run ("the 2nd largest of 20 runs"),
// "" when every one is.
func rankText(d *Derivation) string {
	var parts []string
	seen := map[[2]int]bool{}
	for _, r := range d.Requirements {
		if r.Stat == nil {
			continue
		}
		for _, f := range r.Stat.Fits {
			key := [2]int{f.rank(), r.N}
			if f.Method != gate.MethodOrder || f.rank() == 1 || seen[key] {
				continue
			}
			seen[key] = true
			parts = append(parts, fmt.Sprintf("the %s of %d runs", largest(f.rank()), r.N))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, ", ") + " (the runs' 90th percentile unless --order-rank asked another rank; formats §11)"
}

// noArgs refuses arguments where only flags belong.
func noArgs(args []string) error {
	if len(args) > 0 {
		return exit.Usagef("unexpected argument %q (see 'requirements --help')", args[0])
	}
	return nil
}
