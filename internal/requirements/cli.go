package requirements

import (
	"bufio"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/clobber"
)

// App returns the requirements command.
func App() *cli.App {
	return &cli.App{
		Name:  "requirements",
		Usage: "derive latency requirements from many experiments",
		UsageText: "requirements --experiments-results DIR [--output-file FILE] [--percentile 99]\n" +
			"requirements --runs N --out DIR [--output-file FILE] [--percentile 99] -- [run arguments]",
		Description: `Reads every experiment folder in DIR (each holding measurements_<type>_summary.csv files) and
writes the requirements CSV (Experiment type,Bytes,Median,99%,Max): per sub-experiment and payload,
the p-th percentile (numpy's linear method) over the experiments of their Median, 99% and Max.

It prints, per requirement, how many experiments back it and the chance that an unchanged
system fails that check on its next run: a new run exceeds the k-th smallest of n runs with
chance (n-k+1)/(n+1), so the 99th percentile of 5 runs (between the 4th and 5th, at rank 4.96)
fails about 1 run in 6. It warns when too few experiments back the percentile asked for, and
prints the chance that a whole check fails on an unchanged system.

An experiment folder is a directory, or a symbolic link to one, holding summaries; every other
entry is skipped with a warning. A run that did not complete (meta.json "completed": false) is an
error unless --allow-incomplete, and so are experiments that measure latency differently and a
--output-file inside one of the experiments. Requirements derived from rtt or one-way runs carry
a last Latency column saying so.

With --runs N --out DIR it first runs 'run --out DIR --name <UTC start> [run arguments]' N
times, and 'process' on each new experiment (the tools are looked up beside this program,
then on PATH), then derives the requirements from every experiment in DIR, as the Fast-RTPS
latency_extrapolate_requirements.bash script does:
  requirements --runs 5 --out runs_for_requirements -- --subexperiments interprocess_reliable

Exit status: 0 done, 2 usage or input error (or a run that failed), 130 interrupted.`,
		HideHelpCommand: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "experiments-results", Aliases: []string{"experiments_results", "e"}, TakesFile: true,
				Usage: "directory holding one folder per experiment"},
			&cli.IntFlag{Name: "runs", Aliases: []string{"n"}, Usage: "first run and process `N` experiments into --out"},
			&cli.StringFlag{Name: "out", TakesFile: true, Usage: "results root for --runs; the requirements are derived from every experiment in it"},
			&cli.StringFlag{Name: "output-file", Aliases: []string{"output_file", "o"}, Value: DefaultFileName, TakesFile: true,
				Usage: "requirements CSV to write"},
			&cli.Float64Flag{Name: "percentile", Value: DefaultPercentile,
				Usage: "percentile over the experiments, in (0, 100]; 100 is their maximum"},
			&cli.BoolFlag{Name: "allow-incomplete", Aliases: []string{"allow_incomplete"},
				Usage: "derive from experiments whose run did not complete (meta.json \"completed\": false) too, with a warning"},
		},
		Action: action,
	}
}

func action(c *cli.Context) error {
	p := c.Float64("percentile")
	if !(p > 0 && p <= 100) {
		return cliapp.Usagef("--percentile %v: expected a number in (0, 100], e.g. 99", p)
	}
	dir, out := c.String("experiments-results"), c.String("output-file")
	if out == "" {
		return cliapp.Usagef("--output-file is empty: expected the requirements CSV to write")
	}
	switch {
	case c.IsSet("runs") || c.IsSet("out"):
		if dir != "" {
			return cliapp.Usagef("--experiments-results and --runs/--out exclude each other: --runs derives from --out")
		}
		if c.Int("runs") < 1 || c.String("out") == "" {
			return cliapp.Usagef("--runs needs a number of runs ≥ 1 and --out DIR (see '%s --help')", c.App.Name)
		}
		if err := guard("--out", c.String("out"), out).Check(); err != nil {
			return err
		}
		r := Runs{N: c.Int("runs"), Out: c.String("out"), RunArgs: c.Args().Slice(), Stdout: c.App.Writer, Stderr: c.App.ErrWriter}
		if _, err := r.Execute(c.Context); err != nil {
			return err
		}
		dir = r.Out
	case dir == "":
		return cliapp.Usagef("--experiments-results DIR (or --runs N --out DIR) is required (see '%s --help')", c.App.Name)
	default:
		// Arguments are run's, and only with --runs.
		if err := cliapp.NoArgs(c); err != nil {
			return err
		}
	}
	rootFlag := "--experiments-results"
	if c.IsSet("out") {
		rootFlag = "--out"
	}
	if err := guard(rootFlag, dir, out).Check(); err != nil {
		return err
	}
	in, err := Load(c.Context, dir, c.Bool("allow-incomplete"))
	if err != nil {
		if cliapp.Interrupted(c.Context) {
			return cliapp.Exit(cliapp.ExitInterrupted, err)
		}
		return cliapp.Exit(cliapp.ExitUsage, err)
	}
	d, err := Derive(in.Observations(), p)
	if err != nil {
		return cliapp.Exit(cliapp.ExitUsage, err)
	}
	rows := d.Rows()
	for i := range rows {
		rows[i].Latency = in.Latency
	}
	if err := WriteFile(out, rows); err != nil {
		return err
	}
	for _, w := range append(in.Warnings, d.Warnings...) {
		fmt.Fprintf(c.App.ErrWriter, "%s: warning: %s\n", c.App.Name, w)
	}
	if err := PrintTable(c.App.Writer, d); err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "%d requirement(s) from %d experiment(s) written to %s\n", len(d.Requirements), len(in.Experiments), out)
	return nil
}

// guard declares what requirements reads (the experiments under root, named
// by rootFlag) and writes (out), see package clobber.
func guard(rootFlag, root, out string) *clobber.Guard {
	g := &clobber.Guard{}
	g.Experiments(rootFlag, root)
	g.Output("--output-file", out)
	return g
}

// PrintTable writes d for people: the requirements with their backing and
// failure chances, then the chance that a whole check fails.
func PrintTable(w io.Writer, d *Derivation) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%-40s %8s %10s %10s %10s %5s %6s  %s\n",
		"Experiment type", "Bytes", "Median", "99%", "Max", "Runs", "Rank", "Chance an unchanged system fails each check")
	for _, r := range d.Requirements {
		chance := fmt.Sprintf("%5.1f%% (1 run in %.1f)", r.FailChance*100, 1/r.FailChance)
		if r.FailChanceMin != r.FailChanceMax {
			chance += fmt.Sprintf(", between %.1f%% and %.1f%%", r.FailChanceMin*100, r.FailChanceMax*100)
		}
		fmt.Fprintf(bw, "%-40s %8d %10.3f %10.3f %10.3f %5d %6.2f  %s\n",
			r.Type, r.Bytes, r.Median, r.P99, r.Max, r.N, r.Rank, chance)
	}
	n := len(d.Requirements) * ChecksPerRequirement
	fmt.Fprintf(bw, "Chance that a check of an unchanged system fails at least one of its %d checks: %.1f%%", n, d.CheckFailChance*100)
	if d.CheckFailChance > 0 && d.CheckFailChance < 1 {
		fmt.Fprintf(bw, " (1 run in %.1f)", 1/d.CheckFailChance)
	}
	fmt.Fprintln(bw, "\n(assuming checks fail independently; checks of one run are usually positively correlated, which makes the true chance lower)")
	return bw.Flush()
}
