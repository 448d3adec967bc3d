package check

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/clobber"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/htmlreport"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/report"
	"github.com/mqgate/mqgate/internal/requirements"
	"github.com/mqgate/mqgate/internal/result"
)

// Config is what one check does.
type Config struct {
	// Requirements is the requirements CSV (formats §4); empty to check
	// throughput only.
	Requirements string
	// ThroughputRequirements is the throughput requirements CSV (formats
	// §4, §11); empty to check latency only.
	ThroughputRequirements string
	// ExperimentDir holds the summaries of a single run; the check reports
	// are written there.
	ExperimentDir string
	// ExperimentDirs and ExperimentsRoot (a folder of experiments) give
	// several candidate runs instead, judged together (Judge); the
	// check reports then go to OutputDir, and are not written without it.
	ExperimentDirs  []string
	ExperimentsRoot string
	// OutputDir receives the check reports of several runs.
	OutputDir string
	// Margin raises every requirement by this fraction (0.1 = 10 %).
	Margin float64
	// Columns are the checked columns (result.RequirementMetrics when nil).
	Columns []result.Metric
	// PlotsDir receives the check plots; experiment.PlotsDir(ExperimentDir)
	// for a single run, OutputDir/plots for several, when empty.
	PlotsDir string
	// Format of the plots; PNG when empty.
	Format plots.Format
	// AllowMissing makes checks without requirement or data neither pass nor
	// fail.
	AllowMissing bool
	// AllowIncomplete admits an experiment whose run did not complete; every
	// report then says so.
	AllowIncomplete bool
	// Reports are the report files to write, by report.Format flag
	// ("junit"); HTML, when set, is the HTML report to write.
	Reports map[string]string
	HTML    string
	// PrintSummaries makes Run print every check, not only the failed.
	PrintSummaries bool
	// SubExperiments, when given, are the only sub-experiments checked
	// (-s/--subexperiments); their requirements alone apply.
	SubExperiments []string
}

// Result is what Judge found and wrote.
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
	g.File("--throughput-requirements", cfg.ThroughputRequirements)
	for _, d := range append([]string{cfg.ExperimentDir}, cfg.ExperimentDirs...) {
		g.Experiment("--experiment-directory", d)
	}
	g.Experiments("--experiments-results", cfg.ExperimentsRoot)
	for _, f := range report.Formats {
		g.Output("--"+f.Flag, cfg.Reports[f.Flag])
	}
	g.Output("--html", cfg.HTML)
	g.OutputDir(reportDirFlag(cfg), cmp.Or(cfg.ExperimentDir, cfg.OutputDir), "its check reports "+ReportFileName("<type>"), func(rel string) bool {
		_, ok := experiment.TypeOfCheckReport(rel)
		return ok && !strings.Contains(rel, "/")
	})
	plotsDir := cmp.Or(cfg.PlotsDir, defaultPlotsDir(cfg))
	g.OutputDir("--plots-directory", plotsDir, "its check plots measurements_<type>/comparison_<median|99|max> and throughput_<type>/check_<load>", func(rel string) bool {
		dir, name, ok := strings.Cut(rel, "/")
		if !ok || strings.Contains(name, "/") {
			return false
		}
		return strings.HasPrefix(dir, "measurements_") && strings.HasPrefix(name, "comparison_") ||
			strings.HasPrefix(dir, "throughput_") && strings.HasPrefix(name, "check_")
	})
	return g
}

// reportDirFlag is the flag that names the folder of cfg's check reports.
func reportDirFlag(cfg Config) string {
	if cfg.ExperimentDir == "" {
		return "--output-directory"
	}
	return "--experiment-directory"
}

