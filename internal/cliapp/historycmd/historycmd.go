package historycmd

import (
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/changepoint"
	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/history"
	"github.com/mqgate/mqgate/internal/numflag"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/report"
)

// App returns the history command: its flags and help, and the action
// that turns them into a history.Config.
func App() *cli.App {
	return &cli.App{
		Name:            "history",
		Usage:           "plot latency across experiments (commits, builds), find where it shifted, and gate on the newest shift",
		UsageText:       "history --experiments-results DIR [--requirements FILE] --plots-directory DIR [--format png|svg] [--html FILE] [--json FILE] [--gate]",
		Description:     description,
		HideHelpCommand: true,
		Flags:           slices.Concat(fileFlags(), changeFlags(), gateFlags()),
		Action:          action,
	}
}

// fileFlags are history's flags of what it reads and writes: the
// experiments, the requirements, the plots and reports, and which
// experiments and sub-experiments it follows.
func fileFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "experiments-results", Aliases: []string{"experiments_results", "e"}, Required: true,
			Usage: "directory holding one folder per experiment", TakesFile: true},
		&cli.StringFlag{Name: "requirements", Aliases: []string{"r"},
			Usage: "requirements CSV (Experiment type,Bytes,Median,99%,Max), or burst requirements (Experiment type,Payload [Bytes],Lost [samples],…); without it the plots have no requirement line", TakesFile: true},
		&cli.StringFlag{Name: "plots-directory", Aliases: []string{"plots_directory", "p"}, Required: true,
			Usage: "directory for the plots and history.csv", TakesFile: true},
		&cli.StringFlag{Name: "format", Value: string(plots.FormatPNG), Usage: "plot image format: png or svg"},
		&cli.StringFlag{Name: "html", Usage: "also write a self-contained HTML report to `FILE`", TakesFile: true},
		&cli.StringFlag{Name: "json", Usage: "also write the change points (and the gate's verdict) as JSON to `FILE`", TakesFile: true},
		&cli.BoolFlag{Name: "allow-incomplete", Aliases: []string{"allow_incomplete"},
			Usage: "include experiments whose run did not complete (meta.json \"completed\": false), labelled so"},
		&cli.StringFlag{Name: "subexperiments", Aliases: []string{"s"},
			Usage: "follow only these comma-separated sub-experiments, with their requirements alone (default: every one); a name no experiment holds is an error"},
	}
}

// changeFlags are history's flags of how change points are looked for.
func changeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "significance", Value: strconv.FormatFloat(changepoint.DefaultAlpha, 'g', -1, 64),
			Usage: "significance level of each change point, and family-wise level of --gate: a fraction (0.01) or a percentage (1%), " + numflag.Level.Text()},
		&cli.IntFlag{Name: "permutations", Value: changepoint.DefaultPermutations,
			Usage: "shuffles per permutation test (the smallest p-value is 1/(permutations+1)), " + history.PermutationsRange.Text() + ", at least 1/significance − 1"},
		&cli.IntFlag{Name: "min-segment", Value: changepoint.MinSegmentFloor,
			Usage: "fewest experiments in a segment, " + history.MinSegmentRange.Text()},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the permutations: equal inputs and seed, equal change points; any whole number from 0 to 2^64-1"},
		&cli.IntFlag{Name: "change-window", Value: history.DefaultChangeWindow,
			Usage: "look for change points among the newest `N` experiments (the cost grows with N²), " + history.ChangeWindowRange.Text()},
	}
}

// gateFlags are the flags of --gate: what it judges, its window, its
// acknowledgements and its reports.
func gateFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.BoolFlag{Name: "gate", Usage: "exit 1 when a judged series is significantly slower than before a change point in the window, or trends slower"},
		&cli.StringFlag{Name: "gate-metrics", Value: strings.Join(history.DefaultGateMetrics, ","),
			Usage: "magnitudes --gate judges, comma-separated: " + strings.Join(history.Magnitudes, ", ")},
		&cli.StringFlag{Name: "min-change", Aliases: []string{"gate-threshold"}, Value: numflag.Percent(history.DefaultMinChange),
			Usage: "least slowdown --gate fails on, as a fraction (0.05) or percentage (5%), " + numflag.Tolerance.Text() + "; smaller shifts are reported, not failed (--gate-threshold is its former name)"},
		&cli.IntFlag{Name: "gate-window", Value: history.DefaultGateWindow,
			Usage: "--gate judges a change point only when its new segment begins among the newest `K` experiments, " + history.GateWindowRange.Text() + ", at least --min-segment"},
		&cli.StringFlag{Name: "acknowledged", TakesFile: true,
			Usage: "with --gate, a CSV of accepted shifts (sub-experiment,payload,metric,experiment,note; formats §10) that do not fail the gate"},
	}, cliapp.ReportFlags("gate-", "with --gate, ")...)
}

