package history

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/changepoint"
	"github.com/mqgate/mqgate/internal/clobber"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/htmlreport"
	"github.com/mqgate/mqgate/internal/numflag"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/report"
	"github.com/mqgate/mqgate/internal/requirements"
)

// The ranges of history's whole-number flags: Run checks them, the help
// (internal/cliapp/historycmd) states them.
var (
	PermutationsRange = numflag.Int{Min: 1, Max: 1000000}
	MinSegmentRange   = numflag.Int{Min: changepoint.MinSegmentFloor, Max: 10000}
	ChangeWindowRange = numflag.Int{Min: 1, Max: 1000000, Zero: "every experiment"}
	GateWindowRange   = numflag.Int{Min: 1, Max: 1000000, Zero: "every experiment"}
)

// Config is one invocation of the history tool, as its command line gives
// it (internal/cliapp/historycmd), one field per flag.
type Config struct {
	Experiments     string            // --experiments-results
	Requirements    string            // --requirements: "" for none
	PlotsDirectory  string            // --plots-directory
	Format          string            // --format: png or svg
	HTML            string            // --html: "" for none
	JSON            string            // --json: "" for none
	AllowIncomplete bool              // --allow-incomplete
	Significance    string            // --significance: a fraction or a percentage
	Permutations    int               // --permutations
	MinSegment      int               // --min-segment
	Seed            uint64            // --seed
	ChangeWindow    int               // --change-window: 0 for every experiment
	Gate            bool              // --gate
	GateMetrics     string            // --gate-metrics: comma-separated magnitudes
	GateMetricsSet  bool              // --gate-metrics was given (it needs --gate)
	MinChange       string            // --min-change: a fraction or a percentage
	MinChangeSet    bool              // --min-change was given (it needs --gate)
	GateWindow      int               // --gate-window: 0 for every experiment
	GateWindowSet   bool              // --gate-window was given (it needs --gate)
	Acknowledged    string            // --acknowledged: "" for none (it needs --gate)
	GateReports     map[string]string // --gate-<format>: by report.Format flag, "" for none
	GateReportsSet  map[string]bool   // --gate-<format> was given (it needs --gate)
	SubExperiments  []string          // -s/--subexperiments: nil for every one
	// Stderr receives the warnings, one a line; nil discards them.
	Stderr io.Writer
}

// Run does what the history command does for cfg: it checks the flags,
// plots (Plot) and prints what it wrote, the change points and the gate's
// verdict to stdout. Errors carry their exit code (package exit).
func Run(ctx context.Context, cfg Config, stdout io.Writer) error {
	opt, err := plotOptions(cfg)
	if err != nil {
		return err
	}
	start := time.Now()
	res, err := Plot(ctx, opt)
	if err != nil {
		return err
	}
	printPlotted(stdout, cfg.Stderr, opt, res, start)
	if g := res.Gate; g != nil {
		return printGate(stdout, cfg.Stderr, g)
	}
	return nil
}

// plotOptions checks the flags of cfg and turns them into Plot's Options.
func plotOptions(cfg Config) (Options, error) {
	f, err := plots.ParseFormat(cfg.Format)
	if err != nil {
		return Options{}, exit.Usagef("--format: %v", err)
	}
	co, err := changeOptions(cfg)
	if err != nil {
		return Options{}, err
	}
	opt := Options{
		Experiments:     cfg.Experiments,
		Requirements:    cfg.Requirements,
		PlotsDir:        cfg.PlotsDirectory,
		Format:          f,
		HTML:            cfg.HTML,
		JSON:            cfg.JSON,
		AllowIncomplete: cfg.AllowIncomplete,
		Change:          co,
		SubExperiments:  cfg.SubExperiments,
	}
	if opt.Gate, err = gateOptions(cfg, co.MinSegment); err != nil {
		return Options{}, err
	}
	if opt.Gate != nil {
		opt.GateReports = cfg.GateReports
	}
	return opt, nil
}

