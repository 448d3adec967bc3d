package zenoh_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/checkcmd"
	"github.com/mqgate/mqgate/internal/cliapp/comparecmd"
	"github.com/mqgate/mqgate/internal/cliapp/historycmd"
	"github.com/mqgate/mqgate/internal/cliapp/processcmd"
	"github.com/mqgate/mqgate/internal/cliapp/requirementscmd"
	"github.com/mqgate/mqgate/internal/cliapp/runcmd"
	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/zenoh"
	"github.com/mqgate/mqgate/internal/driver/zenoh/zenohhelper"
	"github.com/mqgate/mqgate/internal/driver/zenoh/zenohhelper/zenohtest"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/measurements"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/runapp"
)

// mainEnv makes the test binary behave as the run command, so that run
// can start it in the echo role (runapp.SelfEnv).
const mainEnv = "MQGATE_ZENOH_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		cliapp.Main(runcmd.App())
	}
	os.Setenv(mainEnv, "1")
	os.Setenv(runapp.SelfEnv, os.Args[0])
	os.Exit(m.Run())
}

// tool runs one of mqgate's tools in-process and checks its exit code.
// verdict, as the exit code tool wants, is a gate's verdict: 0 (passed) or
// 1 (failed), not an input error.
const verdict = -1

func tool(t *testing.T, app *cli.App, want int, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	code := cliapp.Run(context.Background(), app, append([]string{app.Name}, args...), &out, &errb)
	if code != want && !(want == verdict && (code == 0 || code == 1)) {
		t.Fatalf("%s %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", app.Name, strings.Join(args, " "), code, want, out.String(), errb.String())
	}
	return out.String() + errb.String()
}

