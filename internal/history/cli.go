package history

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/changepoint"
	"github.com/mqgate/mqgate/internal/cliapp"
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

// The ranges of history's whole-number flags.
var (
	permutationsRange = numflag.Int{Min: 1, Max: 1000000}
	minSegmentRange   = numflag.Int{Min: changepoint.MinSegmentFloor, Max: 10000}
	changeWindowRange = numflag.Int{Min: 1, Max: 1000000, Zero: "every experiment"}
)

// Config is what the history command does.
type Config struct {
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
	// Gate, when set, judges the newest segments (exit code 1 on a
	// significant slowdown).
	Gate *GateOptions
	// JSON, when set, is the path of the JSON report.
	JSON string
	// GateReports are the files the gate's verdict is written to, by
	// report.Format flag ("junit"; --gate-junit).
	GateReports map[string]string
}

// Result says what Run did.
type Result struct {
	History *History
	// Plots is the number of plots drawn.
	Plots int
	// CSV is the path of history.csv.
	CSV string
	// Gate is the verdict when Config.Gate was set.
	Gate *GateResult
	// ChangeTime is the time change-point detection and the gate took.
	ChangeTime time.Duration
}

// Run reads the requirements and experiments of cfg and writes the history
// plots, history.csv and, when asked, the HTML report. Input errors are
// exit-code-2 errors that name the file and line.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if err := Guard(cfg).Check(); err != nil {
		return nil, err
	}
	var reqs []requirements.Row
	var err error
	if cfg.Requirements != "" {
		reqs, err = requirements.ReadFile(cfg.Requirements)
		if err != nil {
			return nil, exit.With(exit.Usage, err)
		}
	}
	h, err := Load(ctx, cfg.Experiments, reqs, cfg.AllowIncomplete)
	if err != nil {
		return nil, interruptedOr(ctx, err)
	}
	if reqs != nil && h.hasLatency() {
		if err := experiment.MatchLatency("the requirements file "+cfg.Requirements, requirements.LatencyOf(reqs), h.Latency); err != nil {
			return nil, exit.With(exit.Usage, err)
		}
	}
	if cfg.Change.Workers == 0 {
		cfg.Change.Workers = cfg.Workers
	}
	t0 := time.Now()
	if err := h.DetectChanges(ctx, cfg.Change); err != nil {
		return nil, interruptedOr(ctx, err)
	}
	var verdict *GateResult
	if cfg.Gate != nil {
		if verdict, err = h.Gate(ctx, *cfg.Gate); err != nil {
			return nil, interruptedOr(ctx, err)
		}
	}
	changeTime := time.Since(t0)
	jobs := h.Jobs()
	opt := RenderOptions{Dir: cfg.PlotsDir, Format: cfg.Format, Workers: cfg.Workers}
	if cfg.HTML != "" {
		opt.SVG = make([][]byte, len(jobs))
	}
	// history.csv is written while the plots are drawn: with 1,000
	// experiments it is half a million rows.
	csvPath := filepath.Join(cfg.PlotsDir, CSVFileName)
	csvErr := make(chan error, 1)
	go func() { csvErr <- h.WriteCSVFile(csvPath) }()
	err = RenderPlots(ctx, jobs, opt)
	if cerr := <-csvErr; cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, interruptedOr(ctx, err)
	}
	if cfg.HTML != "" {
		page := h.PageWithGate(jobs, opt.SVG, []htmlreport.KV{
			{Key: "Experiments", Value: cfg.Experiments},
			{Key: "Requirements", Value: cfg.Requirements},
			{Key: "Generated", Value: time.Now().UTC().Format(time.RFC3339)},
		}, verdict)
		if err := htmlreport.WriteFile(cfg.HTML, page); err != nil {
			return nil, err
		}
	}
	if cfg.JSON != "" {
		if err := WriteJSONFile(cfg.JSON, h.JSONDoc(verdict)); err != nil {
			return nil, err
		}
	}
	if verdict != nil {
		verdict.Verdict.Subject = cfg.Experiments
		if _, err := report.WriteFiles(verdict.Verdict, "gate-", func(flag string) string { return cfg.GateReports[flag] }); err != nil {
			return nil, err
		}
	}
	return &Result{History: h, Plots: len(jobs), CSV: csvPath, Gate: verdict, ChangeTime: changeTime}, nil
}