// changeOptions checks the flags of cfg that say how change points are
// looked for (--significance, --permutations, --min-segment,
// --change-window) and returns them as ChangeOptions.
func changeOptions(cfg Config) (ChangeOptions, error) {
	alpha, err := numflag.Level.Parse(cfg.Significance)
	if err != nil {
		return ChangeOptions{}, exit.Usagef("--significance: %v", err)
	}
	co := ChangeOptions{
		Options: changepoint.Options{Alpha: alpha, Permutations: cfg.Permutations,
			MinSegment: cfg.MinSegment, Seed: cfg.Seed},
		Window: cfg.ChangeWindow,
	}
	for _, r := range []struct {
		flag string
		r    numflag.Int
		n    int
	}{{"--permutations", PermutationsRange, co.Permutations}, {"--min-segment", MinSegmentRange, co.MinSegment}, {"--change-window", ChangeWindowRange, co.Window}} {
		if err := r.r.Check(r.flag, r.n); err != nil {
			return ChangeOptions{}, exit.With(exit.Usage, err)
		}
	}
	if err := co.Options.Validate(); err != nil {
		return ChangeOptions{}, exit.Usagef("--permutations: %v (--significance %v)", err, alpha)
	}
	if co.Window == 0 {
		co.Window = AllExperiments
	}
	return co, nil
}

// gateOptions checks the gate's flags of cfg and returns the gate's
// options, nil without --gate; minSegment is --min-segment. A flag that
// needs --gate is refused without it.
func gateOptions(cfg Config, minSegment int) (*GateOptions, error) {
	if !cfg.Gate {
		if given := gateOnly(cfg); len(given) > 0 {
			verb := "needs"
			if len(given) > 1 {
				verb = "need"
			}
			return nil, exit.Usagef("%s %s --gate", strings.Join(given, ", "), verb)
		}
		for _, f := range report.Formats {
			if cfg.GateReportsSet[f.Flag] {
				return nil, exit.Usagef("--gate-%s needs --gate", f.Flag)
			}
		}
		return nil, nil
	}
	g, err := parseGate(cfg.GateMetrics, cfg.MinChange)
	if err != nil {
		return nil, err
	}
	if err := GateWindowRange.Check("--gate-window", cfg.GateWindow); err != nil {
		return nil, exit.With(exit.Usage, err)
	}
	if cfg.GateWindow > 0 && cfg.GateWindow < minSegment {
		return nil, exit.Usagef("--gate-window %d is below --min-segment %d: a change point needs --min-segment experiments after it, so none could be judged", cfg.GateWindow, minSegment)
	}
	g.Window, g.AcksFile = cfg.GateWindow, cfg.Acknowledged
	return g, nil
}

// printPlotted writes the history's warnings to stderr (none when it is
// nil), and to stdout what Plot wrote for opt, the time since start and
// the change points found.
func printPlotted(stdout, stderr io.Writer, opt Options, res *Result, start time.Time) {
	h := res.History
	if stderr != nil {
		for _, w := range h.Warnings {
			fmt.Fprintf(stderr, "history: warning: %s\n", w)
		}
	}
	fmt.Fprintf(stdout, "%d experiment(s), %d sub-experiment(s): %d plots in %s, values in %s (%.2f s)\n",
		len(h.Experiments), len(h.SubExperiments), res.Plots, opt.PlotsDir, res.CSV, time.Since(start).Seconds())
	series, short := h.ChangeSummary()
	cs := h.Changes()
	line := fmt.Sprintf("change points: %d in %d series", len(cs), series)
	if h.ChangeFrom > 0 {
		line += fmt.Sprintf(" over the newest %d experiments", len(h.Experiments)-h.ChangeFrom)
	}
	if short > 0 {
		line += fmt.Sprintf(" (%d series too short to test: fewer than %d values)", short, 2*h.ChangeOptions.MinSegment)
	}
	fmt.Fprintln(stdout, line)
	if opt.HTML != "" {
		fmt.Fprintf(stdout, "HTML report: %s\n", opt.HTML)
	}
	if opt.JSON != "" {
		fmt.Fprintf(stdout, "JSON report: %s\n", opt.JSON)
	}
}

