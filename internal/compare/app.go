package compare

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/clobber"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/htmlreport"
	"github.com/mqgate/mqgate/internal/numflag"
	"github.com/mqgate/mqgate/internal/pairing"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/report"
	"github.com/mqgate/mqgate/internal/result"
)

// Invocation is one invocation of the compare tool, as its command line
// gives it (internal/cliapp/comparecmd). Config is what it gates and how
// strictly, read from these flags.
type Invocation struct {
	Reference       []string          // --reference: experiments or folders of experiments
	Results         []string          // --results: likewise
	PlotsDirectory  string            // --plots-directory
	FailThreshold   string            // --fail-threshold, as given
	Columns         string            // --columns
	FalseFail       string            // --false-fail, as given
	Thresholds      []string          // --threshold: COLUMN=VALUE each
	AllowMissing    bool              // --allow-missing
	AllowIncomplete bool              // --allow-incomplete
	Reports         map[string]string // report files by report.Formats flag, "" for none
	HTML            string            // --html
	Format          string            // --format: png or svg
	PrintSummaries  bool              // --print-summaries
	Calibrate       bool              // --calibrate
	RunsPerSide     int               // --runs-per-side
	Splits          int               // --splits
	Split           string            // --split
	Seed            uint64            // --seed
	Factors         string            // --factors
	CalibThresholds string            // --thresholds
	Paired          bool              // --paired
	Unpaired        bool              // --unpaired
	PassMargin      string            // --pass-margin, as given
	FailMargin      string            // --fail-margin, as given
	Plan            bool              // --plan
	Regression      string            // --regression, as given
	Series          string            // --series: run ab's series file
	SubExperiments  string            // -s/--subexperiments: comma-separated, "" for every one
	// Given holds the flags given on the command line, by their first
	// name ("fail-threshold"): a flag given explicitly that the mode does
	// not use is refused rather than ignored.
	Given map[string]bool
}

// Run does what the compare command does for inv: it checks every flag and
// output path before reading anything, then gates (or calibrates, with
// --calibrate), writes the comparisons, plots and reports, and prints the
// verdict to stdout. Errors carry their exit code (package exit).
func Run(ctx context.Context, inv Invocation, stdout io.Writer) error {
	if err := inv.required(); err != nil {
		return err
	}
	cfg, format, err := inv.config()
	if err != nil {
		return exit.With(exit.Usage, err)
	}
	opt, err := inv.calibrateOptions(cfg)
	if err != nil {
		return exit.With(exit.Usage, err)
	}
	if err := inv.checkFlags(cfg); err != nil {
		return exit.With(exit.Usage, err)
	}
	if err := inv.distinctDirs(); err != nil {
		return exit.With(exit.Usage, err)
	}
	seriesNote, err := inv.readSeries(&cfg)
	if err != nil {
		return err
	}
	if inv.Plan {
		return inv.runPlan(ctx, cfg, stdout)
	}
	if inv.Calibrate {
		if len(inv.Reference)+len(inv.Results) == 0 {
			return exit.Usagef("--calibrate needs unchanged runs: give them with --results (and --reference; both are pooled)")
		}
		return inv.runCalibrate(ctx, cfg, opt, format, stdout)
	}
	res, err := inv.compareSides(ctx, cfg, seriesNote)
	if err != nil {
		return err
	}
	if len(res.Verdict().Checks) == 0 {
		// It exited 0, "compare PASSED (0/0)", having compared nothing.
		return exit.With(exit.Usage, nothingCompared(res))
	}

	// The plots directory is this call's from here on (claimDir): two
	// calls writing into one at once would mix their comparisons.
	dir := inv.PlotsDirectory
	release, err := claimDir("--plots-directory", dir)
	if err != nil {
		return err
	}
	defer release()
	// Comparisons of an earlier run stay until this run's are written: a
	// comparison refused for bad input changes nothing (formats §1), and one
	// that completes removes the earlier ones it did not replace, so that no
	// later step takes them for its own.
	earlier, err := earlierComparisons(dir)
	if err != nil {
		return exit.With(exit.Usage, err)
	}
	written, err := inv.writeSections(ctx, res, dir, format, stdout)
	if err != nil {
		return err
	}
	if err := experiment.RemoveStale(earlier, written, "comparison"); err != nil {
		return exit.With(exit.Usage, err)
	}
	v := res.Verdict()
	if err := inv.writeReports(res, v); err != nil {
		return exit.With(exit.Usage, err)
	}
	fmt.Fprintf(stdout, "Comparing %s against the reference %s (allowed over reference: %s)\n",
		res.sideText(res.Targets), res.sideText(res.References), res.thresholdText())
	if err := report.Text(stdout, v); err != nil {
		return err
	}
	if code := v.ExitCode(); code != exit.OK {
		return exit.With(code, fmt.Errorf("%s", failureSummary(res, v)))
	}
	return nil
}

