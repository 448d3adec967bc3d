package check

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/goldenfile"

	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/requirements"
	"github.com/mqgate/mqgate/internal/result"
)

// golden compares got with testdata/golden/<name>, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", "golden", name), got)
}

func row(b int, median, p99, max float64) result.SummaryRow {
	return result.SummaryRow{Bytes: b, Summary: result.Summary{Samples: 100, Median: median, P99: p99, Max: max, Min: 1, Mean: median}}
}

// evaluate checks one run's summaries against reqs, as check does: by the
// plain rule.
func evaluate(reqs []requirements.KeyedRow, sums []experiment.Summary) []rowCheck {
	return latencyKind.judge(reqs, []*experiment.Experiment{{Summaries: sums}}, nil, 0)
}

// verdictOf is the verdict of checks.
func verdictOf(checks []rowCheck) *gate.Verdict { return &gate.Verdict{Checks: gates(checks)} }

func TestEvaluate(t *testing.T) {
	reqs := []requirements.KeyedRow{
		requirements.LatencyRow("a", 16, 10, 20, 30),
		requirements.LatencyRow("a", 64, 11, 21, 31),
		requirements.LatencyRow("b", 16, 10, 20, 30),
	}
	tests := []struct {
		name         string
		sums         []experiment.Summary
		allowMissing bool
		status       gate.Status
		passed       int
		failed       int
		missing      int
		messages     []string // substrings of the messages of checks that did not pass
	}{
		{
			name:   "all within",
			sums:   []experiment.Summary{{Type: "a", Rows: []result.SummaryRow{row(16, 10, 20, 30), row(64, 5, 5, 5)}}, {Type: "b", Rows: []result.SummaryRow{row(16, 1, 2, 3)}}},
			status: gate.Passed, passed: 9,
		},
		{
			name:   "one over",
			sums:   []experiment.Summary{{Type: "a", Rows: []result.SummaryRow{row(16, 10, 20.001, 30), row(64, 5, 5, 5)}}, {Type: "b", Rows: []result.SummaryRow{row(16, 1, 2, 3)}}},
			status: gate.Failed, passed: 8, failed: 1,
			messages: []string{"16 B 99% 20.001 µs exceeds requirement 20.000 µs by 0.001 µs"},
		},
		{
			name:   "payload without requirement",
			sums:   []experiment.Summary{{Type: "a", Rows: []result.SummaryRow{row(16, 1, 1, 1), row(64, 1, 1, 1), row(256, 1, 1, 1)}}, {Type: "b", Rows: []result.SummaryRow{row(16, 1, 2, 3)}}},
			status: gate.Failed, passed: 9, missing: 3,
			messages: []string{"256 B Median: the requirements have no row for a, 256 bytes"},
		},
		{
			name:         "payload without requirement allowed",
			sums:         []experiment.Summary{{Type: "a", Rows: []result.SummaryRow{row(16, 1, 1, 1), row(64, 1, 1, 1), row(256, 1, 1, 1)}}, {Type: "b", Rows: []result.SummaryRow{row(16, 1, 2, 3)}}},
			allowMissing: true,
			status:       gate.Passed, passed: 9, missing: 3,
		},
		{
			name:   "sub-experiment without requirements",
			sums:   []experiment.Summary{{Type: "a", Rows: []result.SummaryRow{row(16, 1, 1, 1), row(64, 1, 1, 1)}}, {Type: "b", Rows: []result.SummaryRow{row(16, 1, 2, 3)}}, {Type: "c", Rows: []result.SummaryRow{row(16, 1, 1, 1)}}},
			status: gate.Failed, passed: 9, missing: 3,
			messages: []string{"16 B Max: the requirements have no sub-experiment c"},
		},
		{
			name:   "requirement without data",
			sums:   []experiment.Summary{{Type: "a", Rows: []result.SummaryRow{row(16, 1, 1, 1)}}, {Type: "b", Rows: []result.SummaryRow{row(16, 1, 2, 3)}}},
			status: gate.Failed, passed: 6, missing: 3,
			messages: []string{"64 B Median: required, but the summary of a has no 64-byte row"},
		},
		{
			name:   "required sub-experiment without summary",
			sums:   []experiment.Summary{{Type: "a", Rows: []result.SummaryRow{row(16, 1, 1, 1), row(64, 1, 1, 1)}}},
			status: gate.Failed, passed: 6, missing: 3,
			messages: []string{"16 B Median: required, but the experiment has no summary for b"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := verdictOf(evaluate(reqs, tt.sums))
			v.AllowMissing = tt.allowMissing
			v.Finish()
			if v.Status != tt.status || v.Passed != tt.passed || v.Failed != tt.failed || v.Missing != tt.missing {
				t.Errorf("status %s passed %d failed %d missing %d; want %s %d %d %d",
					v.Status, v.Passed, v.Failed, v.Missing, tt.status, tt.passed, tt.failed, tt.missing)
			}
			var msgs []string
			for _, c := range v.Checks {
				if c.Status != gate.Passed {
					msgs = append(msgs, c.Message)
				}
			}
			all := strings.Join(msgs, "\n")
			for _, want := range tt.messages {
				if !strings.Contains(all, want) {
					t.Errorf("messages\n%s\nlack %q", all, want)
				}
			}
		})
	}
}

