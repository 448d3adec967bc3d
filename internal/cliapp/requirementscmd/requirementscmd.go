package requirementscmd

import (
	"slices"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/calibrate"
	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/numflag"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/requirements"
	"github.com/mqgate/mqgate/internal/requirementsapp"
)

// description is the requirements command's help text.
const description = `Reads every experiment folder in DIR (each holding measurements_<type>_summary.csv files) and
writes the requirements CSV (Experiment type,Bytes,Median,99%,Max,…): a limit per sub-experiment,
payload and column (a "check"), set from the runs' values of that column.

Statistical mode (--false-fail P, or --method; formats §11): the limits are set so that an
unchanged system fails a whole 'check' (any one of its checks) with chance at most P. The
level is split evenly over the m checks of the file (Bonferroni: each gets false-fail/m, whatever
the dependence between checks). Per check, --method says how:
  order      distribution-free (the default): the limit is the J-th largest of the n runs,
             J = max(1, ⌊(n+1)/10⌋) (their 90th percentile: the largest of up to 18 runs), or
             --order-rank J. It assumes only that runs of an unchanged system are exchangeable.
             One new run exceeds it with chance J/(n+1), k new runs all exceed the largest with
             chance 1/C(n+k, k), so 'check' fails it only when enough candidate runs exceed it;
             the table says how many runs that takes. The 90th percentile, not the largest run,
             so that more runs never make the check more lenient.
  lognormal  a one-sided log-normal prediction bound, exp(mean + t·sd·√(1+1/n)) of the log values
             with t at 1 − false-fail/m: one new run exceeds it with chance false-fail/m if the log
             values are normal. n runs show chances down to 1/(n+1) only, so where false-fail/m is
             below that (with P = 1 %, in practice always) the bound is refused and the check uses
             the distribution-free one, with the reason; also where Shapiro–Wilk rejects normality
             at --normality-level.
The file says which mode and method wrote it (the Mode and "<column> method" columns).
Every derivation also tests each check's runs for drift over run order (Mann–Kendall with its
variance corrected for lag-1 autocorrelation, meta.json start times, Holm at 5 %) and for serial
correlation of consecutive runs (which the limits' guarantee assumes absent), prints the findings
and writes them beside the file, <file>_drift.csv.

Percentile mode (the default, the Fast-RTPS compatibility mode; --percentile P, default 99):
each limit is the P-th percentile (numpy's linear method) over the experiments; the file is in the
Fast-RTPS format. It says nothing reliable about false failures: the 99th percentile of a few
runs fails an unchanged system often (see below); prefer the statistical mode for a CI gate.
It prints, per requirement, the chance that an unchanged system fails that check on its next
run: a new run exceeds the k-th smallest of n runs with chance (n-k+1)/(n+1), so the 99th
percentile of 5 runs (rank 4.96) fails about 1 run in 6.

An experiment folder is a directory, or a symbolic link to one, holding summaries; every other
entry is skipped with a warning. A run that did not complete (meta.json "completed": false) is an
error unless --allow-incomplete, and so are experiments that measure latency differently, two
folders holding one run (a copy: the same meta.json, naming a start and a host) and a
--output-file inside one of the experiments. Requirements derived from rtt or one-way runs, and
statistical ones, carry a Latency column saying what they measure.

With --runs N --out DIR it first runs 'run --out DIR --name <UTC start> [run arguments]' N
times, and 'process' on each new experiment (started as 'mqgate run' and 'mqgate process'
under mqgate; otherwise looked up beside this program, then on PATH, then through mqgate),
then derives the requirements from every experiment in DIR, as the Fast-RTPS
latency_extrapolate_requirements.bash script does:
  requirements --runs 12 --out runs_for_requirements --false-fail 0.01 -- --subexperiments interprocess_reliable
Run arguments that start with a subcommand (throughput, load) get --out and --name after its
name; experiments without raw latency files (run throughput's) are not processed:
  requirements --runs 12 --out runs_for_requirements --false-fail 0.01 -- throughput -s nats_best_effort

Throughput (formats §4, §11): experiments holding throughput summaries (throughput_<type>.csv,
written by run throughput and run load) also get throughput requirements, written to
--throughput-output-file: a lower limit on the Median [msg/s] of every sub-experiment, payload and
offered load (higher is better). Percentile mode takes the (100 − P)th percentile of the runs;
statistical mode the smallest run (order) or the lower log-normal prediction bound (lognormal),
with the false-fail level split over the latency and throughput checks together.

--calibrate measures, instead of writing requirements, what statistical requirements and a
multi-run 'check' do together on this machine (formats §11): POOL holds unchanged runs; each of
--splits seeded splits derives requirements from N of them (--reference-runs) with these
--false-fail, --method and --normality-level, and checks K others (--candidate-runs) with
--margin and --columns, as 'check' would. It prints the measured false-fail rate of the whole
check (95% Clopper–Pearson interval), how often it passed or was inconclusive, and the power
curve with every candidate value made worse by each of --factors, with the smallest regression
detected with 95% power and notes on what these runs allow. --regressed DIR adds runs of a known
regression (run --echo-delay, run ab's candidate side): its detection rate. Plots:
DIR/calibration_check_power and DIR/calibration_check_outcomes (verdict shares per factor).
  requirements --calibrate -e unchanged --method order --reference-runs 10 --candidate-runs 10 \
               --regressed delayed --plots-directory calibration --json calibration.json

Exit status: 0 done, 2 usage or input error (or a run that failed), 130 interrupted.`

