package process_test

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// copyDir copies the files of testdata/name into a new temporary folder.
func copyDir(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	files, err := os.ReadDir(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		copyFile(t, filepath.Join("testdata", name, f.Name()), filepath.Join(dir, f.Name()))
	}
	return dir
}

// TestLoadAndPerMessageFolders: process on a run load folder and on a run
// permessage folder (files as run wrote them, embedded NATS and in-process
// links on a loaded machine, before L's quantity became L [µs]) draws their figures by payload and starts its
// HTML report with their tables, instead of showing only the receive
// rates of their throughput files: the load's delivery of the offered
// schedule, the per-message deliveries, latency and the overall rate
// beside the windows' median, each marked when it needs care.
func TestLoadAndPerMessageFolders(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stdout []string
		plots  []string
		page   []string
		absent []string
	}{
		{"load",
			[]string{"load_nats_best_effort_summary.json: 2 payloads -> plots", "6 plots in "},
			[]string{"load_nats_best_effort_latency", "load_nats_best_effort_rates", "load_intraprocess_best_effort_rates"},
			[]string{"One-way load per sub-experiment and payload", ">Offered<", ">4.00 k<", `class="num st-inconclusive">36.7 %<`,
				"16 B: delivered 36.7% of the offered schedule (100.0% of what was sent): the publishers did not keep up",
				"fan-in: 2 publisher(s), 1 subscriber(s), 1 topic(s); 2000 msg/s per publisher, open loop",
				"nats_best_effort: one-way latency by payload (every measured message)"},
			[]string{"Throughput per sub-experiment and payload"}},
		{"permessage",
			[]string{"permessage_nats_best_effort_summary.csv: 5 payloads -> plots", "8 plots in "},
			[]string{"permessage_nats_best_effort_latency", "permessage_nats_best_effort_rates", "permessage_nats_best_effort_cpu",
				"permessage_intraprocess_best_effort_cpu"},
			[]string{"Per-message latency and receiver throughput (msg/s) per sub-experiment and payload", `class="num st-inconclusive">32<`,
				">90.0 k<", `class="num st-inconclusive">4.01 M<`, "disagrees with overall: median 44.53× overall (bursts)",
				"nats_best_effort: CPU time per message by payload (whole run)", "permessage/nats_best_effort_&lt;payload&gt;_*.png"},
			[]string{"Throughput per sub-experiment and payload"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyDir(t, tc.name)
			html := filepath.Join(dir, "report.html")
			code, stdout, stderr := runProcess(t, "--html", html, dir)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, want := range tc.stdout {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
			for _, p := range tc.plots {
				if fi, err := os.Stat(filepath.Join(dir, "plots", p+".png")); err != nil || fi.Size() < 1000 {
					t.Errorf("plot %s.png missing or tiny: %v", p, err)
				}
			}
			b, err := os.ReadFile(html)
			if err != nil {
				t.Fatal(err)
			}
			page := string(b)
			for _, want := range tc.page {
				if !strings.Contains(page, want) {
					t.Errorf("report lacks %q", want)
				}
			}
			for _, not := range tc.absent {
				if strings.Contains(page, not) {
					t.Errorf("report shows %q: the rates without what they need to be read", not)
				}
			}
			if strings.Index(page, `id="headline"`) > strings.Index(page, `id="contents"`) {
				t.Error("the tables are not first")
			}
		})
	}
}