// readSeries reads the series file, --series or the one beside the runs,
// into cfg, after checking no output would overwrite it; note is the
// warning seriesFile gives with it.
func (inv Invocation) readSeries(cfg *Config) (note string, err error) {
	series, note, err := inv.seriesFile()
	if err != nil {
		return "", exit.With(exit.Usage, err)
	}
	g := inv.guard()
	g.File("--series", series)
	if err := g.Check(); err != nil {
		return "", err
	}
	if series != "" {
		if cfg.Series, err = pairing.ReadSeries(series); err != nil {
			return "", exit.With(exit.Usage, err)
		}
		if inv.Series != "" {
			cfg.Pairing = PairAlways // --series asks for its pairs
		}
	}
	return note, nil
}

// compareSides loads both sides and compares them, refusing the flags the
// comparison's mode does not take; the result's warnings are the loading's,
// its own, then seriesNote.
func (inv Invocation) compareSides(ctx context.Context, cfg Config, seriesNote string) (*Result, error) {
	refs, targets, warnings, err := inv.loadSides(ctx)
	if err != nil {
		return nil, err
	}
	res, err := cancellable(ctx, func() (*Result, error) { return CompareRuns(refs, targets, cfg) })
	if err != nil {
		return nil, inputError(ctx, err)
	}
	if err := inv.checkModeFlags(res); err != nil {
		return nil, exit.With(exit.Usage, err)
	}
	res.Warnings = append(warnings, res.Warnings...)
	if seriesNote != "" {
		res.Warnings = append(res.Warnings, seriesNote)
	}
	return res, nil
}

// writeSections writes each section's CSV file and plots into dir, and its
// summary to stdout with --print-summaries; written are the files.
func (inv Invocation) writeSections(ctx context.Context, res *Result, dir string, format plots.Format, stdout io.Writer) (written []string, err error) {
	for _, s := range res.sections() {
		if exit.Cancelled(ctx) {
			return nil, exit.ErrInterrupted
		}
		path := filepath.Join(dir, s.csvName())
		if err := atomicfile.Write(path, func(w io.Writer) error { return s.writeTo(res, w) }); err != nil {
			return nil, exit.With(exit.Usage, err)
		}
		written = append(written, path)
		if inv.PrintSummaries {
			fmt.Fprintf(stdout, "%s:\n", s.csvName())
			if err := s.writeTo(res, stdout); err != nil {
				return nil, err
			}
		}
		for _, f := range s.figures(res) {
			path := filepath.Join(dir, f.Name+format.Ext())
			if err := plots.Save(f.Plot, path, format); err != nil {
				return nil, exit.With(exit.Usage, err)
			}
			written = append(written, path)
		}
	}
	return written, nil
}

// loadSides reads both sides' runs, and refuses a run given twice (on one
// side or both); warnings are those of LoadSide.
func (inv Invocation) loadSides(ctx context.Context) (refs, targets []*experiment.Experiment, warnings []string, err error) {
	refs, rw, err := LoadSide(ctx, inv.Reference)
	if err != nil {
		return nil, nil, nil, inputError(ctx, fmt.Errorf("reference: %w", err))
	}
	targets, tw, err := LoadSide(ctx, inv.Results)
	if err != nil {
		return nil, nil, nil, inputError(ctx, fmt.Errorf("results: %w", err))
	}
	if err := distinctRuns(refs, targets); err != nil {
		return nil, nil, nil, exit.With(exit.Usage, err)
	}
	if refs, targets, err = inv.selectSubs(refs, targets); err != nil {
		return nil, nil, nil, exit.With(exit.Usage, err)
	}
	return refs, targets, append(rw, tw...), nil
}

// seriesFile returns the series file of run ab that pairs the runs:
// --series, else the one NAME-series.csv in the folder holding the
// folders of both sides' runs (run ab's --out), else "" (nothing says the
// runs were interleaved: unpaired unless --paired). Several series files
// there are not guessed between: note says so.
func (inv Invocation) seriesFile() (path, note string, err error) {
	if inv.Series != "" {
		switch {
		case inv.Unpaired:
			return "", "", errors.New("--series and --unpaired: the series file pairs the runs; give one")
		case inv.Calibrate:
			return "", "", errors.New("--series does not go with --calibrate, which pools the runs")
		}
		return inv.Series, "", nil
	}
	if inv.Unpaired || inv.Calibrate {
		return "", "", nil
	}
	root, rootAbs := "", ""
	for _, d := range slices.Concat(inv.Reference, inv.Results) {
		folder := d
		if isExperiment(d) {
			folder = filepath.Dir(d)
		}
		abs, err := filepath.Abs(folder)
		if err != nil {
			return "", "", nil
		}
		if r := filepath.Dir(abs); rootAbs == "" {
			root, rootAbs = filepath.Dir(filepath.Clean(folder)), r
		} else if r != rootAbs {
			return "", "", nil // the sides are not one run ab's
		}
	}
	files, err := pairing.FindSeries(root)
	switch {
	case err != nil || len(files) == 0:
		return "", "", nil
	case len(files) > 1:
		return "", fmt.Sprintf("%d series files of run ab in %s (%s): none used, so the runs are not known to be interleaved; give the one to pair by with --series",
			len(files), root, strings.Join(files, ", ")), nil
	}
	return files[0], "", nil
}

