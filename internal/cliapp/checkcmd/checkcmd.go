package checkcmd

import (
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/check"
	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/numflag"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/report"
	"github.com/mqgate/mqgate/internal/requirements"
)

// App returns the check command: its flags and help, and the action that
// turns them into a check.Config.
func App() *cli.App {
	return &cli.App{
		Name:  "check",
		Usage: "check experiments against latency requirements; exit 1 when one is violated, 3 when undecided",
		UsageText: "check --requirements FILE --experiment-directory DIR [--experiment-directory DIR …] [--experiments-results ROOT]\n" +
			"      [--margin 0.1] [--columns Median,99%,Max] [--output-directory DIR] [--plots-directory DIR] [--allow-missing] [--allow-incomplete] [-s TYPES]\n" +
			"      [--junit FILE] [--markdown FILE] [--json FILE] [--html FILE] [--format png|svg]",
		Description: `Checks the summaries measurements_<type>_summary.csv of one or more runs of the system
against the requirements (Experiment type,Bytes,Median,99%,Max): per payload, the Median, 99%
and Max latencies against their requirement, raised by --margin (0.1 or 10%: 10 % higher;
a bare number above 1 is refused: --margin 25 asks whether 25% was meant).

One run against percentile (Fast-RTPS) requirements: a value passes when it does not exceed its
requirement, as the Fast-RTPS script checks (formats §4). Writes
  DIR/checks_<type>.csv                                     the check report
  <plots>/measurements_<type>/comparison_<median|99|max>.<ext>  experiment and requirement by payload

Several runs (--experiment-directory repeated, or every experiment in --experiments-results),
or statistical requirements (requirements --false-fail): every check is passed,
failed or inconclusive (formats §11). Against statistical requirements an unchanged system fails
the whole check with at most the chance the requirements file states; the verdicts say, per
check, the runs' statistic, the limit for that many runs, the chance p that an unchanged system
does as badly, and, when undecided, about how many more runs would decide. Distribution-free
limits fail only when enough candidate runs all exceed them (requirements says how many); with
fewer, a run above them is inconclusive, not a failure. The check reports and plots of several
runs go to --output-directory (none without it).

Throughput: --throughput-requirements FILE (written by requirements beside the latency
requirements, min_throughput_requirements.csv) checks the throughput summaries
throughput_<type>.csv too, or alone: per payload and offered load the Median [msg/s] against a
lower limit (higher is better), lowered by --margin; the same rules, mirrored (formats §4, §11).
Writes
  DIR/checks_throughput_<type>.csv                          the throughput check report
  <plots>/throughput_<type>/check_<load>.<ext>              measured and required msg/s by payload
A requirement at an offered rate the runs did not measure is missing, naming what was measured.

Bursts (the Fast-RTPS throughput pipeline): a --requirements file with the header
Experiment type,Payload [Bytes],Lost [samples],Subscription throughput [Mb/s] (requirements
--burst-output-file) checks the burst summaries burst_<type>_summary.csv of one experiment:
Lost at most, Subscription throughput at least its requirement; writes
DIR/checks_burst_<type>.csv (formats §9).

A payload or sub-experiment without requirement, or a requirement without data, fails the
check unless --allow-missing is given. An incomplete run (meta.json "completed": false) is an
error unless --allow-incomplete is given; so are a summary older than its raw file (run
process again), requirements of another latency definition than the experiment's, and a
report path that is one of the inputs, a file of the experiment, or given twice.

Examples:
  check --requirements latency_requirements.csv --experiment-directory results/2026-11-21_09-00-00
  check --requirements latency_requirements.csv --experiment_directory results/2026-11-21_09-00-00 \
        --plots_directory results/2026-11-21_09-00-00/plots --print_summaries
  check -r latency_requirements.csv --experiments-results results --margin 10% \
        --junit check.xml --markdown check.md --json check.json --html check.html

Exit status: 0 every check passed, 1 a check failed, 2 usage or input error, 3 no check failed
but one is inconclusive (take more runs), 130 interrupted.`,
		HideHelpCommand:           true,
		DisableSliceFlagSeparator: true,
		Flags:                     slices.Concat(inputFlags(), checkFlags(), reportFlags()),
		Action:                    action,
	}
}