// TestBadLoadAndPerMessageSummaries: a damaged summary stops process with
// exit 2, names the file, the place and what was expected, and writes
// nothing: no plot of the files read before it, no HTML report.
func TestBadLoadAndPerMessageSummaries(t *testing.T) {
	for _, tc := range []struct {
		dir, file, old, new, want string
	}{
		{"load", "load_nats_best_effort_summary.json", `"drained": true`, `"drained": true, "colour": 1`,
			`load_nats_best_effort_summary.json:85:24: json: unknown field "colour" (expected run load's summary, mqgate-load-summary/2)`},
		// A summary renamed, or copied over another's, was drawn as the
		// sub-experiment its name says.
		{"load", "load_nats_best_effort_summary.json", `"subexperiment": "nats_best_effort"`, `"subexperiment": "nats_reliable"`,
			`load_nats_best_effort_summary.json: field "subexperiment" is "nats_reliable", but the file name says nats_best_effort`},
		{"load", "load_nats_best_effort_summary.json", "mqgate-load-summary/2", "mqgate-load-summary/9",
			`load_nats_best_effort_summary.json: format "mqgate-load-summary/9", expected "mqgate-load-summary/2"`},
		{"permessage", "permessage_nats_best_effort_summary.csv", "16,RT [msg/s],19900,", "16,RT [msg/s],many,",
			`permessage_nats_best_effort_summary.csv:6: column "Count": "many" is not a count`},
		{"permessage", "permessage_nats_best_effort_summary.csv", "16,SO [ns],19900,3311.236", "16,SO [ns],19900,3311.2x",
			`permessage_nats_best_effort_summary.csv:3: column "Mean": "3311.2x" is not a number (an empty cell is a missing value)`},
		{"permessage", "throughput_nats_best_effort.csv", "16,rate,0,19900,", "16,rate,0,lots,",
			`throughput_nats_best_effort.csv:2`},
	} {
		t.Run(tc.want, func(t *testing.T) {
			dir := copyDir(t, tc.dir)
			path := filepath.Join(dir, tc.file)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), tc.old) {
				t.Fatalf("%s lacks %q", tc.file, tc.old)
			}
			if err := os.WriteFile(path, []byte(strings.Replace(string(b), tc.old, tc.new, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			// A raw file, whose summary process would write first.
			copyFile(t, filepath.Join("testdata", "golden", "one_payload", "measurements_one_payload.csv"),
				filepath.Join(dir, "measurements_intraprocess_best_effort.csv"))
			before := files(t, dir)
			code, _, stderr := runProcess(t, "--html", filepath.Join(dir, "report.html"), dir)
			if code != 2 || !strings.Contains(stderr, filepath.Join(dir, tc.want)) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tc.want)
			}
			after := files(t, dir)
			for _, p := range slices.Sorted(maps.Keys(after)) {
				if b, ok := before[p]; !ok || b != after[p] {
					t.Errorf("refused, yet %s was written", p)
				}
			}
			if len(after) != len(before) {
				t.Errorf("refused, yet %d files became %d", len(before), len(after))
			}
		})
	}
}

// TestPerMessageSummaryNotListed: a per-message summary of a payload or
// sub-experiment that meta.json does not list (another run's file copied
// in) is refused, naming the file, its line and meta.json, before anything
// is written, as the raw, throughput and load files are (formats §6); it
// was drawn as this run's.
func TestPerMessageSummaryNotListed(t *testing.T) {
	const meta = `{"schema": 1, "experiment": "pm", "start": "2026-11-20T09:00:00Z", "end": "2026-11-20T09:01:00Z", "completed": true, "subexperiments": [` +
		`{"type": "nats_best_effort", "payloads": [{"bytes": 16}, {"bytes": 32}, {"bytes": 64}, {"bytes": 128}, {"bytes": 256}]},` +
		`{"type": "intraprocess_best_effort", "payloads": [{"bytes": 16}, {"bytes": 32}, {"bytes": 64}, {"bytes": 128}, {"bytes": 256}]}]}`
	for _, tc := range []struct {
		name string
		edit func(t *testing.T, dir string)
		want string
	}{
		{"payload", func(t *testing.T, dir string) {
			path := filepath.Join(dir, "permessage_nats_best_effort_summary.csv")
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(strings.Replace(string(b), "\n32,L [us],", "\n48,L [us],", 1)), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "permessage_nats_best_effort_summary.csv:14: payload 48 B of sub-experiment nats_best_effort is not in "},
		{"sub-experiment", func(t *testing.T, dir string) {
			copyFile(t, filepath.Join(dir, "permessage_nats_best_effort_summary.csv"), filepath.Join(dir, "permessage_zenoh_best_effort_summary.csv"))
		}, "permessage_zenoh_best_effort_summary.csv: sub-experiment zenoh_best_effort is not in "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyDir(t, "permessage")
			if err := os.WriteFile(filepath.Join(dir, "meta.json"), []byte(meta), 0o644); err != nil {
				t.Fatal(err)
			}
			tc.edit(t, dir)
			before := files(t, dir)
			code, _, stderr := runProcess(t, dir)
			if code != 2 || !strings.Contains(stderr, filepath.Join(dir, tc.want)) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tc.want)
			}
			if after := files(t, dir); len(after) != len(before) {
				t.Errorf("refused, yet %d files became %d", len(before), len(after))
			}
		})
	}
}

