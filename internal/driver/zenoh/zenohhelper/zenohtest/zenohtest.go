// Package zenohtest gives tests of packages that run mqgate-zenoh the
// helper binary, or skips them with the reason (failing under CI=true,
// where `.ci/run` builds it).
package zenohtest

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver/zenoh/zenohhelper"
	"github.com/mqgate/mqgate/internal/testenv"
)

// Helper returns the mqgate-zenoh binary (zenohhelper.Find), or skips or
// fails tb naming what is missing: cargo, or a build (`make zenoh`).
func Helper(tb testing.TB) string {
	tb.Helper()
	bin, err := zenohhelper.Find()
	if err != nil {
		if _, cerr := exec.LookPath("cargo"); cerr != nil {
			testenv.Unavailable(tb, "cargo is not installed, so mqgate-zenoh cannot be built (%v)", err)
		} else {
			testenv.Unavailable(tb, "%v", err)
		}
		return ""
	}
	return bin
}

// Router starts a Zenoh router for t on a free loopback port, through the
// helper (Helper, which it also names to the roles by
// zenohhelper.EnvHelper), stopped when t ends, and returns its TCP
// endpoint.
func Router(t *testing.T) string {
	t.Helper()
	bin := Helper(t)
	t.Setenv(zenohhelper.EnvHelper, bin)
	router, err := zenohhelper.Start(context.Background(), bin, zenohhelper.RouterArgs(zenohhelper.Serve{Common: zenohhelper.Common{Listen: []string{"tcp/127.0.0.1:0"}}}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { router.Stop(10 * time.Second) })
	return router.Ready.Locator("tcp")
}