// description is the history command's help text, after its usage.
const description = `Orders the experiments under DIR chronologically (meta.json start time, else the folder name
YYYY-MM-DD_HH-MM-SS; folders imported from Fast-RTPS get a meta.json from 'process --sut-name
NAME --sut-version V --start DATE DIR', which orders them by DATE and labels them by V; a start in the
future is warned about, and two folders of one run, a copy, are an error) and draws, for each sub-experiment:
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

Burst summaries (burst_<type>_summary.csv, run burst, formats §9) are followed as the Fast-RTPS
throughput history script plots them, per sub-experiment:
  <plots>/<type>/history_<lost_samples|subscription_throughput_mbs>.<ext>
  <plots>/<type>/<bytes>_bytes_<lost_samples|subscription_throughput_mbs>.<ext>
of Lost [samples] (lower is better) and Subscription throughput [Mb/s] (higher is better), with
the requirements of a burst requirements file (Experiment type,Payload [Bytes],Lost [samples],
Subscription throughput [Mb/s]) given as --requirements; --gate always judges them.

Change points: every series (sub-experiment, payload, magnitude) of the newest --change-window
experiments is split where its distribution shifts, by E-divisive means (the energy statistic;
each split kept only when a permutation test with --permutations seeded shuffles finds it
significant at --significance; segments of at least --min-segment experiments). A series with
fewer than 2 × --min-segment values is not tested. Change points are marked on the plots
(dashed line and segment medians on payload plots, triangles on magnitude plots) and listed in
history.csv (columns change, change-ratio, change-p on the experiment where the new segment
begins), in --json and in --html, with the experiment, its commit and the shift (new segment's
median over the previous one's).

Autocorrelated histories (neighbouring experiments alike, e.g. a drifting machine) are
pre-whitened before the permutation tests, with the lag-1 autocorrelation estimated per series
around the segments found and pooled over the series that share it (formats §10), so that they
do not show change points that are not there.

--gate judges every --gate-metrics series by every change point that begins among the newest
--gate-window experiments (default 10; 0 for any age) and is not acknowledged in the
--acknowledged file: the gate fails (exit 1) when the series' level since (the newest segment)
is slower than the segment before that change point by more than --min-change (default 5 %;
smaller shifts are reported but pass) and a permutation test of the two finds it significant, so
that a later partial recovery or several small steps cannot hide a slowdown; or when the window's
values rise by more than --min-change along Sen's line and Mann–Kendall, corrected for lag-1
autocorrelation, finds that significant (a creep). A series' tests share its level, and Holm's
correction over all N judged series keeps an unchanged system failing with probability at most
--significance. A slowdown is seen once --min-segment experiments have it and fails CI until
it is fixed, acknowledged, or --gate-window experiments old: then its level is the baseline, and
the gate warns that it was never acknowledged. Every gate report names the rule that decided
each series, the window, the level and N. The gate's verdict, one check per judged series, is also
written in the report formats of check and compare with --gate-junit, --gate-markdown and
--gate-json FILE.

An acknowledgements file (--acknowledged FILE, kept in the repository) accepts shifts on purpose:
  sub-experiment,payload,metric,experiment,note
  interprocess_reliable,*,Median,2024-03-01_12-00-00,new serializer: +8 % accepted (issue 412)
covers the change point of those series that begins at that experiment (give or take 2); "*"
matches every sub-experiment, payload or metric. Acknowledged changes pass and are shown so.

Examples:
  history --experiments-results results --requirements latency_requirements.csv --plots-directory history
  history --experiments_results results --requirements latency_requirements.csv --plots_directory history \
          --format svg --html history.html
  history --experiments-results results --requirements latency_requirements.csv --plots-directory history \
          --significance 0.05 --json history.json

As a CI gate (exit 1 on a significant slowdown of more than 5 % among the newest 10 experiments;
3 while no series has 10 experiments):
  history -e results -r latency_requirements.csv -p history --gate --min-change 5% --acknowledged history-acks.csv
  history -e results -r latency_requirements.csv -p history --gate --gate-junit history.xml --gate-markdown history.md

Exit status: 0 done (with --gate: no significant slowdown), 1 (--gate) a series is significantly
slower than before a change point in the window, or trends slower, 2 usage or input error, 3 (--gate) inconclusive: no series
has 2 × --min-segment experiments to test, 130 interrupted.`

// action turns the command line into a history.Config.
func action(c *cli.Context) error {
	if err := cliapp.NoArgs(c); err != nil {
		return err
	}
	paths := []string{"experiments-results", "plots-directory", "requirements", "html", "json", "acknowledged"}
	for _, f := range report.Formats {
		paths = append(paths, "gate-"+f.Flag)
	}
	if err := cliapp.NoEmpty(c, paths...); err != nil {
		return err
	}
	set := map[string]bool{}
	for _, f := range report.Formats {
		set[f.Flag] = c.IsSet("gate-" + f.Flag)
	}
	var subs []string
	if c.IsSet("subexperiments") {
		var err error
		if subs, err = experiment.ParseSubExperiments(c.String("subexperiments")); err != nil {
			return exit.Usagef("--subexperiments %v", err)
		}
	}
	return history.Run(c.Context, history.Config{
		SubExperiments:  subs,
		Experiments:     c.String("experiments-results"),
		Requirements:    c.String("requirements"),
		PlotsDirectory:  c.String("plots-directory"),
		Format:          c.String("format"),
		HTML:            c.String("html"),
		JSON:            c.String("json"),
		AllowIncomplete: c.Bool("allow-incomplete"),
		Significance:    c.String("significance"),
		Permutations:    c.Int("permutations"),
		MinSegment:      c.Int("min-segment"),
		Seed:            c.Uint64("seed"),
		ChangeWindow:    c.Int("change-window"),
		Gate:            c.Bool("gate"),
		GateMetrics:     c.String("gate-metrics"),
		GateMetricsSet:  c.IsSet("gate-metrics"),
		MinChange:       c.String("min-change"),
		MinChangeSet:    c.IsSet("min-change"),
		GateWindow:      c.Int("gate-window"),
		GateWindowSet:   c.IsSet("gate-window"),
		Acknowledged:    c.String("acknowledged"),
		GateReports:     cliapp.Reports(c, "gate-"),
		GateReportsSet:  set,
		Stderr:          c.App.ErrWriter,
	}, c.App.Writer)
}