func TestEvaluateOrder(t *testing.T) {
	reqs := []requirements.KeyedRow{requirements.LatencyRow("a", 64, 1, 1, 1), requirements.LatencyRow("a", 16, 1, 1, 1), requirements.LatencyRow("z", 16, 1, 1, 1)}
	v := verdictOf(evaluate(reqs, []experiment.Summary{{Type: "a", Rows: []result.SummaryRow{row(1024, 1, 1, 1), row(16, 1, 1, 1), row(64, 1, 1, 1)}}}))
	var got []string
	for _, c := range v.Checks {
		got = append(got, c.SubExperiment+" "+c.Metric.Name+" "+strings.TrimSpace(strings.Split(c.Message, "B")[0]))
	}
	want := "a Median 16,a Median 64,a Median 1024,a 99% 16,a 99% 64,a 99% 1024,a Max 16,a Max 64,a Max 1024,z Median 16,z 99% 16,z Max 16"
	if strings.Join(got, ",") != want {
		t.Errorf("order\n%s\nwant\n%s", strings.Join(got, ","), want)
	}
}

// TestReportFastRTPS checks the Fast-RTPS fixture against a requirements
// file and compares the check report with its golden file.
func TestReportFastRTPS(t *testing.T) {
	reqs, err := requirements.ReadFile("testdata/requirements.csv")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := result.ReadSummaryFile("testdata/fastrtps/measurements_interprocess_reliable_summary.csv")
	if err != nil {
		t.Fatal(err)
	}
	checks := evaluate(reqs, []experiment.Summary{{Type: "interprocess_reliable", Rows: rows}})
	var b bytes.Buffer
	if err := latencyKind.writeReport(&b, checks, false); err != nil {
		t.Fatal(err)
	}
	golden(t, "checks_interprocess_reliable.csv", b.Bytes())
	if !strings.HasPrefix(b.String(), strings.Join(ReportColumns, ",")+"\n") {
		t.Errorf("header is not %q", strings.Join(ReportColumns, ","))
	}
}

func TestReportMissingRows(t *testing.T) {
	checks := evaluate([]requirements.KeyedRow{requirements.LatencyRow("a", 16, 10, 20, 30)}, []experiment.Summary{{Type: "a", Rows: []result.SummaryRow{row(16, 11, 5, 5), row(32, 1, 2, 3)}}})
	var b bytes.Buffer
	if err := latencyKind.writeReport(&b, checks, false); err != nil {
		t.Fatal(err)
	}
	golden(t, "checks_missing.csv", b.Bytes())
}

