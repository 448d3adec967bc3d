package roles_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver/zenoh/zenohhelper"
	"github.com/mqgate/mqgate/internal/driver/zenoh/zenohhelper/zenohtest"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/roles"
)

// TestThreeHostsZenoh runs the Zenoh roles on three hosts made of network
// namespaces: a router and two publishers on host 1, two publishers on
// host 2, whose clock is two seconds ahead (the helper's clock shift), and
// the subscriber on host 3, every role a client of host 1's router. The
// sub estimates each publisher host's clock offset on its own (host 1
// about 0, host 2 about +2 s) and corrects each host's latencies by its
// own offset: none is below 0 by seconds, and the report and meta.json
// record both.
func TestThreeHostsZenoh(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes in network namespaces; skipped with -short")
	}
	bin := zenohtest.Helper(t)
	t.Setenv(zenohhelper.EnvHelper, bin)
	nw := newNetns(t, 3)
	ep := startRouter(t, nw, bin)
	out := t.TempDir()
	const shift = 2 * int64(time.Second)
	common := []string{"--driver", "zenoh", "--endpoint", ep, "--out-dir", out, "--run-id", "zh", "--timeout", "5s",
		"--reliability", "reliable", "--log-level", "warn"}
	limit := 3 * time.Minute // watchdog only
	sub, subErr := roleProcess(t, nw.exec(3), append([]string{"sub", "--publishers", "4", "--duration", "60s", "--clock-probes", "16"}, common...)...)
	time.Sleep(2 * time.Second) // the subscriber and its clock prober are up
	pub1, pub1Err := roleProcess(t, nw.exec(1), append([]string{"pub", "--publishers", "2", "--rate", "100", "--duration", "3s", "--instance", "1"}, common...)...)
	pub2, pub2Err := roleProcessEnv(t, nw.exec(2), []string{zenohhelper.ClockEnvShift + "=" + strconv.FormatInt(shift, 10)},
		append([]string{"pub", "--publishers", "2", "--rate", "100", "--duration", "3s", "--instance", "2"}, common...)...)
	for name, p := range map[string]struct {
		cmd    *exec.Cmd
		stderr *bytesBuffer
	}{"pub1": {pub1, pub1Err}, "pub2": {pub2, pub2Err}, "sub": {sub, subErr}} {
		if code := waitExit(t, p.cmd, limit, name, p.stderr); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, p.stderr)
		}
	}
	dir := filepath.Join(out, "zh")
	var sr roles.SubReport
	readJSON(t, globReports(t, dir, "sub-")[0], &sr)
	m, err := meta.ReadFile(filepath.Join(dir, meta.FileName))
	if err != nil || !m.Completed {
		t.Fatalf("meta %+v %v", m, err)
	}
	extra := m.SubExperiments[0].System.Extra
	t.Logf("offsets: host 1 %s ns (bound %s), host 2 %s ns (bound %s); %d samples, %d clamped", extra["clock_offset_ns.1"],
		extra["clock_offset_error_bound_ns.1"], extra["clock_offset_ns.2"], extra["clock_offset_error_bound_ns.2"], sr.Samples, sr.Clamped)
	for inst, want := range map[string]int64{"1": 0, "2": shift} {
		est := sr.ClockOffset[inst]
		off, _ := strconv.ParseInt(extra["clock_offset_ns."+inst], 10, 64)
		if est.Disabled || est.Method != "ntp-min-delay" || off != est.OffsetNs || off < want-250e6 || off > want+250e6 {
			t.Errorf("host %s: offset %+v, meta %d, want %d ± 250 ms", inst, est, off, want)
		}
	}
	fromHost := map[int]int{}
	for _, p := range sr.Publishers {
		fromHost[int(p.ID>>8)]++
		if p.Sent == nil || p.Lost != 0 {
			t.Errorf("publisher %+v", p)
		}
	}
	if fromHost[1] != 2 || fromHost[2] != 2 {
		t.Errorf("publishers per host %v", fromHost)
	}
	// Host 2's latencies, uncorrected, would be 2 s below 0 and all
	// clamped; corrected, none is far from a loopback's.
	rows := rawRows(t, dir, "zenoh_reliable_pubsub")
	lat := make([]float64, len(rows))
	for i, r := range rows {
		lat[i] = r.Latency
	}
	slices.Sort(lat)
	if len(rows) != sr.Samples || sr.Clamped > uint64(len(rows)/2) || lat[len(lat)/2] > float64(shift/4)/1000 {
		t.Errorf("%d rows, %d clamped, median %.1f us", len(rows), sr.Clamped, lat[len(lat)/2])
	}
}

// startRouter starts the Zenoh helper's router on host 1 of nw with args
// added, stopped at the end of the test, and returns its endpoint once it
// is ready.
func startRouter(t *testing.T, nw *netns, bin string, args ...string) string {
	t.Helper()
	ep := "tcp/" + nw.addr(1) + ":7447"
	router := exec.Command("ip", append(append(nw.exec(1)[1:], bin, "router", "--listen", ep), args...)...)
	stdout, _ := router.StdoutPipe()
	router.Stderr = os.Stderr
	if err := router.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		router.Process.Signal(os.Interrupt)
		router.Wait()
	})
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || !strings.HasPrefix(line, "ready role=router") {
		t.Fatalf("router on host 1: %q %v", line, err)
	}
	return ep
}