// files maps every file below dir, by its path, to its contents.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		out[path] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLoadNotesOnTheConsole: process on a run load folder prints, under
// each summary's line, what run load said at the end of each payload (the
// summary's notes: publishers that did not keep up, send delay) and the
// error of a run that did not complete; --quiet prints none of it.
func TestLoadNotesOnTheConsole(t *testing.T) {
	dir := copyDir(t, "load")
	path := filepath.Join(dir, "load_nats_best_effort_summary.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	stopped := strings.Replace(string(b), `"completed": true`, `"completed": false, "error": "nats_best_effort: interrupted after 1.2s of the measured period"`, 1)
	if stopped == string(b) {
		t.Fatal("the summary has no completed field")
	}
	if err := os.WriteFile(path, []byte(stopped), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runProcess(t, "--no-plots", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"  nats_best_effort: incomplete: nats_best_effort: interrupted after 1.2s of the measured period\n",
		"  nats_best_effort     16 B  note: delivered 36.7% of the offered schedule (100.0% of what was sent): the publishers did not keep up\n",
		"  nats_best_effort     16 B  note: send delay p99 18153.5 µs exceeds the period 500.0 µs: publishers were held back by the system\n",
		"  intraprocess_best_effort     16 B  note: delivered 94.1% of the messages sent: past the knee (or lossy)\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	// Each note follows its own summary's line.
	if i, j := strings.Index(stdout, "load_nats_best_effort_summary.json:"), strings.Index(stdout, "nats_best_effort     16 B  note: delivered 36.7%"); i < 0 || j < i {
		t.Errorf("the NATS notes are not under the NATS summary's line:\n%s", stdout)
	}
	if code, stdout, _ := runProcess(t, "-q", "--no-plots", dir); code != 0 || stdout != "" {
		t.Errorf("--quiet: exit %d, stdout %q", code, stdout)
	}
}

// TestPerMessageCPUPlotHasTheClientProcess: the CPU figure of a
// per-message run whose summary has the client process's CPU (the whole
// process, all threads: formats §10's Client CPU) draws it beside the
// sender, the receiver and the broker; a summary without it (earlier
// versions) draws the three.
func TestPerMessageCPUPlotHasTheClientProcess(t *testing.T) {
	for _, tc := range []struct {
		dir    string
		client bool
	}{{"permessage-client", true}, {"permessage", false}} {
		t.Run(tc.dir, func(t *testing.T) {
			dir := copyDir(t, tc.dir)
			html := filepath.Join(dir, "report.html")
			if code, _, stderr := runProcess(t, "--html", html, dir); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			b, err := os.ReadFile(html)
			if err != nil {
				t.Fatal(err)
			}
			page := string(b)
			i := strings.Index(page, "intraprocess_best_effort: CPU time per message by payload (whole run)")
			if i < 0 {
				t.Fatal("the report has no CPU figure")
			}
			fig := page[i:]
			fig = fig[:strings.Index(fig, "</svg>")]
			if got := strings.Contains(fig, ">client process<"); got != tc.client {
				t.Errorf("the CPU figure draws the client process: %v, want %v", got, tc.client)
			}
			if !strings.Contains(fig, ">sender<") {
				t.Error("the CPU figure lacks the sender")
			}
		})
	}
}

// TestLoadNothingMeasuredShowsNoLatency: a payload of which no latency was
// measured (latency.count 0: none of its messages came) shows "—" in the
// report's latency and send-delay cells, not 0 µs.
func TestLoadNothingMeasuredShowsNoLatency(t *testing.T) {
	dashes := func(dir string) int {
		t.Helper()
		html := filepath.Join(dir, "report.html")
		if code, _, stderr := runProcess(t, "--no-plots", "--html", html, dir); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		b, err := os.ReadFile(html)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(string(b), ">—<")
	}
	before := dashes(copyDir(t, "load"))
	dir := copyDir(t, "load")
	path := filepath.Join(dir, "load_nats_best_effort_summary.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sum map[string]any
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	p := sum["payloads"].([]any)[0].(map[string]any)
	none := map[string]any{"count": 0, "min_ns": 0, "max_ns": 0, "mean_ns": 0, "p50_ns": 0, "p95_ns": 0, "p99_ns": 0, "p999_ns": 0, "above_range": 0}
	p["latency"], p["latency_from_send"], p["send_delay"] = none, none, none
	for _, k := range []string{"min", "max", "mean", "p50", "p95", "p99", "p999"} {
		p["latency_"+k+"_us"] = nil
	}
	if b, err = json.Marshal(sum); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := dashes(dir) - before; got != 6 {
		t.Errorf("%d more cells read — with no latency measured; want 6 (p50, p95, p99, p99.9, max, send delay p99)", got)
	}
}
