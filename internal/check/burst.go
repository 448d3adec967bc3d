package check

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/report"
	"github.com/mqgate/mqgate/internal/requirements"
)

// runBurst checks the burst summaries of one experiment directory against
// burst requirements (the Fast-RTPS throughput check): a report
// checks_burst_<type>.csv per summary, and the requested reports.
func runBurst(ctx context.Context, cfg Config, reqs []requirements.KeyedRow) (*Result, error) {
	if cfg.ExperimentDir == "" {
		return nil, exit.Usagef("burst requirements (%s) are checked against one experiment directory", cfg.Requirements)
	}
	files, err := experiment.FreshBurstSummaryFiles(cfg.ExperimentDir)
	if err != nil {
		return nil, exit.With(exit.Usage, err)
	}
	if err := plotsFolder(cfg.ExperimentDir); err != nil {
		return nil, err
	}
	if sel := cfg.SubExperiments; len(sel) > 0 {
		var known []string
		for _, f := range files {
			known = append(known, f.Type)
		}
		if err := checkSelection(cfg, known, "the burst summaries", &reqs); err != nil {
			return nil, err
		}
		files = slices.DeleteFunc(files, func(f experiment.File) bool { return !slices.Contains(sel, f.Type) })
	}
	if len(files) == 0 {
		return nil, exit.With(exit.Usage, fmt.Errorf("%s: no burst summary (%s): run process on the experiment first",
			cfg.ExperimentDir, experiment.BurstSummaryFileName("<type>")))
	}
	v := &gate.Verdict{Tool: Tool, ReferenceName: referenceName, Subject: cfg.ExperimentDir, Baseline: cfg.Requirements,
		Mode: "burst requirements (Fast-RTPS throughput): Lost at most, Subscription throughput at least", AllowMissing: cfg.AllowMissing}
	// The experiment as every check reads it: its meta.json read strictly,
	// its files those meta.json lists, and an incomplete run refused unless
	// --allow-incomplete (formats §6). A burst check read none of it.
	e, err := experiment.Load(cfg.ExperimentDir)
	if err != nil {
		return nil, exit.With(exit.Usage, err)
	}
	warnings, err := experiment.Incomplete([]*experiment.Experiment{e}, cfg.AllowIncomplete)
	if err != nil {
		return nil, exit.With(exit.Usage, err)
	}
	for _, w := range append(e.Warnings, warnings...) {
		v.Warn(w)
	}
	res := &Result{Verdict: v}
	// Every summary is read and judged before the first report is written:
	// a malformed one leaves every earlier report as it was.
	var outs []checkOutput
	for _, f := range files {
		if ctx.Err() != nil {
			return res, exit.With(exit.Interrupted, ctx.Err())
		}
		sum, err := requirements.ReadBurstSummary(f.Type, f.Path)
		if err != nil {
			return nil, exit.With(exit.Usage, err)
		}
		run := &experiment.Experiment{Bursts: []experiment.Burst{{Type: f.Type, Path: f.Path, Rows: sum.Rows}}}
		of := slices.DeleteFunc(slices.Clone(reqs), func(r requirements.KeyedRow) bool { return r.Type != f.Type })
		checks := burstKind.judge(of, []*experiment.Experiment{run}, nil, 0)
		if len(checks) == 0 {
			v.Warn(fmt.Sprintf("%s: no requirement for %s", cfg.Requirements, f.Type))
			continue
		}
		v.Add(gates(checks)...)
		outs = append(outs, checkOutput{path: filepath.Join(cfg.ExperimentDir, ReportFileName(burstKind.prefix+f.Type)), k: burstKind, checks: checks})
	}
	if err := checkPaths(cfg, outs); err != nil {
		return nil, err
	}
	for _, o := range outs {
		if err := atomicfile.Write(o.path, func(w io.Writer) error { return o.k.writeReport(w, o.checks, cfg.AllowMissing) }); err != nil {
			return res, err
		}
		res.Files = append(res.Files, o.path)
	}
	v.Finish()
	written, err := report.WriteFiles(v, "", func(flag string) string { return cfg.Reports[flag] })
	res.Files = append(res.Files, written...)
	return res, err
}
