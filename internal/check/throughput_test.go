package check_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/check"
	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/requirementscmd"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/requirements"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/synth"
)

var tputLoads = []result.ThroughputRow{{Mode: result.ModeWindow, Offered: 100}, {Mode: result.ModeRate, Offered: 5000}}

// tputRequirements derives throughput requirements from 20 seeded
// unchanged runs (3 % noise) with the requirements tool, statistical when
// method is set, and returns the file.
func tputRequirements(t *testing.T, root string, method string) string {
	t.Helper()
	ref := filepath.Join(root, "ref")
	if _, err := synth.WriteThroughputRuns(ref, synth.ThroughputSpec{Loads: tputLoads, SD: 0.03, Seed: 1}, 1, 20); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "req-"+method+".csv")
	args := []string{"requirements", "-e", ref, "-o", filepath.Join(root, "lat.csv"), "--throughput-output-file", out}
	if method != "" {
		args = append(args, "--false-fail", "0.01", "--method", method)
	}
	var b strings.Builder
	if code := cliapp.Run(t.Context(), requirementscmd.App(), args, &b, &b); code != 0 {
		t.Fatalf("requirements: exit %d\n%s", code, b.String())
	}
	return out
}

// TestThroughputCheck: throughput below its requirement fails (exit 1);
// unchanged runs pass or are inconclusive, never fail; one run and several;
// percentile and statistical requirements.
func TestThroughputCheck(t *testing.T) {
	root := t.TempDir()
	for _, method := range []string{"", gate.MethodLogNormal, gate.MethodOrder} {
		req := tputRequirements(t, root, method)
		for _, tt := range []struct {
			name   string
			factor float64
			runs   int
			seed   uint64
			want   []int
		}{
			{"unchanged, one run", 1, 1, 50, []int{exit.OK, exit.Inconclusive}},
			{"unchanged, 5 runs", 1, 5, 51, []int{exit.OK, exit.Inconclusive}},
			{"unchanged, 5 other runs", 1, 5, 52, []int{exit.OK, exit.Inconclusive}},
			{"30% drop, 5 runs", 0.7, 5, 53, []int{exit.GateFailed}},
			{"30% rise, 7 runs", 1.3, 7, 54, []int{exit.OK}}, // 7: the fewest that pass a distribution-free check
		} {
			dir := filepath.Join(root, method, strings.ReplaceAll(tt.name, " ", "_"))
			dirs, err := synth.WriteThroughputRuns(dir, synth.ThroughputSpec{Loads: tputLoads, SD: 0.03, Seed: tt.seed, Factor: tt.factor}, 100, tt.runs)
			if err != nil {
				t.Fatal(err)
			}
			args := []string{"--throughput-requirements", req, "--format", "svg"}
			for _, d := range dirs {
				args = append(args, "-e", d)
			}
			if tt.runs > 1 {
				args = append(args, "--output-directory", filepath.Join(dir, "out"))
			}
			if method == "" && tt.factor == 1 {
				// Percentile requirements (the 1st percentile of 20 runs)
				// make no statement on false fails: an unchanged run falls
				// below one of 4 limits about one time in five.
				continue
			}
			code, stdout, stderr := runCheck(t, root, args...)
			ok := false
			for _, w := range tt.want {
				ok = ok || code == w
			}
			if !ok {
				t.Errorf("%s %s: exit %d, want %v\n%s%s", method, tt.name, code, tt.want, stdout, stderr)
			}
			if tt.factor == 0.7 && !strings.Contains(stdout+stderr, "throughput_intraprocess_best_effort (window)") {
				t.Errorf("%s %s: output does not name the throughput row:\n%s%s", method, tt.name, stdout, stderr)
			}
		}
	}
}

