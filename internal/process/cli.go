package process

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/clobber"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/htmlreport"
	"github.com/mqgate/mqgate/internal/plots"
)

// App returns the process command.
func App() *cli.App {
	return &cli.App{
		Name:      "process",
		Usage:     "summarise raw latency measurements and plot them",
		UsageText: "process [options] EXPERIMENT_DIR\n   process --raw_csv FILE --output_csv FILE --plots_directory DIR",
		Description: `process reads every measurements_<type>.csv in EXPERIMENT_DIR and writes beside it
measurements_<type>_summary.csv (one row per payload: Max, Min, Mean, Median, Stdev,
jitter, 90%, 99%, 99.99%, numpy-exact), and under EXPERIMENT_DIR/plots a latency
histogram and a time series per payload and four comparison plots across
sub-experiments (min, median, max and 99th percentile vs payload).

With --raw_csv it processes one file as the Fast-RTPS latency_process_results.py
script does; --output-csv applies to that mode only.

Sample counts 1, 2, 3, ... from the first row and, at each new payload, either
starts again at 1 (as run writes it) or carries on (as Fast-RTPS LatencyTest
does: 16 B 1-10000, 32 B 10001-20000, ...), the same way throughout the file,
each payload's rows together (formats §2). A file that fits neither (a gap, a
repeat, a count going back, a payload reappearing) is refused, naming the line
and the sample expected. --lenient-samples summarises such a file anyway: every
row counts whatever its Sample, and a payload whose rows reappear is summarised
with its earlier rows.

Examples:
   process results/2026-11-21_09-00-00
   process --no-plots results/2026-11-21_09-00-00
   process --format svg --plots-directory /tmp/plots results/2026-11-21_09-00-00
   process --html report.html results/2026-11-21_09-00-00
   process --raw_csv measurements_interprocess_reliable.csv \
           --output_csv measurements_interprocess_reliable_summary.csv \
           --plots_directory plots/measurements_interprocess_reliable

Exit status: 0 done, 2 bad usage or input (no summary is left for a raw file that
could not be read), 130 interrupted.`,
		HideHelpCommand: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "raw-csv", Aliases: []string{"raw_csv", "c"}, Usage: "process this one raw `FILE` instead of a directory"},
			&cli.StringFlag{Name: "output-csv", Aliases: []string{"output_csv", "o"}, Usage: "summary `FILE` for --raw-csv (default: <raw>_summary.csv beside it); not with EXPERIMENT_DIR"},
			&cli.StringFlag{Name: "plots-directory", Aliases: []string{"plots_directory", "p"}, Usage: "`DIR` for the plots (default: EXPERIMENT_DIR/plots, or plots/<raw name> beside --raw-csv)"},
			&cli.BoolFlag{Name: "no-plots", Usage: "write summaries only"},
			&cli.StringFlag{Name: "format", Value: "png", Usage: "plot image `FORMAT`: png or svg"},
			&cli.BoolFlag{Name: "lenient-samples", Usage: "accept any Sample numbering (gaps, repeats, going back) and payloads that reappear; without it, formats §2's two numberings"},
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Usage: "payloads processed at once, 1 to 256", DefaultText: "number of CPUs, at most 256"},
			&cli.StringFlag{Name: "html", Usage: "also write one self-contained HTML report `FILE` (tables and every plot, inline)"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print nothing but errors"},
		},
		Action: action,
	}
}

