package check

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/htmlreport"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/report"
	"github.com/mqgate/mqgate/internal/requirements"
	"github.com/mqgate/mqgate/internal/summary"
)

// Config is what one check does.
type Config struct {
	// Requirements is the requirements CSV (SPEC §4).
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
	// JUnit, Markdown, JSON and HTML, when set, are report files to write.
	JUnit, Markdown, JSON, HTML string
}

// Result is what Run found and wrote.
type Result struct {
	Verdict *gate.Verdict
	// Files lists every file written, in order.
	Files []string
}

// Run checks the summaries of cfg.ExperimentDir against cfg.Requirements,
// writes the check reports, the plots and the requested reports, and returns
// the verdict. Errors are input errors (exit code 2) naming the file, or
// interruptions (130); a failed gate is not an error here but
// Verdict.ExitCode() != 0.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.PlotsDir == "" {
		cfg.PlotsDir = experiment.PlotsDir(cfg.ExperimentDir)
	}
	if cfg.Format == "" {
		cfg.Format = plots.FormatPNG
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
	sums, err := readSummaries(cfg.ExperimentDir)
	if err != nil {
		return nil, cliapp.Exit(cliapp.ExitUsage, err)
	}
	v := Evaluate(reqs, sums)
	v.Subject, v.Baseline, v.AllowMissing = cfg.ExperimentDir, cfg.Requirements, cfg.AllowMissing
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

// readSummaries reads every summary in dir; a directory that is missing, or
// holds no summary, is an input error.
func readSummaries(dir string) ([]Summary, error) {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("experiment directory %s does not exist", dir)
	case err != nil:
		return nil, err
	case !st.IsDir():
		return nil, fmt.Errorf("experiment directory %s is not a directory", dir)
	}
	files, err := experiment.SummaryFiles(dir)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s holds no summary (%s): run process on the experiment first", dir, experiment.SummaryFileName("<type>"))
	}
	sums := make([]Summary, 0, len(files))
	for _, f := range files {
		rows, err := summary.ReadFile(f.Path)
		if err != nil {
			return nil, err
		}
		sums = append(sums, Summary{Type: f.Type, Rows: rows})
	}
	return sums, nil
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