// Judge checks the summaries of cfg.ExperimentDir against cfg.Requirements,
// writes the check reports, the plots and the requested reports, and returns
// the verdict. Errors are input errors (exit code 2) naming the file, or
// interruptions (130); a failed gate is not an error here but
// Verdict.ExitCode() != 0. Nothing is read, removed or written when an
// output would overwrite an input or another output. Every file is
// replaced by the rename of a complete temporary file, and the check
// reports of an earlier check stay until this check's are written: then
// (whether the gate passed or failed) those it did not write again are
// removed, so that none is left that a later step could take for this
// check's. A check refused for bad input or interrupted removes nothing:
// its exit code already says there is no new verdict, and an earlier report
// is a good file. A check killed at any point leaves each report as it was
// or completely new.
func Judge(ctx context.Context, cfg Config) (*Result, error) {
	var earlier []string
	res, err := run(ctx, cfg, &earlier)
	if err != nil {
		return res, err
	}
	return res, exit.With(exit.Usage, experiment.RemoveStale(earlier, res.Files, "check report"))
}

// run is Judge; it lists in *earlier the check reports found in the report
// directory once the outputs are known not to clash with the inputs.
func run(ctx context.Context, cfg Config, earlier *[]string) (*Result, error) {
	cfg, reportDir, err := prepare(cfg, earlier)
	if err != nil {
		return nil, err
	}
	if cfg.Requirements != "" && requirements.IsBurstFile(cfg.Requirements) {
		breqs, err := requirements.ReadBurstFile(cfg.Requirements)
		if err != nil {
			return nil, exit.With(exit.Usage, fmt.Errorf("requirements: %w", err))
		}
		return runBurst(ctx, cfg, breqs)
	}
	reqs, treqs, err := readRequirements(cfg)
	if err != nil {
		return nil, err
	}
	exps, subject, warnings, err := admitRuns(ctx, cfg, &reqs, &treqs)
	if err != nil {
		return nil, err
	}
	// Latency, then throughput: each kind's checks, its family step, its
	// reports and plots. The latency reports are written even when only
	// throughput is checked (kind.perSummary).
	parts := []part{{k: latencyKind, file: cfg.Requirements, reqs: reqs, columns: cfg.Columns},
		{k: throughputKind, file: cfg.ThroughputRequirements, reqs: treqs}}
	v := judgeParts(cfg, parts, exps, subject, warnings)
	res := &Result{Verdict: v}
	svgs, err := writeCheckReports(ctx, cfg, reportDir, parts, exps, res)
	if err != nil {
		return res, err
	}
	written, err := report.WriteFiles(v, "", func(flag string) string { return cfg.Reports[flag] })
	res.Files = append(res.Files, written...)
	if err != nil {
		return res, err
	}
	if cfg.HTML != "" {
		if err := htmlreport.WriteFile(cfg.HTML, Page(v, svgs)); err != nil {
			return res, err
		}
		res.Files = append(res.Files, cfg.HTML)
	}
	return res, nil
}

// prepare checks cfg and its outputs, fills in the defaults of the plots
// folder and format, and returns the folder of the check reports ("" for
// none), listing in *earlier the reports an earlier check left there.
func prepare(cfg Config, earlier *[]string) (Config, string, error) {
	single := cfg.ExperimentDir != ""
	if n := len(cfg.ExperimentDirs); (single && (n > 0 || cfg.ExperimentsRoot != "")) || (!single && n == 0 && cfg.ExperimentsRoot == "") {
		return cfg, "", exit.Usagef("give the candidate runs as one experiment directory, as several, or as a folder of experiments")
	}
	if !single && cfg.OutputDir == "" && cfg.PlotsDir != "" {
		// Several runs write their reports, and the plots beside them,
		// only with --output-directory: an explicit -p was ignored.
		return cfg, "", exit.Usagef("--plots-directory %s: several runs write their check reports and plots only with --output-directory: give it too", cfg.PlotsDir)
	}
	cfg.PlotsDir = cmp.Or(cfg.PlotsDir, defaultPlotsDir(cfg))
	cfg.Format = cmp.Or(cfg.Format, plots.FormatPNG)
	if !(cfg.Margin >= 0) || math.IsInf(cfg.Margin, 0) {
		return cfg, "", exit.Usagef("--margin %v: expected a fraction ≥ 0 (0.1 or 10%% raises every requirement by 10%%)", cfg.Margin)
	}
	if err := Guard(cfg).Check(); err != nil {
		return cfg, "", err
	}
	if err := outputNotARun(cfg); err != nil {
		return cfg, "", err
	}
	reportDir := cmp.Or(cfg.ExperimentDir, cfg.OutputDir)
	if err := outputsWritable(cfg); err != nil {
		return cfg, "", err
	}
	// Reports of an earlier check stay until this one's are written (Judge).
	if reportDir != "" {
		old, err := filepath.Glob(filepath.Join(reportDir, ReportFileName("*")))
		if err != nil {
			return cfg, "", err
		}
		*earlier = old
	}
	return cfg, reportDir, nil
}