// printGate writes the gate's warnings to stderr (none when it is nil; not
// the first of an inconclusive verdict, which its error says), and its
// failed checks and summary to stdout. It returns the verdict's exit
// error, nil when the gate passed.
func printGate(stdout, stderr io.Writer, g *GateResult) error {
	for i, w := range g.Verdict.Warnings {
		if stderr != nil && (i > 0 || g.Verdict.Status != gate.Inconclusive) {
			fmt.Fprintf(stderr, "history: warning: %s\n", w)
		}
	}
	for _, ck := range g.Verdict.Checks {
		if ck.Status == gate.Failed {
			fmt.Fprintf(stdout, "FAILED %s, %d bytes, %s: %s\n", ck.SubExperiment, ck.Payload, ck.Metric.Name, ck.Message)
		}
	}
	fmt.Fprintf(stdout, "gate %s\n", g.Summary())
	switch g.Verdict.Status {
	case gate.Inconclusive:
		return exit.With(g.Verdict.ExitCode(), fmt.Errorf("inconclusive: %s", g.Verdict.Warnings[0]))
	case gate.Failed:
		return exit.With(g.Verdict.ExitCode(), fmt.Errorf("%d series end in a significant slowdown", len(g.Failures())))
	}
	return nil
}

// Options is what a history does, once its flags are read (Run) and checked.
type Options struct {
	// Experiments is the results root, one folder per experiment.
	Experiments string
	// Requirements is the requirements CSV (formats §4).
	Requirements string
	// PlotsDir receives the plots and history.csv.
	PlotsDir string
	Format   plots.Format
	// HTML, when set, is the path of the HTML report.
	HTML string
	// Workers draw plots in parallel; GOMAXPROCS when ≤ 0.
	Workers int
	// AllowIncomplete admits experiments whose run did not complete; their
	// labels and the warnings say so.
	AllowIncomplete bool
	// Change says how change points are looked for.
	Change ChangeOptions
	// Gate, when set, judges every series by the change points in its
	// window and its trend (exit code 1 on a significant slowdown).
	Gate *GateOptions
	// JSON, when set, is the path of the JSON report.
	JSON string
	// GateReports are the files the gate's verdict is written to, by
	// report.Format flag ("junit"; --gate-junit).
	GateReports map[string]string
	// SubExperiments, when given, are the only sub-experiments plotted
	// and gated (-s/--subexperiments).
	SubExperiments []string
}

// Result says what Plot did.
type Result struct {
	History *History
	// Plots is the number of plots drawn.
	Plots int
	// CSV is the path of history.csv.
	CSV string
	// Gate is the verdict when Options.Gate was set.
	Gate *GateResult
	// ChangeTime is the time change-point detection and the gate took.
	ChangeTime time.Duration
}

// Plot reads the requirements and experiments of cfg and writes the history
// plots, history.csv and, when asked, the HTML report. Input errors are
// exit-code-2 errors that name the file and line.
func Plot(ctx context.Context, cfg Options) (*Result, error) {
	if err := Guard(cfg).Check(); err != nil {
		return nil, err
	}
	reqs, burstReqs, err := readRequirements(cfg.Requirements)
	if err != nil {
		return nil, err
	}
	if cfg, err = withAcks(cfg); err != nil {
		return nil, err
	}
	h, err := loadHistory(ctx, cfg, reqs, burstReqs)
	if err != nil {
		return nil, err
	}
	if cfg.Change.Workers == 0 {
		cfg.Change.Workers = cfg.Workers
	}
	t0 := time.Now()
	verdict, err := h.detectAndGate(ctx, cfg.Change, cfg.Gate)
	if err != nil {
		return nil, err
	}
	changeTime := time.Since(t0)
	jobs := h.Jobs()
	opt := RenderOptions{Dir: cfg.PlotsDir, Format: cfg.Format, Workers: cfg.Workers}
	if cfg.HTML != "" {
		opt.SVG = make([][]byte, len(jobs))
	}
	csvPath, err := h.render(ctx, jobs, opt)
	if err != nil {
		return nil, err
	}
	if err := h.writeReports(cfg, jobs, opt.SVG, verdict); err != nil {
		return nil, err
	}
	return &Result{History: h, Plots: len(jobs), CSV: csvPath, Gate: verdict, ChangeTime: changeTime}, nil
}

// readRequirements reads the requirements file at path: latency
// requirements, or burst requirements; none when path is "". Its errors
// are usage errors.
func readRequirements(path string) (reqs, burstReqs []requirements.KeyedRow, err error) {
	switch {
	case path == "":
	case requirements.IsBurstFile(path):
		burstReqs, err = requirements.ReadBurstFile(path)
	default:
		reqs, err = requirements.ReadFile(path)
	}
	if err != nil {
		return nil, nil, exit.With(exit.Usage, err)
	}
	return reqs, burstReqs, nil
}