func TestFigures(t *testing.T) {
	checks := evaluate([]requirements.KeyedRow{requirements.LatencyRow("a", 16, 10, 20, 30), requirements.LatencyRow("a", 64, 10, 20, 30)}, []experiment.Summary{{Type: "a", Rows: []result.SummaryRow{row(16, 11, 5, 5), row(32, 1, 2, 3)}}})
	figs := latencyKind.figures("a", checks, nil)
	var names []string
	for _, f := range figs {
		names = append(names, f.Path+plots.FormatPNG.Ext()+" "+f.Plot.Title.Text)
		if _, err := plots.SVG(f.Plot); err != nil {
			t.Fatal(err)
		}
	}
	want := "measurements_a/comparison_median.png Check a: median,measurements_a/comparison_99.png Check a: 99%,measurements_a/comparison_max.png Check a: max"
	if strings.Join(names, ",") != want {
		t.Errorf("figures %q, want %q", strings.Join(names, ","), want)
	}
}

func TestMissingValueIsEmptyInReport(t *testing.T) {
	c := gate.MissingCheck("a", 16, result.Max, 5, math.NaN(), "x")
	var b bytes.Buffer
	if err := latencyKind.writeReport(&b, []rowCheck{{Check: c}}, false); err != nil {
		t.Fatal(err)
	}
	if got := strings.Split(b.String(), "\n")[1]; got != "Max,16,5.000,,,,failed" {
		t.Errorf("row %q", got)
	}
	b.Reset()
	if err := latencyKind.writeReport(&b, []rowCheck{{Check: c}}, true); err != nil {
		t.Fatal(err)
	}
	if b.String() != strings.Join(ReportColumns, ",")+"\n" {
		t.Errorf("allowed missing check written: %q", b.String())
	}
}

// TestZeroRequirementInReport: against a requirement of 0 the report holds
// what the Fast-RTPS script writes (numpy division, pandas to_csv with
// "%.3f"): "inf" for a value over it, nothing for 0 over 0; pandas reads
// both back as numbers (formats §4).
func TestZeroRequirementInReport(t *testing.T) {
	checks := []rowCheck{
		{Check: gate.Evaluate("a", 16, result.Max, referenceName, 0, 0, 1.5)},
		{Check: gate.Evaluate("a", 32, result.Max, referenceName, 0, 0, 0)},
	}
	var b bytes.Buffer
	if err := latencyKind.writeReport(&b, checks, false); err != nil {
		t.Fatal(err)
	}
	want := strings.Join(ReportColumns, ",") + "\nMax,16,0.000,1.500,1.500,inf,failed\nMax,32,0.000,0.000,0.000,,passed\n"
	if b.String() != want {
		t.Errorf("report\n%s\nwant\n%s", b.String(), want)
	}
}