// inputFlags are check's flags naming what is checked against what: the
// requirements and the runs.
func inputFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "requirements", Aliases: []string{"r"}, TakesFile: true,
			Usage: "requirements CSV (Experiment type,Bytes,Median,99%,Max,…); required unless --throughput-requirements is given"},
		&cli.StringFlag{Name: "throughput-requirements", TakesFile: true,
			Usage: "throughput requirements CSV (Experiment type,Bytes,Load,Offered,Median [msg/s],…; lower limits, higher is better)"},
		&cli.StringSliceFlag{Name: "experiment-directory", Aliases: []string{"experiment_directory", "e"}, TakesFile: true,
			Usage: "experiment directory holding measurements_<type>_summary.csv files; repeat it for several runs"},
		&cli.StringFlag{Name: "experiments-results", Aliases: []string{"experiments_results"}, TakesFile: true,
			Usage: "folder holding one experiment folder per candidate run (instead of, or with, --experiment-directory)"},
	}
}

// checkFlags are check's flags of how the runs are checked and where the
// check reports and plots go: the margin, the columns, the directories,
// what may be missing or incomplete, and the sub-experiments checked.
func checkFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "margin", Value: "0",
			Usage: "raise every requirement by this fraction (0.1) or percentage (10%), against a machine busier than the reference's; " + numflag.Tolerance.Text()},
		&cli.StringFlag{Name: "columns", Value: "Median,99%,Max",
			Usage: "the columns to check: leave out those whose run-to-run spread on this machine is too large to gate (often Max)"},
		&cli.StringFlag{Name: "output-directory", TakesFile: true,
			Usage: "several runs: directory for the check reports checks_<type>.csv (and the plots, in DIR/plots)"},
		&cli.StringFlag{Name: "plots-directory", Aliases: []string{"plots_directory", "p"}, TakesFile: true,
			Usage: "directory for the check plots (default: DIR/plots)"},
		&cli.BoolFlag{Name: "allow-missing", Aliases: []string{"allow_missing"}, Usage: "let checks without requirement or data neither pass nor fail"},
		&cli.BoolFlag{Name: "allow-incomplete", Aliases: []string{"allow_incomplete"}, Usage: "check an experiment whose run did not complete (meta.json \"completed\": false), with a warning in every report"},
		&cli.BoolFlag{Name: "print-summaries", Aliases: []string{"print_summaries", "P"}, Usage: "print every check, not only those that failed"},
		&cli.StringFlag{Name: "subexperiments", Aliases: []string{"s"}, Usage: "check only these comma-separated sub-experiments, against their requirements alone (default: every one); a name neither the runs nor the requirements hold is an error"},
	}
}

// reportFlags are check's flags of the reports for CI (JUnit, Markdown,
// JSON, HTML) and of the plots' image format.
func reportFlags() []cli.Flag {
	return append(cliapp.ReportFlags("", ""),
		&cli.StringFlag{Name: "html", TakesFile: true, Usage: "write a self-contained HTML report to `FILE`"},
		&cli.StringFlag{Name: "format", Value: string(plots.FormatPNG), Usage: "plot image format: png or svg"})
}

// action turns the command line into a check.Config.
func action(c *cli.Context) error {
	if err := cliapp.NoArgs(c); err != nil {
		return err
	}
	paths := []string{"requirements", "throughput-requirements", "experiments-results", "output-directory", "plots-directory", "html"}
	for _, r := range report.Formats {
		paths = append(paths, r.Flag)
	}
	if err := cliapp.NoEmpty(c, paths...); err != nil {
		return err
	}
	f, err := plots.ParseFormat(c.String("format"))
	if err != nil {
		return exit.Usagef("--format: %v", err)
	}
	margin, err := numflag.Tolerance.Parse(c.String("margin"))
	if err != nil {
		return exit.Usagef("--margin: %v", err)
	}
	columns, err := requirements.ParseColumns(c.String("columns"))
	if err != nil {
		return exit.Usagef("--columns: %v", err)
	}
	var subs []string
	if c.IsSet("subexperiments") {
		if subs, err = experiment.ParseSubExperiments(c.String("subexperiments")); err != nil {
			return exit.Usagef("--subexperiments %v", err)
		}
	}
	return check.Run(c.Context, check.Config{
		SubExperiments:         subs,
		Requirements:           c.String("requirements"),
		ThroughputRequirements: c.String("throughput-requirements"),
		ExperimentDirs:         c.StringSlice("experiment-directory"),
		ExperimentsRoot:        c.String("experiments-results"),
		OutputDir:              c.String("output-directory"),
		Margin:                 margin,
		Columns:                columns,
		PlotsDir:               c.String("plots-directory"),
		Format:                 f,
		AllowMissing:           c.Bool("allow-missing"),
		AllowIncomplete:        c.Bool("allow-incomplete"),
		Reports:                cliapp.Reports(c, ""),
		HTML:                   c.String("html"),
		PrintSummaries:         c.Bool("print-summaries"),
	}, c.App.Writer)
}