// withAcks returns cfg with the acknowledgements of the gate's
// acknowledgements file read into a copy of its gate options. Its errors
// are usage errors.
func withAcks(cfg Options) (Options, error) {
	if cfg.Gate != nil && cfg.Gate.AcksFile != "" {
		g := *cfg.Gate
		var err error
		if g.Acks, err = ReadAcksFile(g.AcksFile); err != nil {
			return cfg, exit.With(exit.Usage, err)
		}
		cfg.Gate = &g
	}
	return cfg, nil
}

// loadHistory loads the experiments of cfg (its sub-experiments alone,
// when it names them) with the latency requirements reqs and burst
// requirements burstReqs, and refuses latency requirements measured
// differently from the experiments.
func loadHistory(ctx context.Context, cfg Options, reqs, burstReqs []requirements.KeyedRow) (*History, error) {
	h, err := Load(ctx, cfg.Experiments, reqs, cfg.AllowIncomplete, cfg.SubExperiments...)
	if err != nil {
		return nil, interruptedOr(ctx, err)
	}
	burst := selectedRows(burstReqs, cfg.SubExperiments)
	for _, s := range h.SubExperiments {
		if s.Burst {
			s.setRequirements(burst) // a burst requirements file, formats §9
		}
	}
	if reqs != nil && h.hasLatency() {
		if err := experiment.MatchLatency("the requirements file "+cfg.Requirements, requirements.LatencyOf(reqs), h.Latency); err != nil {
			return nil, exit.With(exit.Usage, err)
		}
	}
	return h, nil
}

// detectAndGate looks for the change points of h with co and, when g is
// set, gates them: it returns the verdict, nil without g.
func (h *History) detectAndGate(ctx context.Context, co ChangeOptions, g *GateOptions) (*GateResult, error) {
	if err := h.DetectChanges(ctx, co); err != nil {
		return nil, interruptedOr(ctx, err)
	}
	if g == nil {
		return nil, nil
	}
	verdict, err := h.Gate(ctx, *g)
	if err != nil {
		return nil, interruptedOr(ctx, err)
	}
	return verdict, nil
}

// render draws the plots of jobs with opt and writes history.csv into
// opt.Dir while they are drawn: with 1,000 experiments it is half a
// million rows. It returns the path of history.csv.
func (h *History) render(ctx context.Context, jobs []Job, opt RenderOptions) (string, error) {
	csvPath := filepath.Join(opt.Dir, CSVFileName)
	earlier, err := earlierPlots(opt.Dir)
	if err != nil {
		return "", exit.With(exit.Usage, err)
	}
	csvErr := make(chan error, 1)
	go func() { csvErr <- h.WriteCSVFile(csvPath) }()
	err = RenderPlots(ctx, jobs, opt)
	if cerr := <-csvErr; cerr != nil {
		return "", cerr
	}
	if err != nil {
		return "", interruptedOr(ctx, err)
	}
	drawn := map[string]bool{}
	for _, j := range jobs {
		drawn[filepath.Join(opt.Dir, j.Name+opt.Format.Ext())] = true
	}
	for _, f := range earlier {
		if drawn[f] {
			continue
		}
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			return "", exit.Usagef("--plots-directory: cannot remove the earlier plot %s: %v", f, err)
		}
		os.Remove(filepath.Dir(f)) // the sub-experiment's folder, once empty
	}
	return csvPath, nil
}

// earlierPlots lists the plots an earlier history drew into dir
// (<type>/history_* and <type>/<bytes>_bytes_*, either format). Those this
// call does not draw again, removed once its own are drawn, were of a
// sub-experiment or payload no longer in the history (or -s), or of the
// other format: left, they were shown beside this call's as if of it.
func earlierPlots(dir string) ([]string, error) {
	var out []string
	for _, p := range []string{"history_*", "*_bytes_*"} {
		for _, f := range []plots.Format{plots.FormatPNG, plots.FormatSVG} {
			m, err := filepath.Glob(filepath.Join(dir, "*", p+f.Ext()))
			if err != nil {
				return nil, err
			}
			out = append(out, m...)
		}
	}
	return out, nil
}

