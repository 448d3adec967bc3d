package external_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/runcmd"
	"github.com/mqgate/mqgate/internal/driver/external"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/measurements"
	"github.com/mqgate/mqgate/internal/meta"
)

// runMainEnv makes the test binary the run command (for the SIGINT test).
const runMainEnv = "MQGATE_EXTERNAL_TEST_RUN"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == fakeArg {
		os.Exit(fakeMain(os.Args[2:]))
	}
	if len(os.Args) == 2 && os.Args[1] == "--version" { // the default version command
		os.Exit(fakeMain(os.Args[1:]))
	}
	if os.Getenv(runMainEnv) == "1" {
		cliapp.Main(runcmd.App())
	}
	os.Exit(m.Run())
}

// self is the test binary, which is also the fake benchmark program.
func self(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// fakeCommand is --external-command for the fake program with args.
func fakeCommand(t *testing.T, args ...string) string {
	t.Helper()
	b, err := json.Marshal(append([]string{self(t), fakeArg}, args...))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// run runs the run command in-process in a fresh results root.
func run(t *testing.T, root string, args ...string) (code int, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	args = append([]string{"run", "--quiet", "--out", root, "--name", "exp"}, args...)
	code = cliapp.Run(context.Background(), runcmd.App(), args, &out, &errb)
	return code, errb.String()
}

// readRaw returns the latencies of a raw file by payload, in order.
func readRaw(t *testing.T, dir, typ string) map[int][]float64 {
	t.Helper()
	path := filepath.Join(dir, experiment.RawFileName(typ))
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := measurements.NewReader(f, path)
	out := map[int][]float64{}
	for r.Next() {
		s := r.Sample()
		if s.Sample != len(out[s.Payload])+1 {
			t.Errorf("%s: sample %d of payload %d numbered %d", path, len(out[s.Payload])+1, s.Payload, s.Sample)
		}
		out[s.Payload] = append(out[s.Payload], s.Latency)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func readMeta(t *testing.T, dir string) *meta.Meta {
	t.Helper()
	m, err := meta.ReadFile(filepath.Join(dir, meta.FileName))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// want is the latencies the fake writes for payload, n of them, as the
// file's definition (µs) converted by factor.
func want(payload, n int, factor float64, round bool) []float64 {
	out := make([]float64, n)
	for i := range out {
		v := fakeLatency(payload, i)
		if round { // z_ping prints whole microseconds of the round trip
			v = float64(int(2 * v))
		}
		out[i] = v * factor
	}
	return out
}

func sameFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestFormats runs the fake program through run in each format and
// placement of its output: the raw file holds exactly the latencies it
// wrote, converted to the run's definition, and meta.json its command,
// version and exit statuses; its output is kept in the experiment folder.
func TestFormats(t *testing.T) {
	for _, c := range []struct {
		name, format string
		command      []string
		extra        []string
		latency      string
		want         func(p int) []float64
		status       string
		kept         []string
	}{
		{name: "fastrtps_reliable", format: "fastrtps", latency: meta.LatencyHalfRTT,
			command: []string{"-format", "fastrtps", "-payloads", "{payload}", "-n", "{samples}", "-out", "{out}"},
			want:    func(p int) []float64 { return want(p, 7, 1, false) }, status: "16:0 64:0",
			kept: []string{"output-16.csv", "stdout-16.log", "stderr-16.log", "output-64.csv"}},
		{name: "fastrtps_reliable", format: "fastrtps", latency: meta.LatencyRTT,
			command: []string{"-format", "fastrtps", "-payloads", "{payload}", "-n", "{samples}", "-out", "{out}"},
			want:    func(p int) []float64 { return want(p, 7, 2, false) }, status: "16:0 64:0"},
		{name: "zping_best_effort", format: "zping", latency: meta.LatencyHalfRTT,
			command: []string{"-format", "zping", "-payloads", "16,64", "-n", "9"},
			want:    func(p int) []float64 { return want(p, 9, 0.5, true) }, status: "0",
			kept: []string{"stdout.log", "stderr.log"}},
		{name: "mine_reliable_tcp", format: "lines", latency: meta.LatencyHalfRTT, extra: []string{"--external-unit", "ns"},
			command: []string{"-format", "lines", "-payloads", "{payload}", "-n", "{samples}"},
			want:    func(p int) []float64 { return want(p, 7, 0.5, false) }, status: "16:0 64:0"},
	} {
		t.Run(c.name+"_"+c.latency, func(t *testing.T) {
			root := t.TempDir()
			args := append([]string{"-s", c.name, "--external-name", c.name, "--external-format", c.format,
				"--external-command", fakeCommand(t, c.command...), "--payloads", "16,64", "--samples", "7", "--warmup", "3",
				"--latency", c.latency}, c.extra...)
			code, stderr := run(t, root, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			dir := filepath.Join(root, "exp")
			raw := readRaw(t, dir, c.name)
			for _, p := range []int{16, 64} {
				if !sameFloats(raw[p], c.want(p)) {
					t.Errorf("payload %d: %v, want %v", p, raw[p], c.want(p))
				}
			}
			m := readMeta(t, dir)
			if !m.Completed || m.Latency != c.latency || len(m.SubExperiments) != 1 {
				t.Fatalf("meta: completed %v latency %q subs %d", m.Completed, m.Latency, len(m.SubExperiments))
			}
			sub := m.SubExperiments[0]
			sys := sub.System
			if sys == nil || sys.Product != filepath.Base(self(t)) || sys.Version != "fakeprog 1.2.3 (test)" || sys.Extra["exit_status"] != c.status ||
				sys.Extra["format"] != c.format || !strings.Contains(sys.Extra["command"], `"-fake-program"`) {
				t.Errorf("system: %+v", sys)
			}
			for _, p := range sub.Payloads {
				if p.Samples != len(c.want(p.Bytes)) || !p.Completed || p.Lost != 0 {
					t.Errorf("payload %+v", p)
				}
			}
			if sub.Params["external-command"] == "" || sub.Transport != external.Name {
				t.Errorf("sub: transport %q params %v", sub.Transport, sub.Params)
			}
			for _, f := range c.kept {
				if _, err := os.Stat(filepath.Join(dir, c.name+".external", f)); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// TestFewerSamples checks that latencies missing from what the program
// was asked for ({samples}) are counted lost.
func TestFewerSamples(t *testing.T) {
	root := t.TempDir()
	code, stderr := run(t, root, "-s", "fast_reliable", "--external-name", "fast_reliable", "--external-format", "fastrtps",
		"--external-command", fakeCommand(t, "-payloads", "{payload}", "-n", "4", "-out", "{out}", "-stderr", "{samples}"),
		"--payloads", "16", "--samples", "7", "--warmup", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	p := readMeta(t, filepath.Join(root, "exp")).SubExperiments[0].Payloads[0]
	if p.Samples != 4 || p.Lost != 3 || p.Warmup != 0 {
		t.Errorf("payload %+v, want 4 samples and 3 lost", p)
	}
}

// TestSettingsRefused checks that mistakes in the driver's flags exit 2
// before anything is created, naming the flag and what was expected.
func TestSettingsRefused(t *testing.T) {
	cmd := fakeCommand(t, "-payloads", "{payload}")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-s", "x_reliable", "--external-name", "x_reliable", "--external-format", "lines", "--external-command", "no-such-program-mqgate -m {payload}"},
			`--external-command: program "no-such-program-mqgate" not found`},
		{[]string{"-s", "x_reliable", "--external-name", "x_reliable", "--external-format", "lines", "--external-command", "./missing/prog"},
			`program "./missing/prog" not found`},
		{[]string{"-s", "x_reliable", "--external-format", "lines", "--external-command", cmd},
			"--external-command needs --external-name"},
		{[]string{"-s", "x_fast", "--external-name", "x_fast", "--external-format", "lines", "--external-command", cmd},
			`sub-experiment name "x_fast" does not follow`},
		{[]string{"-s", "x_reliable", "--external-name", "x_reliable", "--external-command", cmd},
			"--external-command needs --external-format: one of fastrtps, sockperf, zping, lines"},
		{[]string{"-s", "x_reliable", "--external-name", "x_reliable", "--external-format", "csv", "--external-command", cmd},
			`--external-format: format "csv": expected one of`},
		{[]string{"-s", "x_reliable", "--external-name", "x_reliable", "--external-format", "lines", "--external-unit", "min", "--external-command", cmd},
			`--external-unit: unit "min"`},
		{[]string{"-s", "x_reliable", "--external-name", "x_reliable", "--external-format", "lines", "--external-command", `prog -m {paylod}`},
			"unknown placeholder {paylod}"},
		{[]string{"-s", "x_reliable", "--external-name", "x_reliable", "--external-format", "lines", "--external-command", `prog 'unterminated`},
			"unterminated ' quote"},
		{[]string{"-s", "x_reliable", "--external-name", "x_reliable", "--external-format", "lines", "--external-timeout", "soon", "--external-command", cmd},
			`--external-timeout "soon": expected a duration such as 10s, 1ms to 168h`},
		{[]string{"--external-name", "x_reliable", "--external-format", "lines", "--external-command", cmd},
			"sub-experiment x_reliable is defined by the flags of transport external but not selected"},
		{[]string{"-s", "x_reliable", "--external-name", "x_reliable"},
			"--external-name without --external-command"},
		{[]string{"-s", "x_reliable", "--external-name", "x_reliable", "--external-format", "lines", "--external-command", fakeCommand(t, "-format", "lines"),
			"--payloads", "16,32"}, "--external-format lines does not say the payload of a latency: put {payload} in --external-command"},
	} {
		root := t.TempDir()
		code, stderr := run(t, root, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
		if _, err := os.Stat(filepath.Join(root, "exp", meta.FileName)); err == nil && !strings.Contains(c.want, "does not say") {
			t.Errorf("%v: an experiment was created", c.args)
		}
	}
}

// TestProgramFails checks a program exiting with a non-zero status: exit 2
// with its status and the end of its standard error, the latencies it
// wrote kept (a line cut short dropped) and meta.json incomplete.
func TestProgramFails(t *testing.T) {
	root := t.TempDir()
	code, stderr := run(t, root, "-s", "fast_reliable", "--external-name", "fast_reliable", "--external-format", "fastrtps",
		"--external-command", fakeCommand(t, "-payloads", "{payload}", "-n", "5", "-out", "{out}", "-cut", "-exit", "3", "-stderr", "boom: lost the broker"),
		"--payloads", "16,64", "--samples", "5")
	if code != 2 || !strings.Contains(stderr, "exited with status 3; its standard error ends with:\n    boom: lost the broker") ||
		!strings.Contains(stderr, "meta.json marks the run incomplete") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	dir := filepath.Join(root, "exp")
	raw := readRaw(t, dir, "fast_reliable")
	if !sameFloats(raw[16], want(16, 5, 1, false)) || len(raw[64]) != 0 {
		t.Errorf("raw %v", raw)
	}
	m := readMeta(t, dir)
	sub := m.SubExperiments[0]
	if m.Completed || m.Interrupted || !strings.Contains(m.Error, "status 3") || sub.Completed ||
		sub.System.Extra["exit_status"] != "16:status 3" || len(sub.Payloads) != 1 || sub.Payloads[0].Completed {
		t.Errorf("meta: completed %v error %q sub %+v system %+v", m.Completed, m.Error, sub, sub.System)
	}
}

// TestSingleRunFails checks that a program measuring every payload in one
// run, which fails, keeps what it wrote of each payload, across a payload
// it did not reach.
func TestSingleRunFails(t *testing.T) {
	root := t.TempDir()
	code, stderr := run(t, root, "-s", "zping_best_effort", "--external-name", "zping_best_effort", "--external-format", "zping",
		"--external-command", fakeCommand(t, "-format", "zping", "-payloads", "16,64", "-n", "4", "-exit", "1"),
		"--payloads", "16,32,64,256", "--samples", "4")
	if code != 2 || !strings.Contains(stderr, "exited with status 1; its standard error is empty") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	dir := filepath.Join(root, "exp")
	raw := readRaw(t, dir, "zping_best_effort")
	if len(raw[16]) != 4 || len(raw[32]) != 0 || len(raw[64]) != 4 {
		t.Errorf("raw %v", raw)
	}
	sub := readMeta(t, dir).SubExperiments[0]
	if sub.Completed || len(sub.Payloads) != 3 || sub.Payloads[0].Completed || sub.Payloads[1].Samples != 0 || sub.Payloads[2].Completed {
		t.Errorf("sub %+v", sub)
	}
}

// TestBadOutput checks that a program that exits 0 but writes what the
// format does not allow stops the run with the file, by the path it has
// from where run was started (in the experiment folder), and line.
func TestBadOutput(t *testing.T) {
	root := t.TempDir()
	code, stderr := run(t, root, "-s", "fast_reliable", "--external-name", "fast_reliable", "--external-format", "zping",
		"--external-command", fakeCommand(t, "-payloads", "{payload}", "-n", "3", "-format", "fastrtps"),
		"--payloads", "16", "--samples", "3")
	if code != 2 || !strings.Contains(stderr, filepath.Join(root, "exp", "fast_reliable.external", "stdout-16.log")+`: no "N bytes: seq=N rtt=Nµs lat=Nµs" line`) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	root = t.TempDir()
	code, stderr = run(t, root, "-s", "zping_best_effort", "--external-name", "zping_best_effort", "--external-format", "zping",
		"--external-command", fakeCommand(t, "-format", "zping", "-payloads", "16,32", "-n", "2"),
		"--payloads", "16", "--samples", "2")
	if code != 2 || !strings.Contains(stderr, filepath.Join(root, "exp", "zping_best_effort.external", "stdout.log")+":5: a latency of payload 32 B, which is not in --payloads") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	root = t.TempDir()
	code, stderr = run(t, root, "-s", "zping_best_effort", "--external-name", "zping_best_effort", "--external-format", "zping",
		"--external-command", fakeCommand(t, "-format", "zping", "-payloads", "32", "-n", "2", "-x", "{payload}"),
		"--payloads", "16", "--samples", "2")
	if code != 2 || !strings.Contains(stderr, "status 2") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	root = t.TempDir()
	code, stderr = run(t, root, "-s", "zping_best_effort", "--external-name", "zping_best_effort", "--external-format", "zping",
		"--external-command", fakeCommand(t, "-format", "zping", "-payloads", "32", "-n", "2", "-stderr", "{payload}"),
		"--payloads", "16", "--samples", "2")
	if code != 2 || !strings.Contains(stderr, filepath.Join(root, "exp", "zping_best_effort.external", "stdout-16.log")+":2: a latency of payload 32 B, but the program was started for 16 B") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

// alive reports whether process pid exists (and is not a zombie).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(b))
	return len(f) < 3 || f[2] != "Z"
}

// waitGone waits for the processes to disappear.
func waitGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Errorf("process %d still runs", pid)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func readPids(t *testing.T, path string) []int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		n, _ := strconv.Atoi(f)
		pids = append(pids, n)
	}
	return pids
}

// TestTimeout checks that a program running longer than --external-timeout
// is stopped with its children, also when it ignores SIGTERM, that the run
// ends within the timeout and the grace period (plus generous slack for a
// loaded machine), and that what it wrote is kept.
func TestTimeout(t *testing.T) {
	for _, ignore := range []bool{false, true} {
		t.Run("ignore-term="+strconv.FormatBool(ignore), func(t *testing.T) {
			// The timeout counts from the program's start, and on a loaded
			// machine starting it (a race-enabled binary) can take longer
			// than a short one: a program stopped before it got ready shows
			// nothing, so the timeout grows until it gets ready in time.
			for timeout := time.Second; !timeoutRun(t, ignore, timeout); timeout *= 4 {
				if timeout >= time.Minute {
					t.Fatalf("the program never got ready within --external-timeout %v", timeout)
				}
				t.Logf("the program was stopped before it got ready within --external-timeout %v; again with a longer one", timeout)
			}
		})
	}
}

// timeoutRun is one run of TestTimeout with --external-timeout timeout. It
// reports false, having checked only that the run was stopped in time, when
// the program had not yet written its latencies, started its child and
// ignored SIGTERM (the ready file) when it was stopped.
func timeoutRun(t *testing.T, ignore bool, timeout time.Duration) bool {
	t.Helper()
	root := t.TempDir()
	ready := filepath.Join(t.TempDir(), "ready")
	args := []string{"-payloads", "{payload}", "-n", "6", "-out", "{out}", "-sleep", "1h", "-child", "-ready", ready}
	if ignore {
		args = append(args, "-ignore-term")
	}
	start := time.Now()
	code, stderr := run(t, root, "-s", "fast_reliable", "--external-name", "fast_reliable", "--external-format", "fastrtps",
		"--external-command", fakeCommand(t, args...), "--external-timeout", timeout.String(), "--payloads", "16,64", "--samples", "6")
	elapsed := time.Since(start)
	stopped := "stopped after --external-timeout " + timeout.String()
	if code != 2 || !strings.Contains(stderr, "ran longer than --external-timeout "+timeout.String()+" and was stopped") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if limit := timeout + external.KillGrace + 20*time.Second; elapsed > limit {
		t.Errorf("run took %v, more than %v", elapsed, limit)
	}
	if _, err := os.Stat(ready); errors.Is(err, os.ErrNotExist) {
		return false
	}
	waitGone(t, readPids(t, ready))
	dir := filepath.Join(root, "exp")
	if raw := readRaw(t, dir, "fast_reliable"); !sameFloats(raw[16], want(16, 6, 1, false)) {
		t.Errorf("raw %v", raw)
	}
	m := readMeta(t, dir)
	st := m.SubExperiments[0].System.Extra["exit_status"]
	wantSig := "signal terminated"
	if ignore {
		wantSig = "signal killed"
	}
	if m.Completed || !strings.Contains(st, wantSig) || !strings.Contains(st, stopped) {
		t.Errorf("meta: completed %v exit_status %q", m.Completed, st)
	}
	return true
}

// TestInterrupt sends SIGINT to a run whose program is measuring: run
// stops the program and its child, exits 130, and keeps what it wrote with
// a meta.json marked interrupted.
func TestInterrupt(t *testing.T) {
	root := t.TempDir()
	ready := filepath.Join(t.TempDir(), "ready")
	cmd := exec.Command(self(t), "--quiet", "--out", root, "--name", "exp", "-s", "fast_reliable", "--external-name", "fast_reliable",
		"--external-format", "fastrtps", "--payloads", "16,64", "--samples", "6",
		"--external-command", fakeCommand(t, "-payloads", "{payload}", "-n", "6", "-out", "{out}", "-sleep", "1h", "-child", "-ready", ready))
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(ready); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the program never started: %s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exit.Interrupted {
		t.Fatalf("exit %v, want %d: %s", err, exit.Interrupted, stderr.String())
	}
	waitGone(t, readPids(t, ready))
	dir := filepath.Join(root, "exp")
	if raw := readRaw(t, dir, "fast_reliable"); len(raw[16]) != 6 {
		t.Errorf("raw %v", raw)
	}
	m := readMeta(t, dir)
	if m.Completed || !m.Interrupted {
		t.Errorf("meta: completed %v interrupted %v", m.Completed, m.Interrupted)
	}
}

// TestVersionCommand checks --external-version-command and a program
// without --version: its failure is recorded, the run goes on.
func TestVersionCommand(t *testing.T) {
	for _, c := range []struct {
		flag, version, errPart string
	}{
		{`["echo", "  sockperf, version 3.7  ", "more"]`, "sockperf, version 3.7   more", ""},
		{"none", "", ""},
		{"false", "", `["false"]: status 1`},
	} {
		root := t.TempDir()
		code, stderr := run(t, root, "-s", "fast_reliable", "--external-name", "fast_reliable", "--external-format", "fastrtps",
			"--external-command", fakeCommand(t, "-payloads", "{payload}", "-n", "2", "-out", "{out}"),
			"--external-version-command", c.flag, "--payloads", "16", "--samples", "2")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		sys := readMeta(t, filepath.Join(root, "exp")).SubExperiments[0].System
		if sys.Version != c.version || !strings.Contains(sys.Extra["version_error"], c.errPart) || (c.errPart == "") != (sys.Extra["version_error"] == "") {
			t.Errorf("%s: system %+v", c.flag, sys)
		}
	}
}