// Guard declares what a history with cfg reads and writes (see package
// clobber), by the flags that name them.
func Guard(cfg Config) *clobber.Guard {
	g := &clobber.Guard{}
	g.Experiments("--experiments-results", cfg.Experiments)
	g.File("--requirements", cfg.Requirements)
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
// anything else to an input error.
func interruptedOr(ctx context.Context, err error) error {
	if exit.Cancelled(ctx) {
		return exit.With(exit.Interrupted, err)
	}
	return exit.With(exit.Usage, err)
}

// App returns the history command.
func App() *cli.App {
	return &cli.App{
		Name:      "history",
		Usage:     "plot latency across experiments (commits, builds), find where it shifted, and gate on the newest shift",
		UsageText: "history --experiments-results DIR --requirements FILE --plots-directory DIR [--format png|svg] [--html FILE] [--json FILE] [--gate]",
		Description: `Orders the experiments under DIR chronologically (meta.json start time, else the folder name
YYYY-MM-DD_HH-MM-SS) and draws, for each sub-experiment:
  <plots>/<type>/history_<Min|Median|Max|99>.<ext>    experiments along x, one series per payload
  <plots>/<type>/<bytes>_bytes_<Median|99|Max>.<ext>  one payload against its requirement,
                                                      points over the requirement marked
and writes every plotted value to <plots>/history.csv. Missing sub-experiments or payloads are
gaps in the lines and are reported as warnings. An experiment folder is a directory (or a
symbolic link to one) holding summaries; every other entry is skipped with a warning. An
incomplete run (meta.json "completed": false) is an error unless --allow-incomplete, and so
are experiments, or requirements, that measure latency differently.

Throughput summaries (throughput_<type>.csv, formats §9) are followed too: one series per
sub-experiment, offered load and payload, named throughput_<type>_window, _rate_<N> or
_rate_unpaced, of the Median [msg/s] (higher is better). Their change points are "slower" when
the throughput fell; --gate always judges them, and fails on a significant drop, never a rise.

Change points: every series (sub-experiment, payload, magnitude) of the newest --change-window
experiments is split where its distribution shifts, by E-divisive means (the energy statistic;
each split kept only when a permutation test with --permutations seeded shuffles finds it
significant at --significance; segments of at least --min-segment experiments). A series with
fewer than 2 × --min-segment values is not tested. Change points are marked on the plots
(dashed line and segment medians on payload plots, triangles on magnitude plots) and listed in
history.csv (columns change, change-ratio, change-p on the experiment where the new segment
begins), in --json and in --html, with the experiment, its commit and the shift (new segment's
median over the previous one's).

--gate judges the newest segment of each --gate-metrics series: the gate fails (exit 1) when a
newest segment is slower than the one before by more than --gate-threshold and a permutation
test of those two segments finds it significant after Holm's correction over all judged
series, so that an unchanged system fails with probability at most --significance. A slowdown
is seen once --min-segment experiments have it. The gate's verdict, one check per judged series,
is also written in the report formats of check and compare with --gate-junit, --gate-markdown
and --gate-json FILE.

Examples:
  history --experiments-results results --requirements latency_requirements.csv --plots-directory history
  history --experiments_results results --requirements latency_requirements.csv --plots_directory history \
          --format svg --html history.html
  history --experiments-results results --requirements latency_requirements.csv --plots-directory history \
          --significance 0.05 --json history.json

As a CI gate (exit 1 on a significant slowdown of more than 5 %; 3 while no series has 10 experiments):
  history -e results -r latency_requirements.csv -p history --gate --gate-threshold 5%
  history -e results -r latency_requirements.csv -p history --gate --gate-junit history.xml --gate-markdown history.md

Exit status: 0 done (with --gate: no significant slowdown), 1 (--gate) the newest segment of a
series is a significant slowdown, 2 usage or input error, 3 (--gate) inconclusive: no series
has 2 × --min-segment experiments to test, 130 interrupted.`,
		HideHelpCommand: true,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "experiments-results", Aliases: []string{"experiments_results", "e"}, Required: true,
				Usage: "directory holding one folder per experiment", TakesFile: true},
			&cli.StringFlag{Name: "requirements", Aliases: []string{"r"},
				Usage: "requirements CSV (Experiment type,Bytes,Median,99%,Max); without it the plots have no requirement line", TakesFile: true},
			&cli.StringFlag{Name: "plots-directory", Aliases: []string{"plots_directory", "p"}, Required: true,
				Usage: "directory for the plots and history.csv", TakesFile: true},
			&cli.StringFlag{Name: "format", Value: string(plots.FormatPNG), Usage: "plot image format: png or svg"},
			&cli.StringFlag{Name: "html", Usage: "also write a self-contained HTML report to `FILE`", TakesFile: true},
			&cli.StringFlag{Name: "json", Usage: "also write the change points (and the gate's verdict) as JSON to `FILE`", TakesFile: true},
			&cli.BoolFlag{Name: "allow-incomplete", Aliases: []string{"allow_incomplete"},
				Usage: "include experiments whose run did not complete (meta.json \"completed\": false), labelled so"},
			&cli.StringFlag{Name: "significance", Value: strconv.FormatFloat(changepoint.DefaultAlpha, 'g', -1, 64),
				Usage: "significance level of each change point, and family-wise level of --gate: a fraction (0.01) or a percentage (1%), " + numflag.Level.Text()},
			&cli.IntFlag{Name: "permutations", Value: changepoint.DefaultPermutations,
				Usage: "shuffles per permutation test (the smallest p-value is 1/(permutations+1)), " + permutationsRange.Text() + ", at least 1/significance − 1"},
			&cli.IntFlag{Name: "min-segment", Value: changepoint.MinSegmentFloor,
				Usage: "fewest experiments in a segment, " + minSegmentRange.Text()},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the permutations: equal inputs and seed, equal change points; any whole number from 0 to 2^64-1"},
			&cli.IntFlag{Name: "change-window", Value: DefaultChangeWindow,
				Usage: "look for change points among the newest `N` experiments (the cost grows with N²), " + changeWindowRange.Text()},
			&cli.BoolFlag{Name: "gate", Usage: "exit 1 when the newest segment of a judged series is a significant slowdown"},
			&cli.StringFlag{Name: "gate-metrics", Value: strings.Join(DefaultGateMetrics, ","),
				Usage: "magnitudes --gate judges, comma-separated: " + strings.Join(Magnitudes, ", ")},
			&cli.StringFlag{Name: "gate-threshold", Value: "0",
				Usage: "least slowdown --gate fails on, as a fraction (0.05) or percentage (5%), " + numflag.Tolerance.Text()},
		}, cliapp.ReportFlags("gate-", "with --gate, ")...),
		Action: action,
	}
}