// TestBurstReportSpecExample: the rows of the Fast-RTPS throughput check
// report example, from their requirement and experiment values; a Lost
// requirement of 0 gives the difference × 100 as its percentage, as the
// script computes it.
func TestBurstReportSpecExample(t *testing.T) {
	req := func(payload int, lost, mbps float64) requirements.KeyedRow {
		return requirements.KeyedRow{Type: "t", Key: result.Key{Payload: payload}, Limits: map[string]float64{result.BurstLost: lost, result.BurstThroughput: mbps}}
	}
	reqs := []requirements.KeyedRow{req(16, 58.8, 9.364), req(1024, 143.08, 555.954), req(64, 0, 1)}
	rows := []result.BurstRow{{Payload: 16, Lost: 2488, SubMbps: 9.263}, {Payload: 1024, Lost: 918, SubMbps: 547.765},
		{Payload: 64, Lost: 2, SubMbps: 1}}
	var b bytes.Buffer
	run := &experiment.Experiment{Bursts: []experiment.Burst{{Type: "t", Rows: rows}}}
	if err := burstKind.writeReport(&b, burstKind.judge(reqs, []*experiment.Experiment{run}, nil, 0), false); err != nil {
		t.Fatal(err)
	}
	want := `Check,Payload [Bytes],Requirement,Experiment,Difference,Percentage over requirement,Status
Lost [samples],16,58.800,2488.000,2429.200,4131.293,failed
Lost [samples],1024,143.080,918.000,774.920,541.599,failed
Lost [samples],64,0.000,2.000,2.000,200.000,failed
Subscription throughput [Mb/s],16,9.364,9.263,0.101,-1.079,failed
Subscription throughput [Mb/s],1024,555.954,547.765,8.189,-1.473,failed
Subscription throughput [Mb/s],64,1.000,1.000,0.000,0.000,passed
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func BenchmarkEvaluate(b *testing.B) {
	// Ten sub-experiments of eleven payloads, as a full Fast-RTPS run.
	var reqs []requirements.KeyedRow
	var sums []experiment.Summary
	for s := 0; s < 10; s++ {
		typ := fmt.Sprintf("sub%d", s)
		var rows []result.SummaryRow
		for p := 16; p <= 16384; p *= 2 {
			reqs = append(reqs, requirements.LatencyRow(typ, p, 10, 20, 30))
			rows = append(rows, row(p, 9, 21, 29))
		}
		sums = append(sums, experiment.Summary{Type: typ, Rows: rows})
	}
	for b.Loop() {
		v := verdictOf(evaluate(reqs, sums))
		v.Finish()
	}
}

// TestRefusedCheckKeepsEarlierReports: a check refused for bad input
// removes nothing, not even the report of the sub-experiment whose summary
// it could not read (its exit code says there is no new verdict); a check
// that completes removes the reports it did not write again.
func TestRefusedCheckKeepsEarlierReports(t *testing.T) {
	dir := t.TempDir()
	earlier := filepath.Join(dir, ReportFileName("interprocess_reliable"))
	other := filepath.Join(dir, ReportFileName("intraprocess_reliable"))
	for _, f := range []string{earlier, other} {
		if err := os.WriteFile(f, []byte("Check,Bytes\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sum := filepath.Join(dir, "measurements_interprocess_reliable_summary.csv")
	if err := os.WriteFile(sum, []byte("garbage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	req := filepath.Join(t.TempDir(), "req.csv")
	if err := os.WriteFile(req, []byte("Experiment type,Bytes,Median,99%,Max\ninterprocess_reliable,16,1,2,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Judge(context.Background(), Config{Requirements: req, ExperimentDir: dir}); err == nil {
		t.Fatal("a malformed summary was accepted")
	}
	for _, f := range []string{earlier, other} {
		if b, err := os.ReadFile(f); err != nil || string(b) != "Check,Bytes\n" {
			t.Fatalf("a refused check changed the earlier report %s: %q, %v", filepath.Base(f), b, err)
		}
	}

	// Once the summary is good, the check completes: its report replaces
	// the earlier one and the report of a sub-experiment it did not judge
	// goes.
	good := "Bytes,Samples,Max,Min,Mean,Median,Stdev,Mean jitter,Max jitter,90%,99%,99.99%\n" +
		"16,100,2,0.5,1,0.9,0.3,0.1,0.5,1.5,1.8,2\n"
	if err := os.WriteFile(sum, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Judge(context.Background(), Config{Requirements: req, ExperimentDir: dir, PlotsDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(earlier); err != nil || string(b) == "Check,Bytes\n" {
		t.Fatalf("the completed check did not replace its report: %q, %v", b, err)
	}
	if _, err := os.Stat(other); !os.IsNotExist(err) {
		t.Fatalf("the report of a sub-experiment the completed check did not judge is still there: %v", err)
	}
}

// TestUnwritableOutputWritesNothing: an output that cannot be written (a
// report flag naming a directory, a plots folder that is a file, a file
// where a plot's folder goes, an output folder that is a file) is refused
// with exit 2 naming its flag before any check report or plot is written:
// the check used to write the reports of the sub-experiments before the
// one that failed, then exit 2 with half its outputs new.
func TestUnwritableOutputWritesNothing(t *testing.T) {
	scratch := t.TempDir()
	aFile := filepath.Join(scratch, "a-file")
	if err := os.WriteFile(aFile, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	req := filepath.Join(scratch, "req.csv")
	if err := os.WriteFile(req, []byte("Experiment type,Bytes,Median,99%,Max\n"+
		"interprocess_reliable,16,1,2,3\nintraprocess_reliable,16,1,2,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := "Bytes,Samples,Max,Min,Mean,Median,Stdev,Mean jitter,Max jitter,90%,99%,99.99%\n" +
		"16,100,2,0.5,1,0.9,0.3,0.1,0.5,1.5,1.8,2\n"
	for _, c := range []struct {
		name, flag string
		cfg        func(dir string) Config
	}{
		{"plots folder is a file", "--plots-directory", func(dir string) Config { return Config{PlotsDir: aFile} }},
		{"junit is a directory", "--junit", func(dir string) Config { return Config{Reports: map[string]string{"junit": scratch}} }},
		{"html below a file", "--html", func(dir string) Config { return Config{HTML: filepath.Join(aFile, "r.html")} }},
		{"a plot's folder is a file", "--plots-directory", func(dir string) Config {
			plotsDir := filepath.Join(dir, "plots")
			if err := os.MkdirAll(plotsDir, 0o755); err != nil {
				t.Fatal(err)
			}
			// The second sub-experiment's folder: the first's plots and
			// report would be written before it fails.
			if err := os.WriteFile(filepath.Join(plotsDir, "measurements_intraprocess_reliable"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			return Config{}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, typ := range []string{"interprocess_reliable", "intraprocess_reliable"} {
				if err := os.WriteFile(filepath.Join(dir, "measurements_"+typ+"_summary.csv"), []byte(good), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cfg := c.cfg(dir)
			cfg.Requirements, cfg.ExperimentDir = req, dir
			_, err := Judge(context.Background(), cfg)
			if exit.Code(err) != exit.Usage || err == nil || !strings.Contains(err.Error(), c.flag+": ") {
				t.Errorf("got %v (exit %d), want exit 2 naming %s", err, exit.Code(err), c.flag)
			}
			for _, typ := range []string{"interprocess_reliable", "intraprocess_reliable"} {
				if _, err := os.Stat(filepath.Join(dir, ReportFileName(typ))); !os.IsNotExist(err) {
					t.Errorf("a refused check wrote the report of %s: %v", typ, err)
				}
				if _, err := os.Stat(filepath.Join(dir, "plots", "measurements_"+typ, "comparison_median.png")); err == nil {
					t.Errorf("a refused check wrote a plot of %s: %v", typ, err)
				}
			}
		})
	}
}

// TestUnwritableOutputDirectory: several runs' --output-directory that is
// a file is refused naming the flag, before anything is written.
func TestUnwritableOutputDirectory(t *testing.T) {
	scratch := t.TempDir()
	aFile := filepath.Join(scratch, "a-file")
	if err := os.WriteFile(aFile, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	req := filepath.Join(scratch, "req.csv")
	if err := os.WriteFile(req, []byte("Experiment type,Bytes,Median,99%,Max\nintraprocess_reliable,16,1,2,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for range 2 {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "measurements_intraprocess_reliable_summary.csv"), []byte(
			"Bytes,Samples,Max,Min,Mean,Median,Stdev,Mean jitter,Max jitter,90%,99%,99.99%\n16,100,2,0.5,1,0.9,0.3,0.1,0.5,1.5,1.8,2\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	_, err := Judge(context.Background(), Config{Requirements: req, ExperimentDirs: dirs, OutputDir: aFile})
	if exit.Code(err) != exit.Usage || err == nil || !strings.Contains(err.Error(), "--output-directory: ") {
		t.Fatalf("got %v (exit %d), want exit 2 naming --output-directory", err, exit.Code(err))
	}
}