// outputsWritable refuses, before anything is read or written, a report
// file of cfg that cannot be written: a directory, or below a file. A check
// that failed there would otherwise have replaced its check reports and
// plots, then exited 2. The check reports and plots are checked once the
// runs are read and their paths known (checkPaths).
func outputsWritable(cfg Config) error {
	for _, f := range report.Formats {
		if p := cfg.Reports[f.Flag]; p != "" {
			if err := atomicfile.CheckFile(p); err != nil {
				return exit.Usagef("--%s: %v", f.Flag, err)
			}
		}
	}
	if cfg.HTML != "" {
		if err := atomicfile.CheckFile(cfg.HTML); err != nil {
			return exit.Usagef("--html: %v", err)
		}
	}
	return nil
}

// readRequirements reads the latency and throughput requirements files of
// cfg (nil for a file not given); at least one is required.
func readRequirements(cfg Config) (reqs, treqs []requirements.KeyedRow, err error) {
	if cfg.Requirements == "" && cfg.ThroughputRequirements == "" {
		return nil, nil, exit.Usagef("--requirements FILE or --throughput-requirements FILE (or both) is required")
	}
	if cfg.Requirements != "" {
		reqs, err = requirements.ReadFile(cfg.Requirements)
		if err != nil {
			return nil, nil, exit.With(exit.Usage, fmt.Errorf("requirements: %w", err))
		}
	}
	if cfg.ThroughputRequirements != "" {
		treqs, err = requirements.ReadThroughputFile(cfg.ThroughputRequirements)
		if err != nil {
			return nil, nil, exit.With(exit.Usage, fmt.Errorf("throughput requirements: %w", err))
		}
	}
	return reqs, treqs, nil
}

// admitRuns reads the candidate runs of cfg, keeps the sub-experiments
// selected (narrowing *reqs and *treqs alike), and refuses runs that are
// incomplete or of another latency definition than the requirements.
func admitRuns(ctx context.Context, cfg Config, reqs, treqs *[]requirements.KeyedRow) (exps []*experiment.Experiment, subject string, warnings []string, err error) {
	exps, subject, warnings, err = loadRuns(ctx, cfg)
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", nil, exit.With(exit.Interrupted, err)
		}
		return nil, "", nil, exit.With(exit.Usage, err)
	}
	if exps, err = selectSubs(cfg, exps, reqs, treqs); err != nil {
		return nil, "", nil, err
	}
	latency, more, err := experiment.Admit(exps, cfg.AllowIncomplete)
	if err != nil {
		return nil, "", nil, exit.With(exit.Usage, err)
	}
	warnings = append(warnings, more...)
	if *reqs != nil && slices.ContainsFunc(exps, func(e *experiment.Experiment) bool { return len(e.Summaries) > 0 }) {
		if err := experiment.MatchLatency("the requirements file "+cfg.Requirements, requirements.LatencyOf(*reqs), latency); err != nil {
			return nil, "", nil, exit.With(exit.Usage, err)
		}
	}
	if *treqs == nil && slices.ContainsFunc(exps, func(e *experiment.Experiment) bool { return len(e.Throughputs) > 0 }) {
		warnings = append(warnings, "the experiments hold throughput summaries (throughput_<type>.csv) that were not checked: give --throughput-requirements")
	}
	return exps, subject, warnings, nil
}