func action(c *cli.Context) error {
	if err := cliapp.NoArgs(c); err != nil {
		return err
	}
	f, err := plots.ParseFormat(c.String("format"))
	if err != nil {
		return exit.Usagef("--format: %v", err)
	}
	alpha, err := numflag.Level.Parse(c.String("significance"))
	if err != nil {
		return exit.Usagef("--significance: %v", err)
	}
	co := ChangeOptions{
		Options: changepoint.Options{Alpha: alpha, Permutations: c.Int("permutations"),
			MinSegment: c.Int("min-segment"), Seed: c.Uint64("seed")},
		Window: c.Int("change-window"),
	}
	for _, r := range []struct {
		flag string
		r    numflag.Int
		n    int
	}{{"--permutations", permutationsRange, co.Permutations}, {"--min-segment", minSegmentRange, co.MinSegment}, {"--change-window", changeWindowRange, co.Window}} {
		if err := r.r.Check(r.flag, r.n); err != nil {
			return exit.With(exit.Usage, err)
		}
	}
	if err := co.Options.Validate(); err != nil {
		return exit.Usagef("--permutations: %v (--significance %v)", err, alpha)
	}
	if co.Window == 0 {
		co.Window = AllExperiments
	}
	cfg := Config{
		Experiments:     c.String("experiments-results"),
		Requirements:    c.String("requirements"),
		PlotsDir:        c.String("plots-directory"),
		Format:          f,
		HTML:            c.String("html"),
		JSON:            c.String("json"),
		AllowIncomplete: c.Bool("allow-incomplete"),
		Change:          co,
	}
	if c.Bool("gate") {
		g, err := parseGate(c.String("gate-metrics"), c.String("gate-threshold"))
		if err != nil {
			return err
		}
		cfg.Gate = g
		cfg.GateReports = cliapp.Reports(c, "gate-")
	} else if c.IsSet("gate-metrics") || c.IsSet("gate-threshold") {
		return exit.Usagef("--gate-metrics and --gate-threshold need --gate")
	} else {
		for _, f := range report.Formats {
			if c.IsSet("gate-" + f.Flag) {
				return exit.Usagef("--gate-%s needs --gate", f.Flag)
			}
		}
	}
	start := time.Now()
	res, err := Run(c.Context, cfg)
	if err != nil {
		return err
	}
	h := res.History
	for _, w := range h.Warnings {
		fmt.Fprintf(c.App.ErrWriter, "%s: warning: %s\n", c.App.Name, w)
	}
	fmt.Fprintf(c.App.Writer, "%d experiment(s), %d sub-experiment(s): %d plots in %s, values in %s (%.2f s)\n",
		len(h.Experiments), len(h.SubExperiments), res.Plots, cfg.PlotsDir, res.CSV, time.Since(start).Seconds())
	series, short := h.ChangeSummary()
	cs := h.Changes()
	line := fmt.Sprintf("change points: %d in %d series", len(cs), series)
	if h.ChangeFrom > 0 {
		line += fmt.Sprintf(" over the newest %d experiments", len(h.Experiments)-h.ChangeFrom)
	}
	if short > 0 {
		line += fmt.Sprintf(" (%d series too short to test: fewer than %d values)", short, 2*h.ChangeOptions.MinSegment)
	}
	fmt.Fprintln(c.App.Writer, line)
	if cfg.HTML != "" {
		fmt.Fprintf(c.App.Writer, "HTML report: %s\n", cfg.HTML)
	}
	if cfg.JSON != "" {
		fmt.Fprintf(c.App.Writer, "JSON report: %s\n", cfg.JSON)
	}
	if g := res.Gate; g != nil {
		for _, ck := range g.Verdict.Checks {
			if ck.Status == gate.Failed {
				fmt.Fprintf(c.App.Writer, "FAILED %s, %d bytes, %s: %s\n", ck.SubExperiment, ck.Payload, ck.Metric.Name, ck.Message)
			}
		}
		fmt.Fprintf(c.App.Writer, "gate %s\n", g.Summary())
		switch g.Verdict.Status {
		case gate.Inconclusive:
			return exit.With(g.Verdict.ExitCode(), fmt.Errorf("inconclusive: %s", g.Verdict.Warnings[0]))
		case gate.Failed:
			return exit.With(g.Verdict.ExitCode(), fmt.Errorf("%d series end in a significant slowdown", len(g.Failures())))
		}
	}
	return nil
}

// parseGate reads --gate-metrics and --gate-threshold.
func parseGate(metrics, threshold string) (*GateOptions, error) {
	g := &GateOptions{}
	for _, m := range strings.Split(metrics, ",") {
		m = strings.TrimSpace(m)
		if m == "" {
			continue
		}
		k := -1
		for i, name := range Magnitudes {
			if strings.EqualFold(name, m) || strings.EqualFold(fileMagnitude(name), m) {
				k = i
			}
		}
		if k < 0 {
			return nil, exit.Usagef("--gate-metrics: unknown magnitude %q: expected a comma-separated list of %s", m, strings.Join(Magnitudes, ", "))
		}
		if !slices.Contains(g.Metrics, Magnitudes[k]) {
			g.Metrics = append(g.Metrics, Magnitudes[k])
		}
	}
	if len(g.Metrics) == 0 {
		return nil, exit.Usagef("--gate-metrics %q: expected a comma-separated list of %s", metrics, strings.Join(Magnitudes, ", "))
	}
	t, err := numflag.Tolerance.Parse(threshold)
	if err != nil {
		return nil, exit.Usagef("--gate-threshold: %v", err)
	}
	g.Threshold = t
	return g, nil
}