// writeReports writes the reports cfg asks for: the HTML report, with
// the plots of jobs drawn as svg, the JSON report, and the gate's verdict
// (nil without --gate) in the report formats.
func (h *History) writeReports(cfg Options, jobs []Job, svg [][]byte, verdict *GateResult) error {
	if cfg.HTML != "" {
		page := h.PageWithGate(jobs, svg, []htmlreport.KV{
			{Key: "Experiments", Value: cfg.Experiments},
			{Key: "Requirements", Value: cfg.Requirements},
			{Key: "Generated", Value: time.Now().UTC().Format(time.RFC3339)},
		}, verdict)
		if err := htmlreport.WriteFile(cfg.HTML, page); err != nil {
			return err
		}
	}
	if cfg.JSON != "" {
		if err := WriteJSONFile(cfg.JSON, h.JSONDoc(verdict)); err != nil {
			return err
		}
	}
	if verdict != nil {
		verdict.Verdict.Subject = cfg.Experiments
		if _, err := report.WriteFiles(verdict.Verdict, "gate-", func(flag string) string { return cfg.GateReports[flag] }); err != nil {
			return err
		}
	}
	return nil
}

// Guard declares what a history with cfg reads and writes (see package
// clobber), by the flags that name them.
func Guard(cfg Options) *clobber.Guard {
	g := &clobber.Guard{}
	g.Experiments("--experiments-results", cfg.Experiments)
	g.File("--requirements", cfg.Requirements)
	if cfg.Gate != nil {
		g.File("--acknowledged", cfg.Gate.AcksFile)
	}
	g.Output("--html", cfg.HTML)
	g.Output("--json", cfg.JSON)
	for _, f := range report.Formats {
		g.Output("--gate-"+f.Flag, cfg.GateReports[f.Flag])
	}
	g.ReportDir("--plots-directory", cfg.PlotsDir, CSVFileName+" and its plots <type>/history_*, <type>/<bytes>_bytes_*", func(rel string) bool {
		if rel == CSVFileName {
			return true
		}
		dir, name, ok := strings.Cut(rel, "/")
		return ok && dir != "" && !strings.Contains(name, "/") && (strings.HasPrefix(name, "history_") || strings.Contains(name, "_bytes_"))
	})
	return g
}

// interruptedOr maps a cancelled context to the interrupted exit code and
// anything else to an input error. An interruption says so, not what the
// cancelled context's error says ("context canceled").
func interruptedOr(ctx context.Context, err error) error {
	if exit.Cancelled(ctx) {
		return exit.ErrInterrupted
	}
	return exit.With(exit.Usage, err)
}

// gateOnly returns the flags of cfg given that need --gate (reports aside).
func gateOnly(cfg Config) []string {
	var given []string
	for _, f := range []struct {
		name string
		set  bool
	}{{"--gate-metrics", cfg.GateMetricsSet}, {"--min-change (--gate-threshold)", cfg.MinChangeSet},
		{"--gate-window", cfg.GateWindowSet}, {"--acknowledged", cfg.Acknowledged != ""}} {
		if f.set {
			given = append(given, f.name)
		}
	}
	return given
}

// parseGate reads --gate-metrics and --min-change.
func parseGate(metrics, minChange string) (*GateOptions, error) {
	g := &GateOptions{}
	for _, m := range strings.Split(metrics, ",") {
		m = strings.TrimSpace(m)
		if m == "" {
			continue
		}
		name := magnitudeNamed(Magnitudes, m)
		if name == "" {
			return nil, exit.Usagef("--gate-metrics: unknown magnitude %q: expected a comma-separated list of %s", m, strings.Join(Magnitudes, ", "))
		}
		g.Metrics = appendNew(g.Metrics, name)
	}
	if len(g.Metrics) == 0 {
		return nil, exit.Usagef("--gate-metrics %q: expected a comma-separated list of %s", metrics, strings.Join(Magnitudes, ", "))
	}
	t, err := numflag.Tolerance.Parse(minChange)
	if err != nil {
		return nil, exit.Usagef("--min-change: %v", err)
	}
	g.MinChange = t
	return g, nil
}