// guard declares what compare reads and writes (see package clobber).
func (inv Invocation) guard() *clobber.Guard {
	g := &clobber.Guard{}
	for i, dirs := range [][]string{inv.Reference, inv.Results} {
		flag := []string{"reference", "results"}[i]
		for _, d := range dirs {
			if isExperiment(d) {
				g.Experiment("--"+flag, d)
			} else {
				g.Experiments("--"+flag, d)
			}
		}
	}
	for _, f := range report.Formats {
		g.Output("--"+f.Flag, inv.Reports[f.Flag])
	}
	g.Output("--html", inv.HTML)
	g.ReportDir("--plots-directory", inv.PlotsDirectory, "its comparison CSVs and plots", func(rel string) bool {
		return !strings.Contains(rel, "/") && (strings.HasSuffix(rel, "_comparison.csv") ||
			strings.HasSuffix(rel, plots.FormatPNG.Ext()) || strings.HasSuffix(rel, plots.FormatSVG.Ext()))
	})
	return g
}

// config reads the gating flags.
func (inv Invocation) config() (Config, plots.Format, error) {
	cfg := Config{AllowMissing: inv.AllowMissing, AllowIncomplete: inv.AllowIncomplete, Thresholds: map[string]float64{}}
	t, err := numflag.Tolerance.Parse(inv.FailThreshold)
	if err != nil {
		return cfg, "", fmt.Errorf("--fail-threshold: %w", err)
	}
	cfg.Threshold = t
	if inv.Given["columns"] {
		ms, err := result.ParseList(inv.Columns, result.CompareMetrics)
		if err != nil {
			return cfg, "", fmt.Errorf("--columns: %w", err)
		}
		cfg.Metrics = ms
	}
	ff, err := numflag.CompareLevel.Parse(inv.FalseFail)
	if err != nil {
		return cfg, "", fmt.Errorf("--false-fail: %w", err)
	}
	cfg.FalseFail = ff
	switch {
	case inv.Paired && inv.Unpaired:
		return cfg, "", errors.New("--paired and --unpaired: give one")
	case inv.Paired:
		cfg.Pairing = PairAlways
	case inv.Unpaired:
		cfg.Pairing = PairNever
	}
	for _, m := range []struct {
		flag, text string
		to         *float64
	}{{"--pass-margin", inv.PassMargin, &cfg.Margins.Pass}, {"--fail-margin", inv.FailMargin, &cfg.Margins.Fail}} {
		if *m.to, err = numflag.Tolerance.Parse(m.text); err != nil {
			return cfg, "", fmt.Errorf("%s: %w", m.flag, err)
		}
	}
	if cfg.Margins.Pass == 0 {
		return cfg, "", errors.New("--pass-margin 0: no comparison could pass; expected a margin above 0, e.g. 5%")
	}
	for _, s := range inv.Thresholds {
		col, t, err := ParseThreshold(s)
		if err != nil {
			return cfg, "", fmt.Errorf("--threshold: %w", err)
		}
		if _, dup := cfg.Thresholds[col]; dup {
			return cfg, "", fmt.Errorf("--threshold: column %q given twice", col)
		}
		cfg.Thresholds[col] = t
	}
	if err := cfg.Validate(); err != nil {
		return cfg, "", err
	}
	format, err := plots.ParseFormat(inv.Format)
	if err != nil {
		return cfg, "", fmt.Errorf("--format: %w", err)
	}
	return cfg, format, nil
}

// writeReports writes the report files asked for.
func (inv Invocation) writeReports(res *Result, v *gate.Verdict) error {
	if _, err := report.WriteFiles(v, "", func(flag string) string { return inv.Reports[flag] }); err != nil {
		return err
	}
	if path := inv.HTML; path != "" {
		page, err := res.Page(v)
		if err != nil {
			return fmt.Errorf("--html: %w", err)
		}
		if err := htmlreport.WriteFile(path, page); err != nil {
			return fmt.Errorf("--html: %w", err)
		}
	}
	return nil
}

