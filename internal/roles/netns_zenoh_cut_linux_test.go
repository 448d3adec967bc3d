package roles_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver/zenoh/zenohhelper"
	"github.com/mqgate/mqgate/internal/driver/zenoh/zenohhelper/zenohtest"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/roles"
)

// TestZenohHostCutOff runs the Zenoh roles on three network-namespace
// hosts (router and a publisher on host 1, a publisher on host 2, the
// subscriber on host 3) and cuts host 2 off mid-run. Every role ends
// within its --duration and a few --timeouts: host 1's pub complete, the
// sub with the samples of both hosts, host 2's publishers without end
// markers and the experiment marked incomplete (exit 2), host 2's pub
// incomplete too once the router's lease ran out: the router announces a
// lease of the roles' --timeout, so host 2 notices the cut within it
// rather than after Zenoh's default 10 s.
func TestZenohHostCutOff(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes in network namespaces; skipped with -short")
	}
	bin := zenohtest.Helper(t)
	t.Setenv(zenohhelper.EnvHelper, bin)
	nw := newNetns(t, 3)
	ep := startRouter(t, nw, bin, "--lease", "3")
	out := t.TempDir()
	common := []string{"--driver", "zenoh", "--endpoint", ep, "--out-dir", out, "--run-id", "zcut", "--timeout", "3s", "--log-level", "warn"}
	limit := 3 * time.Minute // watchdog only
	sub, subErr := roleProcess(t, nw.exec(3), append([]string{"sub", "--publishers", "2", "--duration", "60s"}, common...)...)
	time.Sleep(2 * time.Second)
	// Host 1's pub is reliable (congestion control block): nothing of it
	// is dropped on a loaded machine; host 2's is best effort, so that a
	// put into the cut link never blocks.
	pub1, pub1Err := roleProcess(t, nw.exec(1), append([]string{"pub", "--rate", "100", "--duration", "6s", "--instance", "1", "--reliability", "reliable"}, common...)...)
	// Host 2's pub publishes past the router's lease (3 s) after the cut,
	// shorter than Zenoh's default lease of 10 s: by then its session has
	// lost the router, and it can tell.
	pub2, pub2Err := roleProcess(t, nw.exec(2), append([]string{"pub", "--rate", "100", "--duration", "10s", "--instance", "2"}, common...)...)
	time.Sleep(3 * time.Second)
	if err := nw.cut(2); err != nil {
		t.Fatal(err)
	}
	codes := map[string]int{}
	for name, p := range map[string]struct {
		cmd    *exec.Cmd
		stderr *bytesBuffer
	}{"pub1": {pub1, pub1Err}, "pub2": {pub2, pub2Err}, "sub": {sub, subErr}} {
		codes[name] = waitExit(t, p.cmd, limit, name, p.stderr)
		t.Logf("%s: exit %d: %s", name, codes[name], lastLine(p.stderr.String()))
	}
	if codes["pub1"] != 0 || codes["sub"] != 2 || codes["pub2"] != 2 {
		t.Errorf("exit codes %v", codes)
	}
	dir := filepath.Join(out, "zcut")
	var sr roles.SubReport
	readJSON(t, globReports(t, dir, "sub-")[0], &sr)
	fromHost := map[int]uint64{}
	for _, p := range sr.Publishers {
		fromHost[int(p.ID>>8)] += p.Received
		if p.ID>>8 == 1 && (p.Sent == nil || p.Lost != 0) {
			t.Errorf("host 1 publisher %+v", p)
		}
		if p.ID>>8 == 2 && p.Sent != nil {
			t.Errorf("host 2 publisher %d sent an end marker after its host was cut off", p.ID)
		}
	}
	if sr.Completed || fromHost[1] == 0 || fromHost[2] == 0 {
		t.Errorf("sub report: completed %v, samples per host %v, reason %q", sr.Completed, fromHost, sr.Reason)
	}
	m, err := meta.ReadFile(filepath.Join(dir, meta.FileName))
	if err != nil || m.Completed || m.SubExperiments[0].Payloads[0].Samples != sr.Samples {
		t.Errorf("meta %+v %v", m, err)
	}
}

// TestZenohQueryableHostCutOff runs a Zenoh qry on host 2 and a req on
// host 3, both clients of host 1's router, and cuts host 2 off while the
// req runs. The qry announces a lease of the roles' --timeout (3 s), so
// the router drops its queryable within it, long before Zenoh's default
// lease of 10 s: the req, whose last queries end about 8 s after the cut,
// finds the queryable gone and ends incomplete (exit 2) with the reason in
// its role report and meta.json.
func TestZenohQueryableHostCutOff(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes in network namespaces; skipped with -short")
	}
	bin := zenohtest.Helper(t)
	t.Setenv(zenohhelper.EnvHelper, bin)
	nw := newNetns(t, 3)
	ep := startRouter(t, nw, bin, "--lease", "3")
	out := t.TempDir()
	common := []string{"--driver", "zenoh", "--endpoint", ep, "--out-dir", out, "--run-id", "zqcut", "--timeout", "3s",
		"--reliability", "reliable", "--log-level", "warn"}
	limit := 3 * time.Minute // watchdog only
	qry, qryErr := roleProcess(t, nw.exec(2), append([]string{"qry", "--duration", "60s"}, common...)...)
	time.Sleep(2 * time.Second)
	req, reqErr := roleProcess(t, nw.exec(3), append([]string{"req", "--qps", "50", "--duration", "8s"}, common...)...)
	time.Sleep(3 * time.Second)
	if err := nw.cut(2); err != nil {
		t.Fatal(err)
	}
	code := waitExit(t, req, limit, "req", reqErr)
	t.Logf("req: exit %d: %s", code, lastLine(reqErr.String()))
	qry.Process.Signal(os.Interrupt)
	t.Logf("qry: exit %d", waitExit(t, qry, limit, "qry", qryErr))
	if code != 2 {
		t.Errorf("req exit %d, want 2 (incomplete: the queryable went away)", code)
	}
	dir := filepath.Join(out, "zqcut")
	var rr roles.ReqReport
	readJSON(t, globReports(t, dir, "req-")[0], &rr)
	if rr.Completed || !strings.Contains(rr.Error, "queryable went away") || rr.Queries == 0 || rr.Timeouts == 0 {
		t.Errorf("req report %+v", rr)
	}
	m, err := meta.ReadFile(filepath.Join(dir, meta.FileName))
	if err != nil || m.Completed {
		t.Errorf("meta %+v %v", m, err)
	}
}