// TestThroughputReports: in the Markdown and HTML reports a throughput
// below its requirement (the failure: higher is better) is "Below
// requirement" by a positive amount, never "Over requirement".
func TestThroughputReports(t *testing.T) {
	root := t.TempDir()
	req := tputRequirements(t, root, "")
	dirs, err := synth.WriteThroughputRuns(filepath.Join(root, "drop"), synth.ThroughputSpec{Loads: tputLoads, SD: 0.03, Seed: 60, Factor: 0.7}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	md, page := filepath.Join(root, "r", "summary.md"), filepath.Join(root, "r", "report.html")
	code, stdout, stderr := runCheck(t, root, "--throughput-requirements", req, "-e", dirs[0], "--format", "svg", "--markdown", md, "--html", page)
	if code != exit.GateFailed {
		t.Fatalf("exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	mdText := readFile(t, md, root)
	golden(t, "throughput.md", mdText)
	if !strings.Contains(string(mdText), "| Requirement | Below requirement | vs requirement |") || strings.Contains(string(mdText), "Over requirement") {
		t.Errorf("Markdown margin column does not read as below the requirement:\n%s", mdText)
	}
	html := string(readFile(t, page, root))
	if !strings.Contains(html, "Below requirement") || strings.Contains(html, "Over requirement") {
		t.Errorf("HTML report does not say below the requirement:\n%s", html)
	}
	// The throughput check plots: one per offered load, in the HTML too.
	for _, name := range []string{"check_window.svg", "check_rate_5000_msgs.svg"} {
		path := filepath.Join(experiment.PlotsDir(dirs[0]), "throughput_intraprocess_best_effort", name)
		if st, err := os.Stat(path); err != nil || st.Size() == 0 {
			t.Errorf("throughput check plot %s: %v", name, err)
		}
	}
	for _, want := range []string{"Check throughput_intraprocess_best_effort, window: median msg/s (higher is better)",
		"Check throughput_intraprocess_best_effort, rate 5000 msg/s: median msg/s (higher is better)"} {
		if strings.Count(html, want) < 2 { // the plot's title and its caption
			t.Errorf("HTML report lacks the plot %q", want)
		}
	}
}

// TestBothRequirementsNamed: a check against latency and throughput
// requirements names both files in its reports, whatever its mode.
func TestBothRequirementsNamed(t *testing.T) {
	root := fixture(t)
	exp := filepath.Join(root, "exp")
	req := tputRequirements(t, root, "")
	dirs, err := synth.WriteThroughputRuns(filepath.Join(root, "tput"), synth.ThroughputSpec{Loads: tputLoads, SD: 0.03, Seed: 61}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dirs[0], experiment.ThroughputFileName("intraprocess_best_effort")))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(exp, experiment.ThroughputFileName("intraprocess_best_effort")), string(b))
	md := filepath.Join(root, "summary.md")
	code, stdout, stderr := runCheck(t, root, "-r", "testdata/requirements.csv", "--throughput-requirements", req, "-e", exp, "--markdown", md, "--allow-missing")
	if code == exit.Usage {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if got := string(readFile(t, md, root)); !strings.Contains(got, "against `testdata/requirements.csv, $DIR/req-.csv`") {
		t.Errorf("Markdown does not name both requirements files:\n%s", got)
	}
}

// TestThroughputCheckMismatch: a requirement at an offered rate the runs
// did not measure is missing (exit 1, naming what was measured), and
// --allow-missing lets it pass; latency requirements alone on throughput
// experiments warn that throughput went unchecked.
func TestThroughputCheckMismatch(t *testing.T) {
	root := t.TempDir()
	req := tputRequirements(t, root, "")
	dirs, err := synth.WriteThroughputRuns(filepath.Join(root, "other"), synth.ThroughputSpec{Loads: []result.ThroughputRow{tputLoads[0], {Mode: result.ModeRate, Offered: 6000}}}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCheck(t, root, "--throughput-requirements", req, "-e", dirs[0], "--format", "svg", "--print-summaries")
	if code != exit.GateFailed || !strings.Contains(stdout, "16 B rate 5000 msg/s: no measurement in") ||
		!strings.Contains(stdout, "measured instead: 16 B rate 6000 msg/s (a different offered load is not compared)") ||
		!strings.Contains(stdout, "16 B rate 6000 msg/s: no throughput requirement for it") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
	report, err := os.ReadFile(filepath.Join(dirs[0], check.ReportFileName("throughput_intraprocess_best_effort")))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(report), "\n")
	if lines[0] != strings.Join(check.ThroughputReportColumns, ",") || !strings.HasPrefix(lines[1], "Median [msg/s],16,window,0,") || !strings.HasSuffix(lines[1], ",passed") ||
		!strings.HasPrefix(lines[2], "Median [msg/s],16,rate,5000,") || !strings.HasSuffix(lines[2], ",,,,failed") {
		t.Errorf("throughput check report:\n%s", report)
	}
	if code, stdout, stderr := runCheck(t, root, "--throughput-requirements", req, "-e", dirs[0], "--format", "svg", "--allow-missing"); code != exit.OK {
		t.Errorf("--allow-missing: exit %d\n%s%s", code, stdout, stderr)
	}
	bad := filepath.Join(root, "bad.csv")
	os.WriteFile(bad, []byte(strings.Join(requirements.ThroughputColumns, ",")+"\nintraprocess_best_effort,16,window,0,-3\n"), 0o644)
	code, _, stderr = runCheck(t, root, "--throughput-requirements", bad, "-e", dirs[0])
	if code != exit.Usage || !strings.Contains(stderr, `bad.csv:2: column "Median [msg/s]": "-3" is not a throughput > 0`) {
		t.Errorf("bad requirements: exit %d %s", code, stderr)
	}
	code, _, stderr = runCheck(t, root, "-e", dirs[0])
	if code != exit.Usage || !strings.Contains(stderr, "--requirements or --throughput-requirements is required") {
		t.Errorf("no requirements: exit %d %s", code, stderr)
	}
	_ = experiment.ThroughputFileName
}