// failureSummary says why the gate failed or could not decide, for the
// error line.
func failureSummary(res *Result, v *gate.Verdict) string {
	if v.Status == gate.Inconclusive && res.Mode == gate.ModePaired && v.Decision != nil {
		open := v.Decision.Open
		names := experiment.JoinNames(open, 5)
		units := res.Config.unitWord()
		if a := res.Analysis; a != nil {
			switch dep := a.Dependence; {
			case dep.Refused:
				return fmt.Sprintf("inconclusive: the verdict is refused, the %d %s being serially dependent (%s); interleave more %s, or rerun on a quieter machine",
					a.Units, units, dep.Text(), units)
			case a.Units < a.MinPairs || (dep.Block > 1 && dep.Units < a.MinPairs):
				return fmt.Sprintf("inconclusive: %d %s: no FAIL and no PASS below %d, the fewest with which an exact sign test of %s can reach the level %g%%; run at least %d (compare --plan says how many decide)",
					a.Units, units, a.MinPairs, plural(len(a.Checks), "check"), 100*a.Tail, a.MinPairs)
			}
		}
		return fmt.Sprintf("inconclusive: %s not shown within the pass margin with %d %s (%s); more %s would decide (compare --plan says how many)",
			plural(len(open), "check"), v.Decision.N, units, names, units)
	}
	if v.Status == gate.Inconclusive {
		return inconclusiveSummary(v)
	}
	var regressed, missing, noRatio int
	why := ""
	for _, s := range res.sections() {
		switch {
		case s.Missing() && !res.Config.AllowMissing:
			missing++
		case !s.Missing() && len(s.Failed()) > 0:
			regressed++
		}
		if !s.Missing() && !res.Config.AllowMissing {
			for _, c := range s.checkList() {
				if c.Status == gate.Missing {
					noRatio++
					why = cmp.Or(why, c.Message)
				}
			}
		}
	}
	msg := fmt.Sprintf("%d of %d sub-experiments regressed (%s over threshold)", regressed, len(res.Subs)+len(res.Throughputs), plural(v.Failed, "check"))
	if missing > 0 {
		msg += fmt.Sprintf("; %d missing from the results (use --allow-missing to pass without them)", missing)
	}
	if noRatio > 0 {
		// Checks of a sub-experiment both sides hold that could not be
		// judged (a run's value ≤ 0 forms no ratio): the gate failed on
		// them alone when nothing regressed.
		msg += fmt.Sprintf("; %s missing (%s; use --allow-missing to pass without them)", plural(noRatio, "check"), why)
	}
	return msg
}

// plural returns "1 check", "2 checks".
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// comparisonPlots are the names of the plots a comparison draws, as
// patterns: each latency sub-experiment's two (Figures), each throughput
// summary's one per load (window, rate_N_msgs, rate_unpaced).
var comparisonPlots = []string{"*_min_median", "*_max_99%", "throughput_*_window", "throughput_*_rate_*"}

// earlierComparisons lists the files in dir an earlier compare wrote: its
// comparison CSVs (<type>_comparison.csv) and plots (comparisonPlots, in
// either format). Those this call does not write again describe another
// comparison: left, a plot of a sub-experiment no longer compared (or
// drawn as png where this call draws svg) was shown beside this call's.
func earlierComparisons(dir string) ([]string, error) {
	patterns := []string{CSVFileName("*")}
	for _, p := range comparisonPlots {
		patterns = append(patterns, p+plots.FormatPNG.Ext(), p+plots.FormatSVG.Ext())
	}
	var out []string
	for _, p := range patterns {
		m, err := filepath.Glob(filepath.Join(dir, p))
		if err != nil {
			return nil, err
		}
		out = append(out, m...)
	}
	return out, nil
}

// runWord is "run" or "runs" after a count of n.
func runWord(n int) string {
	if n == 1 {
		return "run"
	}
	return "runs"
}

// nothingCompared is the error of sides that share no check: no latency
// nor throughput summary (burst summaries are checked against burst
// requirements, not compared).
func nothingCompared(r *Result) error {
	hint := ""
	for _, e := range slices.Concat(r.References, r.Targets) {
		if len(e.Bursts) > 0 {
			hint = fmt.Sprintf("; %s holds burst summaries, which compare does not compare: derive burst requirements (requirements --burst-output-file) and check the runs against them", e.Dir)
			break
		}
	}
	return fmt.Errorf("nothing to compare: the runs hold no latency summary (%s) nor throughput summary (%s) to compare%s",
		experiment.SummaryFileName("<type>"), experiment.ThroughputFileName("<type>"), hint)
}