// App returns the requirements command: its flags and help, and the
// action that turns them into a requirementsapp.Config.
func App() *cli.App {
	return &cli.App{
		Name:  "requirements",
		Usage: "derive latency requirements from many experiments",
		UsageText: "requirements --experiments-results DIR [--output-file FILE] --false-fail 0.01 [--method order|lognormal]\n" +
			"requirements --experiments-results DIR [--output-file FILE] [--percentile 99]\n" +
			"requirements --runs N --out DIR [--output-file FILE] [--false-fail 0.01 | --percentile 99] -- [run arguments]\n" +
			"requirements --calibrate --experiments-results POOL --plots-directory DIR [--false-fail 0.01] [--method order|lognormal]\n" +
			"      [--reference-runs N] [--candidate-runs K] [--margin 0] [--columns Median,99%,Max] [--margins 0,0.1] [--regressed DIR] [--json FILE]",
		Description:     description,
		HideHelpCommand: true,
		Flags:           slices.Concat(inputFlags(), outputFlags(), derivationFlags(), calibrateFlags()),
		Action:          action,
	}
}

// inputFlags are requirements' flags of the experiments the requirements
// are derived from: a results root, or runs made first into one.
func inputFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "experiments-results", Aliases: []string{"experiments_results", "e"}, TakesFile: true,
			Usage: "directory holding one folder per experiment"},
		&cli.IntFlag{Name: "runs", Aliases: []string{"n"}, Usage: "first run and process `N` experiments into --out, " + requirementsapp.RunsRange.Text()},
		&cli.StringFlag{Name: "out", TakesFile: true, Usage: "results root for --runs; the requirements are derived from every experiment in it"},
	}
}

// outputFlags are requirements' flags of the files written: the latency,
// throughput and burst requirements.
func outputFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "output-file", Aliases: []string{"output_file", "o"}, Value: requirements.DefaultFileName, TakesFile: true,
			Usage: "requirements CSV to write"},
		&cli.StringFlag{Name: "throughput-output-file", TakesFile: true,
			Usage: "throughput requirements CSV to write when the experiments hold throughput summaries (default: " + requirements.DefaultThroughputFileName + " beside --output-file)"},
		&cli.StringFlag{Name: "burst-output-file", TakesFile: true,
			Usage: "derive burst requirements (Lost at its 99th percentile over the runs, Subscription throughput at its 1st) from the burst summaries of the experiments into this CSV, instead of latency and throughput requirements (formats §9)"},
	}
}

// derivationFlags are requirements' flags of how the limits are derived:
// the statistical mode and its method, the percentile mode, and whether
// incomplete runs count.
func derivationFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "false-fail", Value: strconv.FormatFloat(requirements.DefaultFalseFail, 'g', -1, 64),
			Usage: "statistical mode: chance that an unchanged system fails a whole check, a fraction (0.01) or a percentage (1%), " + numflag.Level.Text()},
		&cli.StringFlag{Name: "method", Value: requirements.DefaultMethod,
			Usage: "statistical mode: order (distribution-free) or lognormal (where the runs can back the check level, else order)"},
		&cli.IntFlag{Name: "order-rank",
			Usage: "statistical mode: a distribution-free limit is the `J`-th largest run (1: the largest); 2 or 3 keeps one slow reference run from raising it, so that fewer candidate runs fail it (formats §11); " + requirementsapp.OrderRankRange.Text() + ", fewer than the runs (default: chosen from the runs n, max(1, ⌊(n+1)/10⌋), the reference runs' 90th percentile, so that more runs never make the check more lenient)"},
		&cli.StringFlag{Name: "normality-level", Value: strconv.FormatFloat(requirements.DefaultNormalityLevel, 'g', -1, 64),
			Usage: "statistical mode, lognormal: Shapiro–Wilk p-value below which a check falls back to the distribution-free bound, a fraction (0.05) or a percentage (5%), " + numflag.Level.Text()},
		&cli.Float64Flag{Name: "percentile", Value: requirements.DefaultPercentile,
			Usage: "percentile mode (Fast-RTPS): percentile over the experiments, above 0 and at most 100; 100 is their maximum"},
		&cli.BoolFlag{Name: "allow-incomplete", Aliases: []string{"allow_incomplete"},
			Usage: "derive from experiments whose run did not complete (meta.json \"completed\": false) too, with a warning"},
	}
}

