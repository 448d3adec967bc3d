package check

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/report"
)

// App returns the check command.
func App() *cli.App {
	return &cli.App{
		Name:      "check",
		Usage:     "check an experiment against latency requirements; exit 1 when one is violated",
		UsageText: "check --requirements FILE --experiment-directory DIR [--plots-directory DIR] [--allow-missing] [--allow-incomplete] [--junit FILE] [--markdown FILE] [--json FILE] [--html FILE] [--format png|svg]",
		Description: `Checks every summary measurements_<type>_summary.csv in DIR against the requirements
(Experiment type,Bytes,Median,99%,Max): per payload the Median, 99% and Max latencies must not
exceed their requirement. Writes
  DIR/checks_<type>.csv                                     the check report
  <plots>/measurements_<type>/comparison_<median|99|max>.<ext>  experiment and requirement by payload
and prints what failed and by how much.

A payload or sub-experiment without requirement, or a requirement without data, fails the
check unless --allow-missing is given. An incomplete run (meta.json "completed": false) is an
error unless --allow-incomplete is given; so are a summary older than its raw file (run
process again), requirements of another latency definition than the experiment's, and a
report path that is one of the inputs, a file of the experiment, or given twice.

Examples:
  check --requirements latency_requirements.csv --experiment-directory results/2026-11-21_09-00-00
  check --requirements latency_requirements.csv --experiment_directory results/2026-11-21_09-00-00 \
        --plots_directory results/2026-11-21_09-00-00/plots --print_summaries
  check -r latency_requirements.csv -e results/2026-11-21_09-00-00 \
        --junit check.xml --markdown check.md --json check.json --html check.html

Exit status: 0 every check passed, 1 a check failed, 2 usage or input error.`,
		HideHelpCommand: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "requirements", Aliases: []string{"r"}, Required: true, TakesFile: true,
				Usage: "requirements CSV (Experiment type,Bytes,Median,99%,Max)"},
			&cli.StringFlag{Name: "experiment-directory", Aliases: []string{"experiment_directory", "e"}, Required: true, TakesFile: true,
				Usage: "experiment directory holding measurements_<type>_summary.csv files"},
			&cli.StringFlag{Name: "plots-directory", Aliases: []string{"plots_directory", "p"}, TakesFile: true,
				Usage: "directory for the check plots (default: DIR/plots)"},
			&cli.BoolFlag{Name: "allow-missing", Aliases: []string{"allow_missing"}, Usage: "let checks without requirement or data neither pass nor fail"},
			&cli.BoolFlag{Name: "allow-incomplete", Aliases: []string{"allow_incomplete"}, Usage: "check an experiment whose run did not complete (meta.json \"completed\": false), with a warning in every report"},
			&cli.BoolFlag{Name: "print-summaries", Aliases: []string{"print_summaries", "P"}, Usage: "print every check, not only those that failed"},
			&cli.StringFlag{Name: "junit", TakesFile: true, Usage: "write a JUnit XML report to `FILE`"},
			&cli.StringFlag{Name: "markdown", TakesFile: true, Usage: "write a Markdown summary to `FILE`"},
			&cli.StringFlag{Name: "json", TakesFile: true, Usage: "write the verdict as JSON to `FILE`"},
			&cli.StringFlag{Name: "html", TakesFile: true, Usage: "write a self-contained HTML report to `FILE`"},
			&cli.StringFlag{Name: "format", Value: string(plots.FormatPNG), Usage: "plot image format: png or svg"},
		},
		Action: action,
	}
}

func action(c *cli.Context) error {
	if err := cliapp.NoArgs(c); err != nil {
		return err
	}
	f, err := plots.ParseFormat(c.String("format"))
	if err != nil {
		return cliapp.Usagef("--format: %v", err)
	}
	cfg := Config{
		Requirements:    c.String("requirements"),
		ExperimentDir:   c.String("experiment-directory"),
		PlotsDir:        c.String("plots-directory"),
		Format:          f,
		AllowMissing:    c.Bool("allow-missing"),
		AllowIncomplete: c.Bool("allow-incomplete"),
		JUnit:           c.String("junit"),
		Markdown:        c.String("markdown"),
		JSON:            c.String("json"),
		HTML:            c.String("html"),
	}
	res, err := Run(c.Context, cfg)
	if err != nil {
		return err
	}
	v := res.Verdict
	if c.Bool("print-summaries") {
		for _, ch := range v.Checks {
			fmt.Fprintf(c.App.Writer, "%-40s %-8s %s\n", ch.SubExperiment, ch.Status, ch.Message)
		}
		fmt.Fprintln(c.App.Writer)
	}
	if err := report.Text(c.App.Writer, v); err != nil {
		return err
	}
	switch v.Status {
	case gate.Passed:
		return nil
	case gate.Inconclusive:
		return cliapp.Exit(cliapp.ExitInconclusive, fmt.Errorf("inconclusive"))
	}
	return cliapp.Exit(cliapp.ExitGateFailed, fmt.Errorf("%d of %d checks failed, %d missing", v.Failed, len(v.Checks), v.Missing))
}
