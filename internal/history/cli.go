package history

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/clobber"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/htmlreport"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/requirements"
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
}

// Result says what Run did.
type Result struct {
	History *History
	// Plots is the number of plots drawn.
	Plots int
	// CSV is the path of history.csv.
	CSV string
}

// Run reads the requirements and experiments of cfg and writes the history
// plots, history.csv and, when asked, the HTML report. Input errors are
// exit-code-2 errors that name the file and line.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if err := Guard(cfg).Check(); err != nil {
		return nil, err
	}
	reqs, err := requirements.ReadFile(cfg.Requirements)
	if err != nil {
		return nil, cliapp.Exit(cliapp.ExitUsage, err)
	}
	h, err := Load(ctx, cfg.Experiments, reqs, cfg.AllowIncomplete)
	if err != nil {
		return nil, interruptedOr(ctx, err)
	}
	if err := experiment.MatchLatency("the requirements file "+cfg.Requirements, requirements.LatencyOf(reqs), h.Latency); err != nil {
		return nil, cliapp.Exit(cliapp.ExitUsage, err)
	}
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
		page := h.Page(jobs, opt.SVG, []htmlreport.KV{
			{Key: "Experiments", Value: cfg.Experiments},
			{Key: "Requirements", Value: cfg.Requirements},
			{Key: "Generated", Value: time.Now().UTC().Format(time.RFC3339)},
		})
		if err := htmlreport.WriteFile(cfg.HTML, page); err != nil {
			return nil, err
		}
	}
	return &Result{History: h, Plots: len(jobs), CSV: csvPath}, nil
}

// Guard declares what a history with cfg reads and writes (see package
// clobber), by the flags that name them.
func Guard(cfg Config) *clobber.Guard {
	g := &clobber.Guard{}
	g.Experiments("--experiments-results", cfg.Experiments)
	g.File("--requirements", cfg.Requirements)
	g.Output("--html", cfg.HTML)
	g.OutputDir("--plots-directory", cfg.PlotsDir, CSVFileName+" and its plots <type>/history_*, <type>/<bytes>_bytes_*", func(rel string) bool {
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
	if cliapp.Interrupted(ctx) {
		return cliapp.Exit(cliapp.ExitInterrupted, err)
	}
	return cliapp.Exit(cliapp.ExitUsage, err)
}

// App returns the history command.
func App() *cli.App {
	return &cli.App{
		Name:      "history",
		Usage:     "plot latency across experiments (commits, builds) against the requirements",
		UsageText: "history --experiments-results DIR --requirements FILE --plots-directory DIR [--format png|svg] [--html FILE]",
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

Examples:
  history --experiments-results results --requirements latency_requirements.csv --plots-directory history
  history --experiments_results results --requirements latency_requirements.csv --plots_directory history \
          --format svg --html history.html

Exit status: 0 done, 2 usage or input error, 130 interrupted.`,
		HideHelpCommand: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "experiments-results", Aliases: []string{"experiments_results", "e"}, Required: true,
				Usage: "directory holding one folder per experiment", TakesFile: true},
			&cli.StringFlag{Name: "requirements", Aliases: []string{"r"}, Required: true,
				Usage: "requirements CSV (Experiment type,Bytes,Median,99%,Max)", TakesFile: true},
			&cli.StringFlag{Name: "plots-directory", Aliases: []string{"plots_directory", "p"}, Required: true,
				Usage: "directory for the plots and history.csv", TakesFile: true},
			&cli.StringFlag{Name: "format", Value: string(plots.FormatPNG), Usage: "plot image format: png or svg"},
			&cli.StringFlag{Name: "html", Usage: "also write a self-contained HTML report to `FILE`", TakesFile: true},
			&cli.BoolFlag{Name: "allow-incomplete", Aliases: []string{"allow_incomplete"},
				Usage: "include experiments whose run did not complete (meta.json \"completed\": false), labelled so"},
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
		Experiments:     c.String("experiments-results"),
		Requirements:    c.String("requirements"),
		PlotsDir:        c.String("plots-directory"),
		Format:          f,
		HTML:            c.String("html"),
		AllowIncomplete: c.Bool("allow-incomplete"),
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
	if cfg.HTML != "" {
		fmt.Fprintf(c.App.Writer, "HTML report: %s\n", cfg.HTML)
	}
	return nil
}