// rawCounts reads a raw file: rows per payload.
func rawCounts(t *testing.T, dir, typ string) map[int]int {
	t.Helper()
	path := filepath.Join(dir, experiment.RawFileName(typ))
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[int]int{}
	r := measurements.NewReader(f, path)
	for r.Next() {
		got[r.Sample().Payload]++
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}

var types = []string{"zenoh_best_effort", "zenoh_reliable"}

// TestRunPeerAndClient measures both Zenoh sub-experiments with run, in
// peer mode with the pong started by run and in client mode through a
// router the echo process starts, then takes the two experiments through
// process, check and compare: the files are the pipeline's.
func TestRunPeerAndClient(t *testing.T) {
	bin := zenohtest.Helper(t)
	t.Setenv(zenohhelper.EnvHelper, bin)
	results := filepath.Join(t.TempDir(), "results")
	for _, tc := range []struct{ name, mode, echo string }{
		{"peer", "peer", "inprocess"},
		{"client", "client", "subprocess"},
	} {
		tool(t, runcmd.App(), 0, "-s", strings.Join(types, ","), "--zenoh-mode", tc.mode, "--echo", tc.echo,
			"--payloads", "16,1024", "--samples", "200", "--warmup", "20", "--timeout", "5s",
			"--out", results, "--name", tc.name, "-q")
		dir := filepath.Join(results, tc.name)
		m, err := meta.ReadFile(filepath.Join(dir, meta.FileName))
		if err != nil {
			t.Fatal(err)
		}
		if !m.Completed || len(m.SubExperiments) != 2 || m.Latency != meta.LatencyHalfRTT {
			t.Fatalf("%s: meta.json completed %v, %d sub-experiments, latency %s", tc.name, m.Completed, len(m.SubExperiments), m.Latency)
		}
		for i, sub := range m.SubExperiments {
			sys := sub.System
			if sys == nil || sys.Product != "zenoh" || sys.Version == "" || sys.Extra["mode"] != tc.mode || !strings.Contains(sys.Extra["helper"], "zenoh "+sys.Version) {
				t.Errorf("%s %s: system %+v", tc.name, sub.Type, sys)
			}
			if sys != nil && sys.Extra["links"] == "" {
				t.Errorf("%s %s: no Zenoh link recorded: %+v", tc.name, sub.Type, sys.Extra)
			}
			for _, p := range sub.Payloads {
				if p.Samples != 200 || p.Warmup != 20 || !p.Completed {
					t.Errorf("%s %s: payload %+v", tc.name, sub.Type, p)
				}
			}
			got := rawCounts(t, dir, types[i])
			if got[16] != 200 || got[1024] != 200 || len(got) != 2 {
				t.Errorf("%s %s: raw rows per payload %v", tc.name, types[i], got)
			}
			// The helper's own files stay beside the experiment's.
			if _, err := os.Stat(filepath.Join(dir, "helper", types[i], zenohhelper.SummaryFile)); err != nil {
				t.Error(err)
			}
		}
		doc, _ := os.ReadFile(filepath.Join(dir, meta.FileName))
		if wantCC := `"congestion_control": "block"`; !bytes.Contains(doc, []byte(wantCC)) {
			t.Errorf("%s: meta.json lacks %s", tc.name, wantCC)
		}
		tool(t, processcmd.App(), 0, "--no-plots", dir)
	}
	root := filepath.Dir(results)
	loose, tight := filepath.Join(root, "loose.csv"), filepath.Join(root, "tight.csv")
	var l, s strings.Builder
	l.WriteString("Experiment type,Bytes,Median,99%,Max\n")
	s.WriteString("Experiment type,Bytes,Median,99%,Max\n")
	for _, typ := range types {
		for _, b := range []string{"16", "1024"} {
			l.WriteString(typ + "," + b + ",1000000000.000,1000000000.000,1000000000.000\n")
			s.WriteString(typ + "," + b + ",0.001,0.001,0.001\n")
		}
	}
	os.WriteFile(loose, []byte(l.String()), 0o644)
	os.WriteFile(tight, []byte(s.String()), 0o644)
	client := filepath.Join(results, "client")
	tool(t, checkcmd.App(), 0, "--requirements", loose, "--experiment-directory", client, "--plots-directory", filepath.Join(root, "cp"))
	tool(t, checkcmd.App(), 1, "--requirements", tight, "--experiment-directory", client, "--plots-directory", filepath.Join(root, "cp"))
	// Peer and client runs may differ by more than any threshold allows
	// (below 100 %): compare must judge them, pass or fail.
	tool(t, comparecmd.App(), verdict, "--reference", filepath.Join(results, "peer"), "--results", client,
		"--plots-directory", filepath.Join(root, "comparison"), "--fail-threshold", "50%")
	reqs := filepath.Join(root, "latency_requirements.csv")
	tool(t, requirementscmd.App(), 0, "--experiments-results", results, "--output-file", reqs)
	hist := filepath.Join(root, "history")
	tool(t, historycmd.App(), 0, "--experiments-results", results, "--requirements", reqs, "--plots-directory", hist)
	h, err := os.ReadFile(filepath.Join(hist, "history.csv"))
	if err != nil || !bytes.Contains(h, []byte("zenoh_reliable")) || !bytes.Contains(h, []byte("zenoh_best_effort")) {
		t.Errorf("history.csv: %v\n%s", err, h)
	}
}

// TestRunRTT checks that --latency rtt reaches the helper: the raw file
// then holds whole round trips, and meta.json says so.
func TestRunRTT(t *testing.T) {
	t.Setenv(zenohhelper.EnvHelper, zenohtest.Helper(t))
	out := t.TempDir()
	tool(t, runcmd.App(), 0, "-s", "zenoh_reliable", "--echo", "inprocess", "--latency", "rtt",
		"--payloads", "64", "--samples", "50", "--warmup", "5", "--out", out, "--name", "e", "-q")
	m, err := meta.ReadFile(filepath.Join(out, "e", meta.FileName))
	if err != nil {
		t.Fatal(err)
	}
	s, err := zenohhelper.ReadResults(filepath.Join(out, "e", "helper", "zenoh_reliable"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Latency != meta.LatencyRTT || s.Summary.Latency != zenohhelper.LatencyRTT || len(s.Samples) != 50 {
		t.Errorf("meta latency %s, helper latency %s, %d samples", m.Latency, s.Summary.Latency, len(s.Samples))
	}
}

// TestRemotePongStops runs against a pong started apart (run echo's
// shape, --target zenoh=HOST:PORT) and stops that pong mid-run: run exits
// 2 within its timeouts, keeps the samples measured so far and marks
// meta.json incomplete.
func TestRemotePongStops(t *testing.T) {
	bin := zenohtest.Helper(t)
	opts := driver.Options{Reliable: true, Params: map[string]string{zenoh.FlagHelper: bin}}
	e, err := zenoh.Transport{}.Listen(context.Background(), "127.0.0.1:0", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	out := t.TempDir()
	// The pong stops once the ping runs (its output directory exists) and
	// has had time to measure: the run must then end on its own.
	go func() {
		for {
			if _, err := os.Stat(filepath.Join(out, "e", "helper", "zenoh_reliable")); err == nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(2 * time.Second)
		e.Close()
	}()
	start := time.Now()
	msg := tool(t, runcmd.App(), 2, "-s", "zenoh_reliable", "--target", "zenoh="+e.Addr(), "--zenoh-helper", bin,
		"--zenoh-key", "mqgate/bench", "--payloads", "16", "--samples", "2000000", "--warmup", "10",
		"--timeout", "300ms", "--max-lost-in-row", "5", "--out", out, "--name", "e", "-q")
	if !strings.Contains(msg, "incomplete") {
		t.Errorf("message: %s", msg)
	}
	if d := time.Since(start); d > 2*time.Minute {
		t.Errorf("run took %v after its far end stopped", d)
	}
	m, err := meta.ReadFile(filepath.Join(out, "e", meta.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if m.Completed || m.SubExperiments[0].Echo != "remote" || m.SubExperiments[0].Error == "" {
		t.Errorf("meta: completed %v, echo %s, error %q", m.Completed, m.SubExperiments[0].Echo, m.SubExperiments[0].Error)
	}
	// What was measured before the pong stopped is kept (on a loaded
	// machine that may be nothing, and then there is no raw file).
	if n := m.SubExperiments[0].Payloads; len(n) == 1 && n[0].Samples > 0 {
		if got := rawCounts(t, filepath.Join(out, "e"), "zenoh_reliable"); got[16] != n[0].Samples {
			t.Errorf("raw rows %v, meta %+v", got, n)
		}
	}
}

// TestRunBadFlags checks that a wrong Zenoh setting is refused before the
// experiment directory exists, with exit code 2 naming the flag.
func TestRunBadFlags(t *testing.T) {
	out := t.TempDir()
	for flag, want := range map[string]string{
		"--zenoh-mode=router":      `--zenoh-mode "router": expected peer or client`,
		"--zenoh-endpoint=tcp/x:1": "a router endpoint needs --zenoh-mode client",
		"--zenoh-key=mqgate/**":    "--zenoh-key",
	} {
		msg := tool(t, runcmd.App(), 2, "-s", "zenoh_reliable", flag, "--out", out, "--name", "e", "-q")
		if !strings.Contains(msg, want) {
			t.Errorf("%s: %s", flag, msg)
		}
		if _, err := os.Stat(filepath.Join(out, "e")); !os.IsNotExist(err) {
			t.Fatalf("%s: the experiment directory was created", flag)
		}
	}
}

// TestRunInterrupted interrupts a long Zenoh run: the helper's ping writes
// what it measured, run keeps those samples, marks meta.json interrupted
// and exits 130.
func TestRunInterrupted(t *testing.T) {
	t.Setenv(zenohhelper.EnvHelper, zenohtest.Helper(t))
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(3*time.Second, cancel)
	var o, e bytes.Buffer
	code := cliapp.Run(ctx, runcmd.App(), []string{"run", "-s", "zenoh_reliable", "--echo", "inprocess", "--payloads", "16",
		"--samples", "2000000", "--warmup", "10", "--out", out, "--name", "e", "-q"}, &o, &e)
	if code != exit.Interrupted {
		t.Fatalf("exit %d: %s", code, e.String())
	}
	m, err := meta.ReadFile(filepath.Join(out, "e", meta.FileName))
	if err != nil || !m.Interrupted || m.Completed {
		t.Fatalf("meta %+v %v", m, err)
	}
	if got := rawCounts(t, filepath.Join(out, "e"), "zenoh_reliable"); got[16] == 0 || got[16] != m.SubExperiments[0].Payloads[0].Samples {
		t.Errorf("raw rows %v, meta %+v", got, m.SubExperiments[0].Payloads)
	}
}

// TestRolesNothingMeasured runs `run req` and `run sub` over Zenoh with
// nothing at the far end: no queryable serves the req's key, no publisher
// sends to the sub. Both runs are incomplete (exit 2), and their reports
// write the figures they never measured, the times to a reply and the
// latency percentiles, as null, not as 0, which would read as an instant
// answer.
func TestRolesNothingMeasured(t *testing.T) {
	ep := zenohtest.Router(t)
	out := t.TempDir()
	for _, tc := range []struct {
		role, label, say string
		args             []string
		null             []string
	}{
		{"req", "query", "0 samples", []string{"--qps", "20", "--timeout", "1s"},
			[]string{"time_to_first_p50_us", "time_to_first_p99_us", "time_to_last_p50_us", "time_to_last_p99_us"}},
		{"sub", "pubsub", "0 samples", []string{"--timeout", "500ms"},
			[]string{"latency_p50_us", "latency_p90_us", "latency_p95_us", "latency_p99_us"}},
	} {
		msg := tool(t, runcmd.App(), 2, append([]string{tc.role, "--driver", "zenoh", "--endpoint", ep, "--out-dir", out,
			"--run-id", "n" + tc.role, "--instance", "1", "--duration", "500ms"}, tc.args...)...)
		if !strings.Contains(msg, "incomplete") || !strings.Contains(msg, tc.say) || strings.Contains(msg, "p50") {
			t.Errorf("%s: %s", tc.role, msg)
		}
		path := filepath.Join(out, "n"+tc.role, "roles", tc.role+"-"+tc.label+"-1.json")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var rep map[string]json.RawMessage
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if string(rep["completed"]) != "false" || string(rep["driver"]) != `"zenoh"` {
			t.Errorf("%s: completed %s, driver %s", path, rep["completed"], rep["driver"])
		}
		for _, f := range tc.null {
			if v, ok := rep[f]; !ok || string(v) != "null" {
				t.Errorf("%s: %q is %s, want null (nothing measured):\n%s", path, f, v, b)
			}
		}
	}
}