// part is one kind of check of run: its requirements file and rows (nil
// when not given), the metrics checked, and, once judged, its checks.
type part struct {
	k       *kind
	file    string
	reqs    []requirements.KeyedRow
	columns []result.Metric
	checks  []rowCheck
}

// judgeParts judges exps against each part's requirements, filling in its
// checks, and returns the verdict of them all.
func judgeParts(cfg Config, parts []part, exps []*experiment.Experiment, subject string, warnings []string) *gate.Verdict {
	v := &gate.Verdict{Tool: Tool, ReferenceName: referenceName, Subject: subject, AllowMissing: cfg.AllowMissing}
	var baselines, modes []string
	for i, p := range parts {
		if p.reqs == nil {
			continue
		}
		parts[i].checks = p.k.judge(p.reqs, exps, p.columns, cfg.Margin)
		checks := gates(parts[i].checks)
		if st := p.reqs[0].Stat; st != nil {
			v.FalseFail = cmp.Or(v.FalseFail, st.FalseFail)
			checks = bonferroni(checks, st)
		}
		v.Add(checks...)
		modes = append(modes, p.k.mode(p.reqs, len(exps), cfg.Margin))
		baselines = append(baselines, p.file)
	}
	v.Mode, v.Baseline = strings.Join(slices.DeleteFunc(modes, func(m string) bool { return m == "" }), "; "), strings.Join(baselines, ", ")
	for _, w := range warnings {
		v.Warn(w)
	}
	v.Finish()
	return v
}

// writeCheckReports writes each part's check report per sub-experiment in
// reportDir (none when it is "") and its plots, adding their paths to
// res.Files. It returns the plots as SVG by label, for the HTML report.
// Every path is checked before the first is written (checkPaths).
func writeCheckReports(ctx context.Context, cfg Config, reportDir string, parts []part, exps []*experiment.Experiment, res *Result) (map[string][]htmlreport.Plot, error) {
	var svgs = map[string][]htmlreport.Plot{}
	if reportDir == "" {
		return svgs, nil
	}
	var outs []checkOutput
	for _, p := range parts {
		for _, typ := range p.k.reportTypes(exps, p.checks) {
			checks := slices.DeleteFunc(slices.Clone(p.checks), func(c rowCheck) bool { return c.Type != typ })
			outs = append(outs, checkOutput{path: filepath.Join(reportDir, ReportFileName(p.k.prefix+typ)), k: p.k, checks: checks,
				figs: p.k.figures(typ, checks, p.columns)})
		}
	}
	if err := checkPaths(cfg, outs); err != nil {
		return svgs, err
	}
	for _, o := range outs {
		if ctx.Err() != nil {
			return svgs, exit.With(exit.Interrupted, ctx.Err())
		}
		if err := atomicfile.Write(o.path, func(w io.Writer) error { return o.k.writeReport(w, o.checks, cfg.AllowMissing) }); err != nil {
			return svgs, err
		}
		res.Files = append(res.Files, o.path)
		if err := saveCheckFigures(cfg, o.figs, res, svgs); err != nil {
			return svgs, err
		}
	}
	return svgs, nil
}

// checkOutput is one check report to write, of kind k, and its plots.
type checkOutput struct {
	path   string
	k      *kind
	checks []rowCheck
	figs   []Figure
}

// checkPaths refuses, before anything is written, a check report or plot
// of outs that cannot be written (a directory in its place, a file where
// its folder, or the report or plots folder, would be), naming the flag of
// its folder.
func checkPaths(cfg Config, outs []checkOutput) error {
	for _, o := range outs {
		if err := atomicfile.CheckFile(o.path); err != nil {
			return exit.Usagef("%s: %v", reportDirFlag(cfg), err)
		}
		for _, fig := range o.figs {
			if err := atomicfile.CheckFile(filepath.Join(cfg.PlotsDir, fig.Path+cfg.Format.Ext())); err != nil {
				return exit.Usagef("--plots-directory: %v", err)
			}
		}
	}
	return nil
}

