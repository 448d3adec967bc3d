package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/historycmd"
	"github.com/mqgate/mqgate/internal/cliapp/processcmd"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/history"
	"github.com/mqgate/mqgate/internal/synth"
)

// fixture writes 5 generated experiments and the real Fast-RTPS v1.9.2
// summary (as experiment 2019-11-05_10-00-00, older than the generated ones)
// under dir/exps, and their requirements as dir/reqs.csv.
func fixture(t *testing.T) (exps, reqs string) {
	t.Helper()
	dir := t.TempDir()
	exps, reqs = filepath.Join(dir, "exps"), filepath.Join(dir, "reqs.csv")
	opt := synth.GenerateOptions{Seed: 1, Meta: true}
	if _, err := synth.Generate(exps, 5, opt); err != nil {
		t.Fatal(err)
	}
	if err := history.GenerateRequirements(reqs, opt); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("testdata/fastrtps-v192/measurements_interprocess_reliable_summary.csv")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(exps, "2019-11-05_10-00-00", "measurements_interprocess_reliable_summary.csv"), string(b))
	return exps, reqs
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = cliapp.Run(context.Background(), historycmd.App(), append([]string{"history"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func TestHistory(t *testing.T) {
	exps, reqs := fixture(t)
	plotsDir := filepath.Join(t.TempDir(), "plots")
	html := filepath.Join(t.TempDir(), "history.html")
	// The Fast-RTPS flag names.
	code, out, errOut := run(t, "--experiments_results", exps, "--requirements", reqs, "--plots_directory", plotsDir,
		"--format", "svg", "--html", html)
	if code != exit.OK {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	// 10 sub-experiments × (4 magnitude plots + 11 payloads × 3 checks).
	if want := "6 experiment(s), 10 sub-experiment(s): 370 plots"; !strings.Contains(out, want) {
		t.Errorf("stdout %q lacks %q", out, want)
	}
	// The Fast-RTPS experiment has one sub-experiment of ten: one warning
	// names the nine it lacks.
	if want := "interprocess_best_effort, interprocess_best_effort_security, interprocess_best_effort_tcp, " +
		"interprocess_best_effort_tcp_security, interprocess_reliable_security, interprocess_reliable_tcp, " +
		"interprocess_reliable_tcp_security, intraprocess_best_effort, intraprocess_reliable: " +
		"missing in 1 of 6 experiment(s), drawn as gaps: 2019-11-05_10-00-00\n"; !strings.Contains(errOut, want) || strings.Count(errOut, "missing in") != 1 {
		t.Errorf("stderr lacks warning %q or has more than one:\n%s", want, errOut)
	}
	n := 0
	filepath.WalkDir(plotsDir, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".svg") {
			n++
		}
		return err
	})
	if n != 370 {
		t.Errorf("%d SVG files, want 370", n)
	}
	for _, f := range []string{"interprocess_reliable/history_99.svg", "interprocess_reliable/16384_bytes_Median.svg", "history.csv"} {
		if _, err := os.Stat(filepath.Join(plotsDir, f)); err != nil {
			t.Error(err)
		}
	}
	csv, err := os.ReadFile(filepath.Join(plotsDir, "history.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(string(csv), "\n"); first != "experiment,sub-experiment,payload [Bytes],magnitude,value,requirement,change,change-ratio,change-p" {
		t.Errorf("history.csv header %q", first)
	}
	// Generated rows and the Fast-RTPS values are both there.
	if !strings.Contains(string(csv), "\n2024-01-05_00-00-00,interprocess_best_effort,16,Min,") ||
		!strings.Contains(string(csv), "\n2019-11-05_10-00-00,interprocess_reliable,16,Median,7.486,") {
		t.Errorf("history.csv lacks expected rows")
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "interprocess_reliable", "16384 bytes", "2019-11-05_10-00-00"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("HTML report lacks %q", want)
		}
	}
}

// TestHistoryPNG: PNG is the default format. One sub-experiment (the one
// the Fast-RTPS summary joins) is enough to show it: encoding the PNGs of
// all ten took a minute under the race detector.
func TestHistoryPNG(t *testing.T) {
	exps, reqs := fixture(t)
	plotsDir := t.TempDir()
	code, _, errOut := run(t, "--experiments-results", exps, "--requirements", reqs, "--plots-directory", plotsDir, "--subexperiments", "interprocess_reliable")
	if code != exit.OK {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	b, err := os.ReadFile(filepath.Join(plotsDir, "interprocess_reliable", "16_bytes_99.png"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
		t.Error("16_bytes_99.png is not a PNG")
	}
	if _, err := os.Stat(filepath.Join(plotsDir, "intraprocess_reliable")); !os.IsNotExist(err) {
		t.Errorf("a sub-experiment not followed has plots: %v", err)
	}
}

func TestHistoryErrors(t *testing.T) {
	exps, reqs := fixture(t)
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	badSummary := filepath.Join(dir, "badsummary")
	write(t, filepath.Join(badSummary, "e1", "measurements_intraprocess_reliable_summary.csv"),
		"Bytes,Samples,Max,Min,Mean,Median,Stdev,Mean jitter,Max jitter,90%,99%,99.99%\n16,10,1.000,1.000,1.000,1.0x0,0.000,0.000,0.000,1.000,1.000,1.000\n")
	badReqs := filepath.Join(dir, "bad_requirements.csv")
	write(t, badReqs, "Experiment type,Bytes,Median,99%,Max\nintraprocess_reliable,16,1.000,2.000,3.000\nintraprocess_reliable,32,1.000,abc,3.000\n")
	plotsDir := filepath.Join(dir, "plots")
	var badAcks []string
	for i, body := range []string{
		"sub-experiment,payload,metric,experiment\n",
		"sub-experiment,payload,metric,experiment,note\ninterprocess_reliable,*,Median,e1,ok\ninterprocess_reliable,16k,Median,e1,new codec\n",
		"sub-experiment,payload,metric,experiment,note\n*,16,p99,e1,new codec\n",
		"sub-experiment,payload,metric,experiment,note\n*,16,99%,e1, \n",
		"sub-experiment,payload,metric,experiment,note\n*,16,99%,e1\n",
	} {
		p := filepath.Join(dir, fmt.Sprintf("acks%d.csv", i))
		write(t, p, body)
		badAcks = append(badAcks, p)
	}

	tests := []struct {
		name string
		args []string
		want []string // in stderr
	}{
		{"missing results", []string{"-e", filepath.Join(dir, "nope"), "-r", reqs, "-p", plotsDir}, []string{"nope", "no such directory"}},
		{"empty results", []string{"-e", empty, "-r", reqs, "-p", plotsDir}, []string{empty, "holds nothing"}},
		{"bad summary", []string{"-e", badSummary, "-r", reqs, "-p", plotsDir}, []string{"measurements_intraprocess_reliable_summary.csv:2", `"Median"`, `"1.0x0"`}},
		{"bad requirements", []string{"-e", exps, "-r", badReqs, "-p", plotsDir}, []string{"bad_requirements.csv:3", `"99%"`}},
		{"missing requirements", []string{"-e", exps, "-r", filepath.Join(dir, "none.csv"), "-p", plotsDir}, []string{"none.csv"}},
		{"bad format", []string{"-e", exps, "-r", reqs, "-p", plotsDir, "--format", "gif"}, []string{"--format", "gif"}},
		{"missing flag", []string{"-e", exps, "-r", reqs}, []string{"plots-directory"}},
		{"extra argument", []string{"-e", exps, "-r", reqs, "-p", plotsDir, "extra"}, []string{"extra"}},
		{"bad significance", []string{"-e", exps, "-r", reqs, "-p", plotsDir, "--significance", "2"}, []string{"--significance", "did you mean 2%?", "above 0% and below 100%"}},
		{"too few permutations", []string{"-e", exps, "-r", reqs, "-p", plotsDir, "--significance", "0.001"}, []string{"199 permutations", "at least 999"}},
		{"short min segment", []string{"-e", exps, "-r", reqs, "-p", plotsDir, "--min-segment", "3"}, []string{"--min-segment 3 is out of range", "5 to 10000"}},
		{"negative window", []string{"-e", exps, "-r", reqs, "-p", plotsDir, "--change-window", "-1"}, []string{"--change-window -1"}},
		{"bad gate metric", []string{"-e", exps, "-r", reqs, "-p", plotsDir, "--gate", "--gate-metrics", "Median,p50"}, []string{"--gate-metrics", `"p50"`, "Min, Median, Max, 99%"}},
		{"bad gate threshold", []string{"-e", exps, "-r", reqs, "-p", plotsDir, "--gate", "--gate-threshold", "5x"}, []string{"--min-change", `"5x"`}},
		{"gate flag without gate", []string{"-e", exps, "-r", reqs, "-p", plotsDir, "--gate-threshold", "5%"}, []string{"--min-change (--gate-threshold) needs --gate"}},
		{"acknowledged without gate", []string{"-e", exps, "-r", reqs, "-p", plotsDir, "--acknowledged", badAcks[0]}, []string{"--acknowledged needs --gate"}},
		{"missing acknowledgements", []string{"-e", exps, "-r", reqs, "-p", plotsDir, "--gate", "--acknowledged", filepath.Join(dir, "none-acks.csv")}, []string{"none-acks.csv"}},
		{"acknowledgements header", []string{"-e", exps, "-r", reqs, "-p", plotsDir, "--gate", "--acknowledged", badAcks[0]}, []string{"acks0.csv:1", `expected exactly "sub-experiment,payload,metric,experiment,note"`}},
		{"acknowledged payload", []string{"-e", exps, "-r", reqs, "-p", plotsDir, "--gate", "--acknowledged", badAcks[1]}, []string{"acks1.csv:3", `column "payload"`, `"16k": expected a payload in bytes`}},
		{"acknowledged metric", []string{"-e", exps, "-r", reqs, "-p", plotsDir, "--gate", "--acknowledged", badAcks[2]}, []string{"acks2.csv:2", `column "metric"`, `"p99": expected one of Min, Median, Max, 99%`}},
		{"acknowledgement without note", []string{"-e", exps, "-r", reqs, "-p", plotsDir, "--gate", "--acknowledged", badAcks[3]}, []string{"acks3.csv:2", `column "note"`, "why the shift is accepted"}},
		{"acknowledgement fields", []string{"-e", exps, "-r", reqs, "-p", plotsDir, "--gate", "--acknowledged", badAcks[4]}, []string{"acks4.csv:2", "4 fields: expected 5"}},
		{"json over the csv", []string{"-e", exps, "-r", reqs, "-p", plotsDir, "--json", filepath.Join(plotsDir, "history.csv")}, []string{"--json", "--plots-directory"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := run(t, tt.args...)
			if code != exit.Usage {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, exit.Usage, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
		})
	}
	if _, err := os.Stat(plotsDir); err == nil {
		t.Error("a failed run created the plots directory")
	}
}

func TestHelp(t *testing.T) {
	code, out, _ := run(t, "--help")
	if code != exit.OK {
		t.Fatalf("--help exit %d", code)
	}
	for _, want := range []string{"--experiments-results", "experiments_results", "--plots-directory", "plots_directory", "--requirements", "--html", "--format"} {
		if !strings.Contains(out, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
}

func TestInterrupted(t *testing.T) {
	exps, reqs := fixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := cliapp.Run(ctx, historycmd.App(), []string{"history", "-e", exps, "-r", reqs, "-p", t.TempDir()}, &out, &errb)
	if code != exit.Interrupted {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, exit.Interrupted, errb.String())
	}
}

// gateFixture writes n generated experiments of two sub-experiments and
// three payloads whose latencies differ by noise only, times slowdown from
// experiment 22 on when slowdown > 0, and their requirements.
func gateFixture(t *testing.T, n int, slowdown float64) (exps, reqs string) {
	t.Helper()
	dir := t.TempDir()
	exps, reqs = filepath.Join(dir, "exps"), filepath.Join(dir, "reqs.csv")
	opt := synth.GenerateOptions{Seed: 3, Meta: true, Steady: true, Types: []string{"interprocess_best_effort", "interprocess_reliable"},
		Payloads: []int{16, 1024, 16384}, Slowdown: slowdown, SlowFrom: 22}
	if _, err := synth.Generate(exps, n, opt); err != nil {
		t.Fatal(err)
	}
	if err := history.GenerateRequirements(reqs, opt); err != nil {
		t.Fatal(err)
	}
	return exps, reqs
}

// TestGate: --gate exits 1 when the newest 8 of 30 experiments are 15 %
// slower, naming the series and the experiment where the slowdown begins,
// and 0 on the same experiments unchanged; the JSON report carries the
// verdict and the change points.
func TestGate(t *testing.T) {
	for _, c := range []struct {
		name     string
		slowdown float64
		code     int
		want     []string
	}{
		{"slower", 1.15, exit.GateFailed, []string{"FAILED interprocess_reliable, 16 bytes, Median: +1", "since 2024-01-23_00-00-00", "gate failed: "}},
		{"unchanged", 0, exit.OK, []string{"gate passed: no newest segment of 12 series (Median, 99%) is a significant slowdown"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			exps, reqs := gateFixture(t, 30, c.slowdown)
			dir := t.TempDir()
			js := filepath.Join(dir, "history.json")
			code, out, errOut := run(t, "-e", exps, "-r", reqs, "-p", filepath.Join(dir, "plots"), "--gate", "--min-change", "5%", "--json", js)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stdout:\n%s\nstderr:\n%s", code, c.code, out, errOut)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			b, err := os.ReadFile(js)
			if err != nil {
				t.Fatal(err)
			}
			var doc history.JSON
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			want := map[bool]string{true: "failed", false: "passed"}[c.code == exit.GateFailed]
			if doc.Gate == nil || doc.Gate.Verdict != want || doc.Gate.SeriesJudged != 12 || len(doc.Experiments) != 30 {
				t.Errorf("JSON gate %+v, %d experiments", doc.Gate, len(doc.Experiments))
			}
			if c.slowdown > 0 {
				n := 0
				for _, cp := range doc.ChangePoints {
					if cp.Metric == "Median" && cp.Experiment == "2024-01-23_00-00-00" && cp.Commit != "" && cp.Direction == "slower" {
						n++
					}
				}
				if n != 6 {
					t.Errorf("%d Median change points at experiment 22 with a commit, want 6", n)
				}
			}
		})
	}
}

// TestGateWindowAndAcknowledgements: the slowdown of the newest 8 of 30
// experiments fails the default window of 10 but not --gate-window 5, where
// every report says it is outside the window; acknowledged (one row for
// every series, at the experiment where it begins) it passes, shown as
// acknowledged with the file, line and note, while an acknowledgement of
// another experiment covers nothing and is warned about. Every gate report
// names the rule, the window, the level and N.
func TestGateWindowAndAcknowledgements(t *testing.T) {
	exps, reqs := gateFixture(t, 30, 1.15)
	dir := t.TempDir()
	acks := filepath.Join(dir, "acks.csv")
	write(t, acks, "sub-experiment,payload,metric,experiment,note\n*,*,*,2024-01-23_00-00-00,faster codec costs latency (issue 7)\n"+
		"interprocess_reliable,16,Median,1999-01-01_00-00-00,gone\n")
	reports := func(name string) []string {
		return []string{"--gate-markdown", filepath.Join(dir, name+".md"), "--gate-junit", filepath.Join(dir, name+".xml"),
			"--gate-json", filepath.Join(dir, name+".json"), "--json", filepath.Join(dir, name+"-history.json")}
	}
	for _, c := range []struct {
		name  string
		args  []string
		code  int
		out   []string
		files []string // in every gate report
	}{
		{"window 5", []string{"--gate-window", "5"}, exit.OK, []string{"gate passed: ", "gate window: newest 5 experiments", "12 outside the window"},
			[]string{"series by the rule that decided: outside the gate window 12", "newest 5 of 30 experiments (--gate-window)", "family-wise level 0.01", "N = 12"}},
		{"acknowledged", []string{"--acknowledged", acks}, exit.OK, []string{"gate passed: ", "gate window: newest 10 experiments", "12 acknowledged"},
			[]string{acks + ":2 (faster codec costs latency (issue 7)) acknowledges the shift at 2024-01-23_00-00-00 of 12 series, which pass: interprocess_best_effort 16 B Median +",
				"series by the rule that decided: acknowledged 12", "newest 10 of 30 experiments (--gate-window)", "N = 12", "covers nothing"}},
		{"min change 30%", []string{"--min-change", "30%"}, exit.OK, []string{"gate passed: ", "min change 30%"},
			[]string{"series by the rule that decided: below --min-change 12", "by more than 30% (--min-change)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"-e", exps, "-r", reqs, "-p", filepath.Join(dir, "plots"), "--gate"}, c.args...)
			code, out, errOut := run(t, append(args, reports(c.name)...)...)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stdout:\n%s\nstderr:\n%s", code, c.code, out, errOut)
			}
			for _, w := range c.out {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			for _, ext := range []string{".md", ".xml", ".json"} {
				b, err := os.ReadFile(filepath.Join(dir, c.name+ext))
				if err != nil {
					t.Fatal(err)
				}
				for _, w := range c.files {
					if ext != ".md" {
						w = strings.ReplaceAll(w, "(", "") // JSON and XML are checked for the words only
						w = strings.ReplaceAll(w, ")", "")
						b = []byte(strings.NewReplacer("(", "", ")", "").Replace(string(b)))
					}
					if !strings.Contains(string(b), w) {
						t.Errorf("%s%s lacks %q", c.name, ext, w)
					}
				}
			}
			b, err := os.ReadFile(filepath.Join(dir, c.name+"-history.json"))
			if err != nil {
				t.Fatal(err)
			}
			var doc history.JSON
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Gate == nil || len(doc.Gate.Changes) != 12 || doc.Gate.Experiments != 30 || !strings.Contains(doc.Gate.Rule, "N = 12") {
				t.Fatalf("JSON gate %+v", doc.Gate)
			}
			for _, ch := range doc.Gate.Changes {
				if c.name == "acknowledged" && (ch.Rule != history.RuleAcknowledged || ch.Acknowledged != acks+":2" || ch.Note == "") {
					t.Errorf("JSON change %+v, want acknowledged at %s:2", ch, acks)
				}
			}
			if w := "history: warning: " + acks + ":3: acknowledges a shift at experiment"; c.name == "acknowledged" && !strings.Contains(errOut, w) {
				t.Errorf("stderr lacks %q:\n%s", w, errOut)
			}
		})
	}
}

// TestShortHistory: with fewer than 10 experiments no series is tested,
// stdout says so, and --gate does not pass on nothing: it is inconclusive
// (exit 3) and says how many experiments it needs.
func TestShortHistory(t *testing.T) {
	exps, reqs := gateFixture(t, 9, 0)
	code, out, errOut := run(t, "-e", exps, "-r", reqs, "-p", t.TempDir(), "--gate")
	if code != exit.Inconclusive {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exit.Inconclusive, errOut)
	}
	if w := "no series has the 10 values a test needs: take at least 10 experiments"; !strings.Contains(errOut, w) {
		t.Errorf("stderr lacks %q:\n%s", w, errOut)
	}
	for _, w := range []string{"change points: 0 in 24 series (24 series too short to test: fewer than 10 values)", "12 series too short to test"} {
		if !strings.Contains(out, w) {
			t.Errorf("stdout lacks %q:\n%s", w, out)
		}
	}
}

// rawRuns writes n experiments of raw measurements (internal/synth: one
// sub-experiment, three payloads, 1,000 samples each, seeds 1..n), every
// latency times slowdown from experiment slowFrom on, and summarises each
// with process, as runs would be.
func rawRuns(t *testing.T, n, slowFrom int, slowdown float64) (exps, reqs string) {
	t.Helper()
	dir := t.TempDir()
	exps, reqs = filepath.Join(dir, "results"), filepath.Join(dir, "reqs.csv")
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		d := filepath.Join(exps, start.AddDate(0, 0, i).Format("2006-01-02_15-04-05"))
		s := synth.Spec{Types: []string{"intraprocess_reliable"}, Payloads: []int{16, 1024, 16384}, Samples: 1000, Seed: int64(i + 1), Slowdown: 1}
		if i >= slowFrom {
			s.Slowdown = slowdown
		}
		if err := synth.WriteExperiment(d, s); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		if code := cliapp.Run(context.Background(), processcmd.App(), []string{"process", "--no-plots", d}, &out, &errb); code != 0 {
			t.Fatalf("process %s: exit %d: %s", d, code, errb.String())
		}
	}
	write(t, reqs, "Experiment type,Bytes,Median,99%,Max\nintraprocess_reliable,16,100.000,200.000,900.000\n"+
		"intraprocess_reliable,1024,100.000,200.000,900.000\nintraprocess_reliable,16384,100.000,200.000,900.000\n")
	return exps, reqs
}

// TestGateFromRawRuns: raw measurements through process, then history:
// twenty runs whose last six are 20 % slower fail the gate at the first slow
// run; the same twenty runs unchanged pass.
func TestGateFromRawRuns(t *testing.T) {
	exps, reqs := rawRuns(t, 20, 14, 1.2)
	code, out, errOut := run(t, "-e", exps, "-r", reqs, "-p", t.TempDir(), "--gate")
	if code != exit.GateFailed {
		t.Fatalf("slower: exit %d, want 1; stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if w := "FAILED intraprocess_reliable, 16 bytes, Median: +"; !strings.Contains(out, w) || !strings.Contains(out, "since 2026-01-15_00-00-00") {
		t.Errorf("stdout lacks %q since 2026-01-15_00-00-00:\n%s", w, out)
	}
	exps, reqs = rawRuns(t, 20, 20, 1)
	if code, out, errOut := run(t, "-e", exps, "-r", reqs, "-p", t.TempDir(), "--gate"); code != exit.OK {
		t.Errorf("unchanged: exit %d, want 0; stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}
