package roles_test

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver/zenoh/zenohhelper"
	"github.com/mqgate/mqgate/internal/driver/zenoh/zenohhelper/zenohtest"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/roles"
)

// TestZenohClockOffset runs a Zenoh pub in a process whose helper's wall
// clock is one second ahead (a host with an offset clock, simulated by
// the helper's clock shift) and a Zenoh sub on this clock. With the clock
// offset estimated, the sub finds an offset of about +1 s, corrects every
// one-way latency by it (few or none below 0) and records it in meta.json
// and its report; with --clock-offset false the latencies stay as
// measured: every one is below 0, written as 0 and counted.
func TestZenohClockOffset(t *testing.T) {
	ep := zenohtest.Router(t)
	out := t.TempDir()
	const shift = int64(time.Second)
	for _, correct := range []bool{true, false} {
		id := "zc" + strconv.FormatBool(correct)
		sub := settings(t, roles.RoleSub, map[string]any{"driver": "zenoh", "endpoint": []string{ep}, "out-dir": out, "run-id": id,
			"timeout": "5s", "duration": "60s", "clock-probes": "16", "clock-offset": strconv.FormatBool(correct),
			"topic-prefix": "mqgate/clock/" + id, "reliability": "reliable"})
		done := make(chan roles.Outcome, 1)
		go func() { done <- roles.Run(context.Background(), sub) }()
		// The pub waits up to its --timeout for the subscriber to match.
		time.Sleep(time.Second)
		cmd, stderr := roleProcessEnv(t, nil, []string{zenohhelper.ClockEnvShift + "=" + strconv.FormatInt(shift, 10)},
			"pub", "--driver", "zenoh", "--endpoint", ep, "--out-dir", out, "--run-id", id, "--instance", "3", "--rate", "200",
			"--duration", "2s", "--timeout", "20s", "--reliability", "reliable", "--topic-prefix", "mqgate/clock/"+id, "--log-level", "warn")
		if code := waitExit(t, cmd, 2*time.Minute, "pub", stderr); code != 0 {
			t.Fatalf("pub exit %d: %s", code, stderr)
		}
		var o roles.Outcome
		select {
		case o = <-done:
		case <-time.After(2 * time.Minute):
			t.Fatal("sub did not end (watchdog)")
		}
		if o.Err != nil || o.Incomplete || o.Interrupted {
			t.Fatalf("sub: %+v", o)
		}
		dir := filepath.Join(out, id)
		m, err := meta.ReadFile(filepath.Join(dir, meta.FileName))
		if err != nil {
			t.Fatal(err)
		}
		extra := m.SubExperiments[0].System.Extra
		rows := rawRows(t, dir, "zenoh_reliable_pubsub")
		lat := make([]float64, len(rows))
		for i, r := range rows {
			lat[i] = r.Latency
		}
		slices.Sort(lat)
		var rep roles.SubReport
		readJSON(t, filepath.Join(dir, roles.ReportsDir, "sub-pubsub-"+strconv.Itoa(sub.Instance)+".json"), &rep)
		est := rep.ClockOffset["3"]
		clamped, _ := strconv.Atoi(extra["clamped"])
		// Reliable: every message the pub sent arrives. How many it sent
		// depends on how much of its schedule a loaded machine let it keep
		// (late slots are skipped), so the count is the pub's own.
		sent, skipped := zenohPubSent(t, filepath.Join(dir, roles.ReportsDir, "helper-pub-pubsub-3"))
		if uint64(len(rows)) != sent || rep.Samples != len(rows) || uint64(clamped) != rep.Clamped {
			t.Fatalf("correct=%v: %d rows of %d sent, report %+v, extra %v", correct, len(rows), sent, rep, extra)
		}
		if len(rows) == 0 {
			// A pub starved past its whole --duration skipped every slot;
			// the offset is checked all the same, the latencies cannot be.
			t.Logf("correct=%v: the pub skipped every slot (%d)", correct, skipped)
			lat = []float64{0}
		}
		t.Logf("clock-offset %v: offset %s ns (bound %s, %s), %d rows, median %.1f us, %d clamped", correct, extra["clock_offset_ns.3"],
			extra["clock_offset_error_bound_ns.3"], extra["clock_offset_method.3"], len(rows), lat[len(lat)/2], clamped)
		if correct {
			off, _ := strconv.ParseInt(extra["clock_offset_ns.3"], 10, 64)
			// The estimate is off by at most the probes' delays, which a
			// loaded machine makes milliseconds, never a quarter second.
			if extra["clock_offset_method.3"] != "ntp-min-delay" || off < shift-250e6 || off > shift+250e6 || est.OffsetNs != off || est.Disabled {
				t.Errorf("offset: extra %v, report %+v", extra, est)
			}
			// Corrected: a one-way latency of a loopback, well under the
			// shift, and not all clamped.
			if med := lat[len(lat)/2]; len(rows) > 0 && (med <= 0 || med > float64(shift/2)/1000 || clamped > len(rows)/2) {
				t.Errorf("corrected latencies: median %v us, %d of %d clamped", med, clamped, len(rows))
			}
		} else {
			if extra["clock_offset_method.3"] != "disabled" || !est.Disabled {
				t.Errorf("disabled: extra %v, report %+v", extra, est)
			}
			if clamped != len(rows) || lat[len(lat)-1] != 0 {
				t.Errorf("uncorrected latencies: %d of %d clamped, max %v us", clamped, len(rows), lat[len(lat)-1])
			}
		}
	}
}
