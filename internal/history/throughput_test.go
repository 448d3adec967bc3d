package history_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/historycmd"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/history"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/synth"
)

// tputHistory writes 30 synthetic throughput experiments (3 % noise,
// seeded), the last 10 scaled by last, under a new root.
func tputHistory(t *testing.T, last float64, seed uint64) string {
	t.Helper()
	root := t.TempDir()
	loads := []result.ThroughputRow{{Mode: result.ModeWindow, Offered: 100}, {Mode: result.ModeRate, Offered: 5000}}
	if _, err := synth.WriteThroughputRuns(root, synth.ThroughputSpec{Loads: loads, SD: 0.03, Seed: seed, Commit: "c"}, 1, 20); err != nil {
		t.Fatal(err)
	}
	if _, err := synth.WriteThroughputRuns(root, synth.ThroughputSpec{Loads: loads, SD: 0.03, Seed: seed, Factor: last, Commit: "c"}, 21, 10); err != nil {
		t.Fatal(err)
	}
	return root
}

func runHistoryApp(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cliapp.Run(context.Background(), historycmd.App(), append([]string{"history"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// TestThroughputHistory: throughput series are plotted in msg/s; a drop in
// the newest experiments is a "slower" change point and fails --gate; a rise
// is "faster" and passes; unchanged experiments pass.
func TestThroughputHistory(t *testing.T) {
	for _, tt := range []struct {
		name      string
		last      float64
		code      int
		direction string
	}{
		{"drop", 0.8, exit.GateFailed, "slower"},
		{"rise", 1.25, exit.OK, "faster"},
		{"unchanged", 1, exit.OK, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := tputHistory(t, tt.last, 4)
			plots := filepath.Join(t.TempDir(), "plots")
			js := filepath.Join(t.TempDir(), "h.json")
			code, stdout, stderr := runHistoryApp(t, "-e", root, "-p", plots, "--format", "svg", "--gate", "--json", js)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tt.code, stdout, stderr)
			}
			csv, err := os.ReadFile(filepath.Join(plots, history.CSVFileName))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(csv), "run-001,throughput_intraprocess_best_effort_window,16,Messages/s,") ||
				!strings.Contains(string(csv), "throughput_intraprocess_best_effort_rate_5000,1024,Messages/s,") {
				t.Errorf("history.csv lacks the throughput series:\n%.600s", csv)
			}
			svg, err := os.ReadFile(filepath.Join(plots, "throughput_intraprocess_best_effort_window", "history_msgs.svg"))
			if err != nil {
				entries, _ := os.ReadDir(filepath.Join(plots, "throughput_intraprocess_best_effort_window"))
				t.Fatalf("%v; the folder holds %v", err, entries)
			}
			if !strings.Contains(string(svg), "Throughput [msg/s]") {
				t.Error("the throughput plot's axis is not in msg/s")
			}
			var doc struct {
				ChangePoints []struct {
					SubExperiment string `json:"sub_experiment"`
					Direction     string `json:"direction"`
					Experiment    string `json:"experiment"`
				} `json:"change_points"`
				Gate struct {
					Verdict    string `json:"verdict"`
					Candidates []struct {
						SubExperiment string `json:"sub_experiment"`
						Failed        bool   `json:"failed"`
					} `json:"candidates"`
				} `json:"gate"`
			}
			data, _ := os.ReadFile(js)
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			if tt.direction == "" {
				// Each series may show a change point with chance
				// --significance; the gate, Holm over the series, fails an
				// unchanged system with chance at most that.
				if doc.Gate.Verdict != "passed" {
					t.Errorf("unchanged: %+v", doc)
				}
				return
			}
			if len(doc.ChangePoints) != 4 {
				t.Errorf("%d change points, want one per throughput series (4): %+v", len(doc.ChangePoints), doc.ChangePoints)
			}
			for _, c := range doc.ChangePoints {
				if c.Direction != tt.direction || c.Experiment != "run-021" {
					t.Errorf("change %+v, want %s at run-021", c, tt.direction)
				}
			}
			failed := 0
			for _, c := range doc.Gate.Candidates {
				if c.Failed {
					failed++
				}
			}
			if (tt.code == exit.GateFailed) != (failed > 0) {
				t.Errorf("gate %s, %d failed candidates", doc.Gate.Verdict, failed)
			}
		})
	}
}

// TestGateChangeWindowTooNarrow: 30 experiments, --change-window 5 --gate:
// no series can be tested (10 values needed); the verdict is inconclusive
// and says to widen --change-window, where it said "take at least 10
// experiments" of a history of 30.
func TestGateChangeWindowTooNarrow(t *testing.T) {
	root := tputHistory(t, 1, 4)
	code, _, stderr := runHistoryApp(t, "-e", root, "-p", filepath.Join(t.TempDir(), "plots"), "--gate", "--change-window", "5")
	if code != exit.Inconclusive || strings.Contains(stderr, "take at least") ||
		!strings.Contains(stderr, "--change-window 5 looks at the newest 5 of the 30 experiments only; give --change-window 10 or more") {
		t.Errorf("exit %d, want 3; stderr:\n%s", code, stderr)
	}
}

// TestInterruptedSaysSo: a history interrupted (SIGINT, SIGTERM) exits 130
// saying "interrupted"; it printed Go's "context canceled".
func TestInterruptedSaysSo(t *testing.T) {
	root := tputHistory(t, 1, 4)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := cliapp.Run(ctx, historycmd.App(), []string{"history", "-e", root, "-p", filepath.Join(t.TempDir(), "plots")}, &out, &errb)
	if code != exit.Interrupted || errb.String() != "history: interrupted\n" {
		t.Errorf("exit %d, want 130; stderr %q", code, errb.String())
	}
}

// TestGateNamesJudgedMetrics: the gate's sentence names the magnitudes of
// the series it judged: a history of throughput series alone said "(Median,
// 99%; throughput Messages/s)", of burst series alone "(Median, 99%)", the
// --gate-metrics of latency series it did not have.
func TestGateNamesJudgedMetrics(t *testing.T) {
	root := tputHistory(t, 1, 4)
	code, stdout, stderr := runHistoryApp(t, "-e", root, "-p", filepath.Join(t.TempDir(), "plots"), "--gate")
	if code != exit.OK || !strings.Contains(stdout, "4 series (throughput Messages/s) is a significant slowdown") {
		t.Errorf("throughput: exit %d\n%s%s", code, stdout, stderr)
	}
	burst := t.TempDir()
	for e := range 12 {
		dir := filepath.Join(burst, fmt.Sprintf("2026-01-%02d_00-00-00", e+1))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		row := result.BurstRow{Payload: 16, Demand: 100, Sent: 1000, Received: 1000, SubMbps: 100 + float64(e%3)}
		if err := result.WriteBurstFile(filepath.Join(dir, experiment.BurstSummaryFileName("intraprocess_reliable")), []result.BurstRow{row}); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr = runHistoryApp(t, "-e", burst, "-p", filepath.Join(t.TempDir(), "plots"), "--gate")
	if code != exit.OK || !strings.Contains(stdout, "series (burst Lost [samples]; burst Subscription throughput [Mb/s]) is a significant slowdown") {
		t.Errorf("burst: exit %d\n%s%s", code, stdout, stderr)
	}
}