// saveCheckFigures saves figs in cfg.PlotsDir, adding their paths to
// res.Files and, with an HTML report, their SVG to svgs.
func saveCheckFigures(cfg Config, figs []Figure, res *Result, svgs map[string][]htmlreport.Plot) error {
	for _, fig := range figs {
		path := filepath.Join(cfg.PlotsDir, fig.Path+cfg.Format.Ext())
		if err := plots.Save(fig.Plot, path, cfg.Format); err != nil {
			return err
		}
		res.Files = append(res.Files, path)
		if cfg.HTML == "" {
			continue
		}
		svg, err := plots.SVG(fig.Plot)
		if err != nil {
			return err
		}
		svgs[fig.Label] = append(svgs[fig.Label], htmlreport.Plot{Title: fig.Plot.Title.Text, SVG: svg})
	}
	return nil
}

// defaultPlotsDir is where the plots go without --plots-directory: the
// experiment's plots folder for a single run, OUTPUT/plots for several ("",
// none, without --output-directory).
func defaultPlotsDir(cfg Config) string {
	switch {
	case cfg.ExperimentDir != "":
		return experiment.PlotsDir(cfg.ExperimentDir)
	case cfg.OutputDir != "":
		return filepath.Join(cfg.OutputDir, "plots")
	}
	return ""
}

// outputNotARun refuses an --output-directory that is one of the candidate
// runs, or the folder of runs or one in it: the joint reports would pass
// for one run's own, or for an experiment.
func outputNotARun(cfg Config) error {
	if cfg.OutputDir == "" {
		return nil
	}
	out := clobber.Canonical(cfg.OutputDir)
	for _, d := range cfg.ExperimentDirs {
		if out == clobber.Canonical(d) {
			return exit.Usagef("--output-directory %s is one of the candidate runs (--experiment-directory): give a directory of its own", cfg.OutputDir)
		}
	}
	if cfg.ExperimentsRoot != "" {
		root := clobber.Canonical(cfg.ExperimentsRoot)
		if out == root || filepath.Dir(out) == root {
			return exit.Usagef("--output-directory %s is, or is in, the folder of runs --experiments-results %s: give a directory outside it", cfg.OutputDir, cfg.ExperimentsRoot)
		}
	}
	return nil
}

// loadRuns loads the candidate runs of cfg and names them for reports.
func loadRuns(ctx context.Context, cfg Config) (exps []*experiment.Experiment, subject string, warnings []string, err error) {
	for _, d := range append([]string{cfg.ExperimentDir}, cfg.ExperimentDirs...) {
		if d == "" {
			continue
		}
		if err := plotsFolder(d); err != nil {
			return nil, "", nil, err
		}
	}
	if cfg.ExperimentDir != "" {
		e, err := experiment.Load(cfg.ExperimentDir)
		if err != nil {
			return nil, "", nil, err
		}
		return []*experiment.Experiment{e}, cfg.ExperimentDir, e.Warnings, nil
	}
	var names []string
	if len(cfg.ExperimentDirs) > 0 {
		got, err := experiment.LoadDirs(ctx, cfg.ExperimentDirs)
		if err != nil {
			return nil, "", nil, err
		}
		exps = append(exps, got...)
		names = append(names, cfg.ExperimentDirs...)
	}
	if cfg.ExperimentsRoot != "" {
		got, ws, err := experiment.LoadRoot(ctx, cfg.ExperimentsRoot)
		if err != nil {
			return nil, "", nil, err
		}
		exps = append(exps, got...)
		warnings = append(warnings, ws...)
		names = append(names, cfg.ExperimentsRoot+" ("+strconv.Itoa(len(got))+" experiments)")
	}
	seen := map[string]string{}
	for _, e := range exps {
		key := clobber.Canonical(e.Dir)
		if prev, dup := seen[key]; dup {
			return nil, "", nil, fmt.Errorf("experiment %s is given twice (also as %s): every candidate run counts once", e.Dir, prev)
		}
		seen[key] = e.Dir
		warnings = append(warnings, e.Warnings...)
	}
	return exps, strings.Join(names, ", "), warnings, nil
}