// calibrateFlags are requirements' flags for --calibrate.
func calibrateFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "calibrate", Usage: "instead of writing requirements, calibrate the statistical requirements and multi-run check on the unchanged runs in --experiments-results: measured false-fail rate, verdict rates and power curve"},
		&cli.IntFlag{Name: "reference-runs", Usage: "with --calibrate: runs `N` the requirements are derived from in each split, " + calibrate.ReferenceRange.Text()},
		&cli.IntFlag{Name: "candidate-runs", Usage: "with --calibrate: candidate runs `K` each split checks, " + calibrate.CandidateRange.Text()},
		&cli.StringFlag{Name: "margin", Value: "0", Usage: "with --calibrate: check --margin, a fraction (0.1) or percentage (10%), " + numflag.Tolerance.Text()},
		&cli.StringFlag{Name: "columns", Value: "Median,99%,Max", Usage: "with --calibrate: check --columns, the columns checked"},
		&cli.IntFlag{Name: "splits", Value: 200, Usage: "with --calibrate: random reference/candidate splits judged, " + calibrate.SplitsRange.Text()},
		&cli.StringFlag{Name: "split", Value: calibrate.SplitRandom, Usage: "with --calibrate: random (seeded), ordered (consecutive blocks in run order, reference first, as CI: exposes drift) or blocked (alternating blocks of consecutive runs); random splits cannot see drift"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "with --calibrate: seed of the random splits, any whole number from 0 to 2^64-1"},
		&cli.StringFlag{Name: "factors", Usage: "with --calibrate: comma-separated regression `FACTORS` for the power curve, each above 1 and at most 1000 (default 1.05,1.1,1.25,1.5,2)"},
		&cli.StringFlag{Name: "margins", Usage: "with --calibrate: comma-separated margins `M1,M2,…` (fractions or percentages, " + numflag.Tolerance.Text() + ") at which the unchanged splits are judged again: the verdict shares per margin (plot calibration_check_thresholds)"},
		&cli.StringFlag{Name: "regressed", TakesFile: true, Usage: "with --calibrate: folder of runs of the same system with a known, real regression (run --echo-delay, run ab's candidate side): the detection rate with them as candidate runs"},
		&cli.StringFlag{Name: "json", TakesFile: true, Usage: "with --calibrate: write the calibration as JSON to `FILE`"},
		&cli.StringFlag{Name: "plots-directory", TakesFile: true, Usage: "with --calibrate: `DIR` for the plots calibration_check_power and calibration_check_outcomes (created)"},
		&cli.StringFlag{Name: "format", Value: string(plots.FormatPNG), Usage: "with --calibrate: plot image format, png or svg"},
	}
}

// action turns the command line into a requirementsapp.Config.
func action(c *cli.Context) error {
	return requirementsapp.Run(c.Context, requirementsapp.Config{
		ExperimentsResults:   c.String("experiments-results"),
		Runs:                 c.Int("runs"),
		Out:                  c.String("out"),
		OutputFile:           c.String("output-file"),
		ThroughputOutputFile: c.String("throughput-output-file"),
		BurstOutputFile:      c.String("burst-output-file"),
		FalseFail:            c.String("false-fail"),
		Method:               c.String("method"),
		OrderRank:            c.Int("order-rank"),
		NormalityLevel:       c.String("normality-level"),
		Percentile:           c.Float64("percentile"),
		AllowIncomplete:      c.Bool("allow-incomplete"),
		Args:                 c.Args().Slice(),
		Calibrate:            c.Bool("calibrate"),
		ReferenceRuns:        c.Int("reference-runs"),
		CandidateRuns:        c.Int("candidate-runs"),
		Margin:               c.String("margin"),
		Columns:              c.String("columns"),
		Splits:               c.Int("splits"),
		Split:                c.String("split"),
		Seed:                 c.Uint64("seed"),
		Factors:              c.String("factors"),
		Margins:              c.String("margins"),
		Regressed:            c.String("regressed"),
		JSON:                 c.String("json"),
		PlotsDirectory:       c.String("plots-directory"),
		Format:               c.String("format"),
		Set:                  cliapp.Given(c),
	}, c.App.Writer, c.App.ErrWriter)
}
