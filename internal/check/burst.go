package check

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/report"
	"github.com/mqgate/mqgate/internal/requirements"
	"github.com/mqgate/mqgate/internal/result"
)

// BurstReportColumns is the header of a burst check report, the Fast-RTPS
// throughput pipeline's (formats §9).
var BurstReportColumns = []string{"Check", "Payload [Bytes]", "Requirement", "Experiment", "Difference", "Percentage over requirement", "Status"}

// BurstReportFileName is the burst check report of sub-experiment typ.
func BurstReportFileName(typ string) string { return ReportFileName("burst_" + typ) }

// EvaluateBurst judges the burst summary rows of sub-experiment typ
// against reqs (those of other types are ignored): Lost at most its
// requirement, then Subscription throughput at least its requirement, one
// check per required payload in the requirements' order, as the Fast-RTPS
// script orders its report. The percentage over a requirement of 0 is the
// difference × 100, as there.
func EvaluateBurst(typ string, reqs []requirements.KeyedRow, rows []result.BurstRow) []gate.Check {
	var checks []gate.Check
	for _, m := range requirements.BurstMetrics {
		for _, req := range reqs {
			if req.Type != typ {
				continue
			}
			want := req.Limits[m.Name]
			i := slices.IndexFunc(rows, func(r result.BurstRow) bool { return r.Payload == req.Key.Payload })
			if i < 0 {
				checks = append(checks, gate.MissingCheck(typ, req.Key.Payload, m, want, 0,
					fmt.Sprintf("required, but the burst summary of %s has no %d-byte row", typ, req.Key.Payload)))
				continue
			}
			got, _ := rows[i].Value(m)
			c := gate.Evaluate(typ, req.Key.Payload, m, referenceName, want, 0, got)
			if want == 0 {
				c.Percent = (got - want) * 100
			}
			checks = append(checks, c)
		}
	}
	return checks
}

// WriteBurstReport writes checks as a burst check report.
func WriteBurstReport(w io.Writer, checks []gate.Check, allowMissing bool) error {
	return writeReport(w, BurstReportColumns, len(checks), func(i int) (gate.Check, []string) {
		return checks[i], []string{checks[i].Metric.Name, strconv.Itoa(checks[i].Payload)}
	}, allowMissing)
}

// runBurst checks the burst summaries of one experiment directory against
// burst requirements (the Fast-RTPS throughput check): a report
// checks_burst_<type>.csv per summary, and the requested reports.
func runBurst(ctx context.Context, cfg Config, reqs []requirements.KeyedRow) (*Result, error) {
	if cfg.ExperimentDir == "" {
		return nil, exit.Usagef("burst requirements (%s) are checked against one experiment directory", cfg.Requirements)
	}
	files, err := experiment.BurstSummaryFiles(cfg.ExperimentDir)
	if err != nil {
		return nil, exit.With(exit.Usage, err)
	}
	if len(files) == 0 {
		return nil, exit.With(exit.Usage, fmt.Errorf("%s: no burst summary (%s): run process on the experiment first",
			cfg.ExperimentDir, experiment.BurstSummaryFileName("<type>")))
	}
	v := &gate.Verdict{Tool: Tool, ReferenceName: referenceName, Subject: cfg.ExperimentDir, Baseline: cfg.Requirements,
		Mode: "burst requirements (Fast-RTPS throughput): Lost at most, Subscription throughput at least", AllowMissing: cfg.AllowMissing}
	res := &Result{Verdict: v}
	for _, f := range files {
		if ctx.Err() != nil {
			return res, exit.With(exit.Interrupted, ctx.Err())
		}
		sum, err := requirements.ReadBurstSummary(f.Type, f.Path)
		if err != nil {
			return nil, exit.With(exit.Usage, err)
		}
		checks := EvaluateBurst(f.Type, reqs, sum.Rows)
		if len(checks) == 0 {
			v.Warn(fmt.Sprintf("%s: no requirement for %s", cfg.Requirements, f.Type))
			continue
		}
		v.Add(checks...)
		path := filepath.Join(cfg.ExperimentDir, BurstReportFileName(f.Type))
		if err := atomicfile.Write(path, func(w io.Writer) error { return WriteBurstReport(w, checks, cfg.AllowMissing) }); err != nil {
			return res, err
		}
		res.Files = append(res.Files, path)
	}
	v.Finish()
	written, err := report.WriteFiles(v, "", func(flag string) string { return cfg.Reports[flag] })
	res.Files = append(res.Files, written...)
	return res, err
}