func action(c *cli.Context) error {
	format, err := plots.ParseFormat(c.String("format"))
	if err != nil {
		return exit.Usagef("--format: %v", err)
	}
	if jobs := c.Int("jobs"); c.IsSet("jobs") && (jobs < 1 || jobs > MaxJobs) {
		return exit.Usagef("--jobs %d: expected 1 to %d payloads processed at once (without --jobs: the number of CPUs, at most %d)",
			jobs, MaxJobs, MaxJobs)
	}
	htmlPath := c.String("html")
	opt := Options{Plots: !c.Bool("no-plots"), Format: format, Workers: c.Int("jobs"), Figures: htmlPath != "",
		LenientSamples: c.Bool("lenient-samples")}

	var inputs []Input
	dirMode := false
	switch raw := c.String("raw-csv"); {
	case raw != "" && c.NArg() > 0:
		return exit.Usagef("give either EXPERIMENT_DIR or --raw-csv, not both")
	case raw == "" && c.NArg() == 0:
		return exit.Usagef("EXPERIMENT_DIR (or --raw-csv FILE) is required (see 'process --help')")
	case c.NArg() > 1:
		return exit.Usagef("one EXPERIMENT_DIR at a time, got %d: %s", c.NArg(), strings.Join(c.Args().Slice(), " "))
	case raw != "":
		if c.IsSet("output-csv") && c.String("output-csv") == "" {
			return exit.Usagef("--output-csv is empty")
		}
		in := rawInput(raw, c.String("output-csv"), c.String("plots-directory"))
		if sameFile(in.Raw, in.Summary) {
			return exit.Usagef("--output-csv %s is the raw file itself: give another summary file", in.Summary)
		}
		inputs = []Input{in}
	case c.IsSet("output-csv"):
		return exit.Usagef("--output-csv %s is for --raw-csv FILE: with EXPERIMENT_DIR each summary is written "+
			"beside its raw file as measurements_<type>_summary.csv (drop --output-csv, or give --raw-csv)", c.String("output-csv"))
	default:
		dirMode = true
		inputs, err = ExperimentInputs(c.Args().First(), c.String("plots-directory"))
		if err != nil {
			return err
		}
	}
	var guard clobber.Guard
	if dirMode {
		guard.Experiment("EXPERIMENT_DIR", c.Args().First())
	} else {
		guard.File("--raw-csv", inputs[0].Raw)
		if ownSummary(inputs[0]) {
			guard.OwnedOutput("--output-csv", inputs[0].Summary)
		} else {
			guard.Output("--output-csv", inputs[0].Summary)
		}
	}
	guard.Output("--html", htmlPath)
	if err := guard.Check(); err != nil {
		return err
	}
	// Outputs that cannot be written are found before anything is.
	summaryFlag, plotsFlag := "", ""
	if !dirMode {
		summaryFlag = "--output-csv"
	}
	if c.IsSet("plots-directory") {
		plotsFlag = "--plots-directory"
	}
	if err := checkOutputs(inputs, htmlPath, opt.Plots, summaryFlag, plotsFlag); err != nil {
		return err
	}
	if !opt.Plots {
		for i := range inputs {
			inputs[i].PlotsDir = ""
		}
	}

	start := time.Now()
	results, err := Run(c.Context, inputs, opt)
	if err != nil {
		if c.Context.Err() != nil {
			return exit.With(exit.Interrupted, fmt.Errorf("interrupted; no summary written, the earlier ones are as they were"))
		}
		return err
	}
	out := c.App.Writer
	quiet := c.Bool("quiet")
	for _, r := range results {
		if !quiet {
			fmt.Fprintf(out, "%s: %d payloads, %d samples -> %s\n", r.Raw, len(r.Rows), r.Samples, r.Summary)
		}
	}
	if dirMode && opt.Plots {
		dir := c.String("plots-directory")
		if dir == "" {
			dir = experiment.PlotsDir(c.Args().First())
		}
		if _, err := ComparisonPlots(dir, results, format); err != nil {
			return err
		}
	}
	if htmlPath != "" {
		expDir := ""
		if dirMode {
			expDir = c.Args().First()
		}
		page, err := Page(expDir, results)
		if err != nil {
			return err
		}
		if err := htmlreport.WriteFile(htmlPath, page); err != nil {
			return err
		}
		if !quiet {
			fmt.Fprintf(out, "HTML report: %s\n", htmlPath)
		}
	}
	if !quiet {
		if opt.Plots {
			n := 0
			for _, r := range results {
				n += 2 * len(r.Rows)
			}
			if dirMode {
				n += len(Comparisons)
			}
			dir := inputs[0].PlotsDir
			if dirMode {
				dir = filepath.Dir(dir)
			}
			fmt.Fprintf(out, "%d plots in %s\n", n, dir)
		}
		fmt.Fprintf(out, "processed %d file(s) in %.2fs\n", len(results), time.Since(start).Seconds())
	}
	return nil
}

// checkOutputs reports an output path that cannot be written (a directory
// where a file goes, a file or looping link where a directory goes), so
// that process fails before it removes or writes anything.
// The errors name the flag that gave the path, if one did.
func checkOutputs(inputs []Input, htmlPath string, plots bool, summaryFlag, plotsFlag string) error {
	named := func(flag string, err error) error {
		if flag != "" {
			return exit.Usagef("%s: %v", flag, err)
		}
		return exit.With(exit.Usage, err)
	}
	if htmlPath != "" {
		if err := atomicfile.CheckFile(htmlPath); err != nil {
			return named("--html", err)
		}
	}
	for _, in := range inputs {
		if err := atomicfile.CheckFile(in.Summary); err != nil {
			return named(summaryFlag, err)
		}
		if plots && in.PlotsDir != "" {
			if err := atomicfile.CheckDir(in.PlotsDir); err != nil {
				return named(plotsFlag, err)
			}
		}
	}
	return nil
}

// rawInput is the Fast-RTPS single-file mode: defaults follow that script's
// job layout (summary beside the raw file, plots in plots/<raw name>).
func rawInput(raw, output, plotsDir string) Input {
	stem := strings.TrimSuffix(filepath.Base(raw), filepath.Ext(raw))
	if output == "" {
		output = filepath.Join(filepath.Dir(raw), stem+"_summary.csv")
	}
	if plotsDir == "" {
		plotsDir = filepath.Join(filepath.Dir(raw), "plots", stem)
	}
	typ, ok := experiment.TypeOfRaw(raw)
	if !ok {
		typ = stem
	}
	return Input{Type: typ, Raw: raw, Summary: output, PlotsDir: plotsDir}
}

// ownSummary reports whether in's summary is the one process writes beside
// its raw file measurements_<type>.csv, measurements_<type>_summary.csv: a
// file the pipeline owns that process writes by its role. Any other
// --output-csv is a report, refused over a file the pipeline owns in an
// experiment folder (formats §1).
func ownSummary(in Input) bool {
	typ, ok := experiment.TypeOfRaw(in.Raw)
	return ok && clobber.Canonical(in.Summary) == clobber.Canonical(filepath.Join(filepath.Dir(in.Raw), experiment.SummaryFileName(typ)))
}

// sameFile reports whether a and b name the same file, as paths or, when
// both exist, as files.
func sameFile(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}
