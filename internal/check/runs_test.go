package check_test

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/check"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/requirements"
	"github.com/mqgate/mqgate/internal/result"
)

const runsType = "intraprocess_reliable"

var runsPayloads = []int{16, 1024}

// writeRuns writes n experiments named <prefix>NN under root, each with one
// summary whose Median, 99% and Max are a seeded draw around 10, 20 and 50
// µs (±5 %), times scale.
func writeRuns(t *testing.T, root, prefix string, n int, seed uint64, scale float64) []string {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	var dirs []string
	for i := 0; i < n; i++ {
		dir := filepath.Join(root, fmt.Sprintf("%s%02d", prefix, i+1))
		var rows []result.SummaryRow
		for _, b := range runsPayloads {
			f := func(x float64) float64 { return x * (1 + 0.05*(2*r.Float64()-1)) * scale }
			med, p99, max := f(10), f(20), f(50)
			rows = append(rows, result.SummaryRow{
				Bytes: b,
				Summary: result.Summary{
					Samples:    1000,
					Median:     med,
					P99:        p99,
					Max:        max,
					Min:        med / 2,
					Mean:       med,
					P90:        p99 * 0.9,
					P9999:      max,
					Stdev:      1,
					MeanJitter: 1,
					MaxJitter:  2,
				},
			})
		}
		if err := result.WriteSummaryFile(filepath.Join(dir, experiment.SummaryFileName(runsType)), rows); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	return dirs
}

// statRequirements derives distribution-free requirements (family-wise
// 1 %) from 12 reference runs and writes them; they fail a check only when
// all of at least 4 candidate runs exceed them.
func statRequirements(t *testing.T, root string) string {
	t.Helper()
	var obs []requirements.Observation
	for i, dir := range writeRuns(t, filepath.Join(root, "reference"), "ref", 12, 1, 1) {
		e, err := experiment.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range e.Summaries[0].Rows {
			obs = append(obs, requirements.Observation{Experiment: fmt.Sprint(i), Type: runsType, Bytes: r.Bytes, Median: r.Median, P99: r.P99, Max: r.Max})
		}
	}
	d, err := requirements.DeriveStatistical(obs, requirements.StatConfig{FalseFail: 0.01, Method: gate.MethodOrder, NormalityLevel: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if need := d.Requirements[0].NeedRuns[0]; need != 4 { // 1/C(16,4) = 1/1820 ≤ 0.01/6 < 1/C(15,3) = 1/455
		t.Fatalf("the fixture's requirements need %d candidate runs, the tests assume 4", need)
	}
	path := filepath.Join(root, "req.csv")
	if err := requirements.WriteFile(path, d.Rows()); err != nil {
		t.Fatal(err)
	}
	return path
}

func dirArgs(dirs []string) []string {
	var args []string
	for _, d := range dirs {
		args = append(args, "--experiment-directory", d)
	}
	return args
}

func TestSeveralRunsThreeVerdicts(t *testing.T) {
	root := t.TempDir()
	req := statRequirements(t, root)
	// A distribution-free check passes when the runs show the median run
	// within the limit at 99 %: 7 runs all within it, or 20 with at most 4
	// above (an unchanged run exceeds the largest of 12 about 1 time in 13).
	same := writeRuns(t, filepath.Join(root, "same"), "run", 20, 2, 1)
	slower := writeRuns(t, filepath.Join(root, "slower"), "run", 7, 3, 1.5)
	tests := []struct {
		name   string
		args   []string
		code   int
		counts [3]int // passed, failed, inconclusive
	}{
		{"unchanged system passes", dirArgs(same), exit.OK, [3]int{6, 0, 0}},
		{"50% slower fails every check", dirArgs(slower), exit.GateFailed, [3]int{0, 6, 0}},
		{"50% slower within a 60% margin", append(dirArgs(slower), "--margin", "60%"), exit.OK, [3]int{6, 0, 0}},
		{"one slower run is not enough to fail", dirArgs(slower[:1]), exit.Inconclusive, [3]int{0, 0, 6}},
		{"three slower runs neither", dirArgs(slower[:3]), exit.Inconclusive, [3]int{0, 0, 6}},
		{"four slower runs fail", dirArgs(slower[:4]), exit.GateFailed, [3]int{0, 6, 0}},
		{"a folder of runs", []string{"--experiments-results", filepath.Join(root, "slower")}, exit.GateFailed, [3]int{0, 6, 0}},
		{"50% slower, Median only", append(dirArgs(slower), "--columns", "median"), exit.GateFailed, [3]int{0, 2, 0}},
		{"unchanged, 99% and Max", append(dirArgs(same), "--columns", "Max, 99%"), exit.OK, [3]int{4, 0, 0}},
		{"a folder and a directory", append(dirArgs(same[:1]), "--experiments-results", filepath.Join(root, "slower")), exit.GateFailed, [3]int{0, 6, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			js := filepath.Join(t.TempDir(), "v.json")
			code, stdout, stderr := runCheck(t, root, append([]string{"--requirements", req, "--json", js}, tt.args...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tt.code, stdout, stderr)
			}
			var v gate.Verdict
			b, _ := os.ReadFile(js)
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatal(err)
			}
			if got := [3]int{v.Passed, v.Failed, v.Inconclusive}; got != tt.counts {
				t.Errorf("passed/failed/inconclusive %v, want %v\n%s", got, tt.counts, stdout)
			}
			if !strings.HasPrefix(v.Mode, "statistical requirements (distribution-free limits from 12 reference runs; Bonferroni, 0.167% per check): an unchanged system fails this check with chance ≤ 1%") || v.FalseFail != 0.01 {
				t.Errorf("the verdict does not state the mode: %q %v", v.Mode, v.FalseFail)
			}
			for _, c := range v.Checks {
				if c.Stats == nil || c.Stats.NReference != 12 || c.Stats.NCandidate < 1 || c.Stats.PAdjusted < c.Stats.P {
					t.Errorf("%d B %s: stats %+v", c.Payload, c.Metric.Name, c.Stats)
					continue
				}
				// The adjusted p-value reported is the one decided on:
				// Bonferroni at the file's check level (tail), 1/6 of the
				// false-fail level, failing exactly at ≤ the false-fail
				// level (order method).
				if want := math.Min(1, c.Stats.P*v.FalseFail/c.Stats.Tail); math.Abs(c.Stats.PAdjusted-want) > 1e-12*want || math.Abs(c.Stats.Tail*6-v.FalseFail) > 1e-6 || (c.Status == gate.Failed) != (c.Stats.PAdjusted <= v.FalseFail) {
					t.Errorf("%d B %s: %s with p %v adjusted %v, want Bonferroni %v", c.Payload, c.Metric.Name, c.Status, c.Stats.P, c.Stats.PAdjusted, want)
				}
			}
		})
	}
}

// TestSeveralRunsReports: the reports carry the three values; JUnit skips
// an inconclusive check with the reason, and the check reports of several
// runs go to --output-directory.
func TestSeveralRunsReports(t *testing.T) {
	root := t.TempDir()
	req := statRequirements(t, root)
	slower := writeRuns(t, filepath.Join(root, "slower"), "run", 3, 3, 1.5)
	out := filepath.Join(root, "out")
	junit, md := filepath.Join(root, "c.xml"), filepath.Join(root, "c.md")
	code, stdout, stderr := runCheck(t, root, append(dirArgs(slower), "--requirements", req, "--output-directory", out,
		"--junit", junit, "--markdown", md, "--html", filepath.Join(root, "c.html"), "--format", "svg")...)
	if code != exit.Inconclusive {
		t.Fatalf("exit %d, want 3\n%s\n%s", code, stdout, stderr)
	}
	if stderr != "check: inconclusive: 6 of 6 checks undecided, none failed; more runs would decide\n" {
		t.Errorf("stderr %q", stderr)
	}
	if !strings.Contains(stdout, "16 B Median: median of 3 runs") || !strings.Contains(stdout, "not gateable with 3 run(s), the distribution-free limit of 12 reference runs needs ≥ 4 candidate runs all above it") ||
		!strings.Contains(stdout, "about 1 more run(s) would decide") {
		t.Errorf("stdout does not explain the inconclusive checks:\n%s", stdout)
	}
	var doc struct {
		Skipped int `xml:"skipped,attr"`
		Suites  []struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Skipped *struct {
					Message string `xml:"message,attr"`
				} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	b, _ := os.ReadFile(junit)
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Skipped != 6 || doc.Suites[0].Cases[0].Skipped == nil || !strings.HasPrefix(doc.Suites[0].Cases[0].Skipped.Message, "inconclusive: 16 B Median:") {
		t.Errorf("JUnit: %d skipped, first case %+v", doc.Skipped, doc.Suites[0].Cases[0])
	}
	mdText, _ := os.ReadFile(md)
	if !strings.Contains(string(mdText), "check INCONCLUSIVE: 0 of 6 checks passed") || !strings.Contains(string(mdText), "0 failed, 0 missing, 6 inconclusive") {
		t.Errorf("Markdown:\n%s", mdText)
	}
	report, err := os.ReadFile(filepath.Join(out, check.ReportFileName(runsType)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(report), ",inconclusive\n") {
		t.Errorf("check report:\n%s", report)
	}
	for _, name := range []string{"comparison_median.svg", "comparison_99.svg", "comparison_max.svg"} {
		if _, err := os.Stat(filepath.Join(out, "plots", "measurements_"+runsType, name)); err != nil {
			t.Errorf("plot: %v", err)
		}
	}
	// Nothing is written into the candidate runs.
	for _, d := range slower {
		if _, err := os.Stat(filepath.Join(d, check.ReportFileName(runsType))); err == nil {
			t.Errorf("a check report was written into the candidate run %s", d)
		}
	}
}

func TestSeveralRunsErrors(t *testing.T) {
	root := t.TempDir()
	req := statRequirements(t, root)
	runs := writeRuns(t, filepath.Join(root, "runs"), "run", 2, 2, 1)
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"no runs", []string{"--requirements", req}, "--experiment-directory DIR (repeatable) or --experiments-results ROOT is required"},
		{"output directory for one run", append(dirArgs(runs[:1]), "--requirements", req, "--output-directory", filepath.Join(root, "o")), "--output-directory is for several runs"},
		{"a run twice", append(dirArgs(append(runs, runs[0])), "--requirements", req), "is given twice"},
		{"negative margin", append(dirArgs(runs), "--requirements", req, "--margin", "-5%"), "--margin: -5% is out of range: expected a value at least 0% and below 100%"},
		{"unknown column", append(dirArgs(runs), "--requirements", req, "--columns", "Median,Mean"), `--columns: unknown column "Mean": expected a comma-separated list of Median, 99%, Max`},
		{"no column", append(dirArgs(runs), "--requirements", req, "--columns", ","), `--columns: no column in ","`},
		{"margin not a number", append(dirArgs(runs), "--requirements", req, "--margin", "lots"), `--margin: "lots" is not a number`},
		{"output directory is a run", append(dirArgs(runs), "--requirements", req, "--output-directory", runs[0]), "is one of the candidate runs"},
		{"output directory in the folder of runs", []string{"--experiments-results", filepath.Dir(runs[0]), "--requirements", req, "--output-directory", filepath.Join(filepath.Dir(runs[0]), "check")}, "is, or is in, the folder of runs"},
		// Several runs write plots beside their reports: an explicit -p
		// without -o was ignored (exit 0, no plot, no word).
		{"plots directory without output directory", append(dirArgs(runs), "--requirements", req, "-p", filepath.Join(root, "p")), "several runs write their check reports and plots only with --output-directory"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCheck(t, root, tt.args...)
			if code != exit.Usage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q, want 2 and %q", code, stderr, tt.want)
			}
		})
	}
}

// TestOneRunStatisticalRequirements: one run against a log-normal
// requirement is judged by the prediction bound for one run (pass or fail);
// against a percentile requirement with a margin, by the raised limit.
func TestOneRunMarginPercentile(t *testing.T) {
	root := fixture(t)
	exp := filepath.Join(root, "exp")
	// The fixture fails 4 checks against testdata/requirements.csv; a
	// margin of 50 % lets every one pass.
	code, stdout, stderr := runCheck(t, root, "--requirements", "testdata/requirements.csv", "--experiment-directory", exp, "--margin", "50%")
	if code != exit.OK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "percentile requirements (Fast-RTPS mode): no statement on the chance that an unchanged system fails; 1 candidate run(s); margin +50% on every requirement") {
		t.Errorf("stdout:\n%s", stdout)
	}
}
