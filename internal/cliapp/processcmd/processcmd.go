package processcmd

import (
	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/process"
)

// App returns the process command: its flags and help, and the action
// that turns them into a process.Config.
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

A run throughput folder (throughput_<type>.csv, without raw latency files) gets
plots/throughput_<type> (by payload, the rate delivered over the
confirmation periods at the reported in-flight window) and, per payload,
plots/throughput_<type>_search_<payload> (the median of each step's windows
at each in-flight window tried); --html starts with their table.

With --raw_csv it processes one file as the Fast-RTPS latency_process_results.py
script does; --output-file applies to that mode only.

Burst measurements (run burst's burst_<type>.csv, or any file with the Fast-RTPS
throughput header) are processed as throughput_process_results.py does: a
summary holding each payload's row of greatest subscription throughput, and
per payload a throughput and a lost-samples scatter plot (formats §9).

Sample counts 1, 2, 3, ... from the first row and, at each new payload, either
starts again at 1 (as run writes it) or carries on (as Fast-RTPS LatencyTest
does: 16 B 1-10000, 32 B 10001-20000, ...), the same way throughout the file,
each payload's rows together (formats §2). A file that fits neither (a gap, a
repeat, a count going back, a payload reappearing) is refused, naming the line
and the sample expected. --lenient-samples summarises such a file anyway: every
row counts whatever its Sample, and a payload whose rows reappear is summarised
with its earlier rows.

A raw file holding fewer samples than meta.json says the run measured of the
payloads it completed is refused (exit 2), naming both counts: it was cut at a line
end (a copy interrupted, head -n) and would read as a whole file of fewer samples.

A folder imported from the Fast-RTPS scripts has no meta.json, so history can
order it only by a folder name of the form YYYY-MM-DD_HH-MM-SS and labels it by
that name. --sut-name, --sut-version and --start write its meta.json (atomically)
so that history orders it by --start and labels it by --sut-version; a folder
holding summaries and no raw file gets its meta.json alone. In a folder that has
a meta.json they fill in the fields it lacks, and a field it gives otherwise is
refused (exit 2, naming the field and both values).

Examples:
   process results/2026-11-21_09-00-00
   process --no-plots results/2026-11-21_09-00-00
   process --format svg --plots-directory /tmp/plots results/2026-11-21_09-00-00
   process --html report.html results/2026-11-21_09-00-00
   process --raw_csv measurements_interprocess_reliable.csv \
           --output_csv measurements_interprocess_reliable_summary.csv \
           --plots_directory plots/measurements_interprocess_reliable
   process --sut-name Fast-RTPS --sut-version 1.9.2 --start 2026-11-20T09:00:00Z results/2026-11-20_09-00-00

Exit status: 0 done, 2 bad usage or input (no summary is left for a raw file that
could not be read), 130 interrupted.`,
		HideHelpCommand: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "raw-csv", Aliases: []string{"raw_csv", "c"}, Usage: "process this one raw `FILE` instead of a directory"},
			&cli.StringFlag{Name: "output-file", Aliases: []string{"output-csv", "output_csv", "o"}, Usage: "summary `FILE` for --raw-csv (default: <raw>_summary.csv beside it); not with EXPERIMENT_DIR"},
			&cli.StringFlag{Name: "plots-directory", Aliases: []string{"plots_directory", "p"}, Usage: "`DIR` for the plots (default: EXPERIMENT_DIR/plots, or plots/<raw name> beside --raw-csv)"},
			&cli.BoolFlag{Name: "no-plots", Usage: "write summaries only (not with --plots-directory or --format)"},
			&cli.StringFlag{Name: "format", Value: "png", Usage: "plot image `FORMAT`: png or svg"},
			&cli.BoolFlag{Name: "lenient-samples", Usage: "accept any Sample numbering (gaps, repeats, going back) and payloads that reappear; without it, formats §2's two numberings"},
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Usage: "payloads processed at once, 1 to 256", DefaultText: "number of CPUs, at most 256"},
			&cli.StringFlag{Name: "html", Usage: "also write one self-contained HTML report `FILE` (tables and every plot, inline)"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print nothing but errors"},
			&cli.StringFlag{Name: "sut-name", Usage: "label an imported folder (Fast-RTPS, without meta.json): the system under test's `NAME`, for its meta.json"},
			&cli.StringFlag{Name: "sut-version", Usage: "label an imported folder: the system under test's `VERSION` (history labels the experiment by it), for its meta.json"},
			&cli.StringFlag{Name: "start", Usage: "label an imported folder: when the experiment started, `TIME` RFC 3339 (2019-11-15T10:00:00Z) or a date (2019-11-15) (history orders by it), for its meta.json"},
		},
		Action: action,
	}
}

// action turns the command line into a process.Config.
func action(c *cli.Context) error {
	if err := cliapp.NoEmpty(c, "raw-csv", "plots-directory", "html", "sut-name", "sut-version"); err != nil {
		return err
	}
	label := process.Label{System: c.String("sut-name"), Version: c.String("sut-version")}
	if c.IsSet("start") {
		t, err := process.ParseStart(c.String("start"))
		if err != nil {
			return exit.Usagef("--start %v", err)
		}
		label.Start = t
	}
	return process.Run(c.Context, process.Config{
		Label:          label,
		ToolVersion:    cliapp.VersionString(),
		Dirs:           c.Args().Slice(),
		RawCSV:         c.String("raw-csv"),
		OutputCSV:      c.String("output-file"),
		OutputCSVSet:   c.IsSet("output-file"),
		PlotsDirectory: c.String("plots-directory"),
		NoPlots:        c.Bool("no-plots"),
		Format:         c.String("format"),
		FormatSet:      c.IsSet("format"),
		Jobs:           c.Int("jobs"),
		JobsSet:        c.IsSet("jobs"),
		HTML:           c.String("html"),
		LenientSamples: c.Bool("lenient-samples"),
		Quiet:          c.Bool("quiet"),
	}, c.App.Writer)
}
