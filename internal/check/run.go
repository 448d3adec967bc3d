package check

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/clobber"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/htmlreport"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/report"
	"github.com/mqgate/mqgate/internal/requirements"
)

// Config is what one check does.
type Config struct {
	// Requirements is the requirements CSV (formats §4).
	Requirements string
	// ExperimentDir holds the summaries; the check reports are written there.
	ExperimentDir string
	// PlotsDir receives the check plots; experiment.PlotsDir(ExperimentDir)
	// when empty.
	PlotsDir string
	// Format of the plots; PNG when empty.
	Format plots.Format
	// AllowMissing makes checks without requirement or data neither pass nor
	// fail.
	AllowMissing bool
	// AllowIncomplete admits an experiment whose run did not complete; every
	// report then says so.
	AllowIncomplete bool
	// JUnit, Markdown, JSON and HTML, when set, are report files to write.
	JUnit, Markdown, JSON, HTML string
}

// Result is what Run found and wrote.
type Result struct {
	Verdict *gate.Verdict
	// Files lists every file written, in order.
	Files []string
}

// Guard declares what a check with cfg reads and writes (see package
// clobber), by the flags that name them.
func Guard(cfg Config) *clobber.Guard {
	g := &clobber.Guard{}
	g.File("--requirements", cfg.Requirements)
	g.Experiment("--experiment-directory", cfg.ExperimentDir)
	g.Output("--junit", cfg.JUnit)
	g.Output("--markdown", cfg.Markdown)
	g.Output("--json", cfg.JSON)
	g.Output("--html", cfg.HTML)
	g.OutputDir("--experiment-directory", cfg.ExperimentDir, "its check reports "+ReportFileName("<type>"), func(rel string) bool {
		_, ok := experiment.TypeOfCheckReport(rel)
		return ok && !strings.Contains(rel, "/")
	})
	plotsDir := cfg.PlotsDir
	if plotsDir == "" {
		plotsDir = experiment.PlotsDir(cfg.ExperimentDir)
	}
	g.OutputDir("--plots-directory", plotsDir, "its check plots measurements_<type>/comparison_<median|99|max>", func(rel string) bool {
		dir, name, ok := strings.Cut(rel, "/")
		return ok && strings.HasPrefix(dir, "measurements_") && !strings.Contains(name, "/") && strings.HasPrefix(name, "comparison_")
	})
	return g
}

// Run checks the summaries of cfg.ExperimentDir against cfg.Requirements,
// writes the check reports, the plots and the requested reports, and returns
// the verdict. Errors are input errors (exit code 2) naming the file, or
// interruptions (130); a failed gate is not an error here but
// Verdict.ExitCode() != 0. Nothing is read, removed or written when an
// output would overwrite an input or another output.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.PlotsDir == "" {
		cfg.PlotsDir = experiment.PlotsDir(cfg.ExperimentDir)
	}
	if cfg.Format == "" {
		cfg.Format = plots.FormatPNG
	}
	if err := Guard(cfg).Check(); err != nil {
		return nil, err
	}
	// Reports of an earlier check go first, so that a check that fails on
	// bad input leaves no report a later step could take for its own.
	if err := removeReports(cfg.ExperimentDir); err != nil {
		return nil, err
	}
	reqs, err := requirements.ReadFile(cfg.Requirements)
	if err != nil {
		return nil, cliapp.Exit(cliapp.ExitUsage, fmt.Errorf("requirements: %w", err))
	}
	exp, err := experiment.Load(cfg.ExperimentDir)
	if err != nil {
		return nil, cliapp.Exit(cliapp.ExitUsage, err)
	}
	latency, warnings, err := experiment.Admit([]*experiment.Experiment{exp}, cfg.AllowIncomplete)
	if err != nil {
		return nil, cliapp.Exit(cliapp.ExitUsage, err)
	}
	if err := experiment.MatchLatency("the requirements file "+cfg.Requirements, requirements.LatencyOf(reqs), latency); err != nil {
		return nil, cliapp.Exit(cliapp.ExitUsage, err)
	}
	sums := exp.Summaries
	v := Evaluate(reqs, sums)
	v.Subject, v.Baseline, v.AllowMissing = cfg.ExperimentDir, cfg.Requirements, cfg.AllowMissing
	for _, w := range append(exp.Warnings, warnings...) {
		v.Warn(w)
	}
	v.Finish()

	res := &Result{Verdict: v}
	byType := map[string][]gate.Check{}
	for _, c := range v.Checks {
		byType[c.SubExperiment] = append(byType[c.SubExperiment], c)
	}
	var svgs = map[string][]htmlreport.Plot{}
	for _, s := range sums {
		if ctx.Err() != nil {
			return res, cliapp.Exit(cliapp.ExitInterrupted, ctx.Err())
		}
		path := filepath.Join(cfg.ExperimentDir, ReportFileName(s.Type))
		if err := WriteReportFile(path, byType[s.Type], cfg.AllowMissing); err != nil {
			return res, err
		}
		res.Files = append(res.Files, path)
		for _, fig := range Figures(s.Type, byType[s.Type]) {
			path := filepath.Join(PlotDir(cfg.PlotsDir, s.Type), PlotFileName(fig.Metric, cfg.Format))
			if err := plots.Save(fig.Plot, path, cfg.Format); err != nil {
				return res, err
			}
			res.Files = append(res.Files, path)
			if cfg.HTML != "" {
				svg, err := plots.SVG(fig.Plot)
				if err != nil {
					return res, err
				}
				svgs[s.Type] = append(svgs[s.Type], htmlreport.Plot{Title: fig.Plot.Title.Text, SVG: svg})
			}
		}
	}
	for _, r := range []struct {
		path   string
		render func(io.Writer, *gate.Verdict) error
	}{{cfg.JUnit, report.JUnit}, {cfg.Markdown, report.Markdown}, {cfg.JSON, report.JSON}} {
		if r.path == "" {
			continue
		}
		if err := atomicfile.Write(r.path, func(w io.Writer) error { return r.render(w, v) }); err != nil {
			return res, err
		}
		res.Files = append(res.Files, r.path)
	}
	if cfg.HTML != "" {
		if err := htmlreport.WriteFile(cfg.HTML, Page(v, svgs)); err != nil {
			return res, err
		}
		res.Files = append(res.Files, cfg.HTML)
	}
	return res, nil
}

// removeReports removes the check reports (checks_<type>.csv) in dir.
func removeReports(dir string) error {
	old, err := filepath.Glob(filepath.Join(dir, ReportFileName("*")))
	if err != nil {
		return err
	}
	for _, f := range old {
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			return cliapp.Exit(cliapp.ExitUsage, fmt.Errorf("cannot remove the earlier check report %s: %w", f, err))
		}
	}
	return nil
}
