// Package zenohtest gives tests of packages that run mqgate-zenoh the
// helper binary, or skips them with the reason (failing under CI=true,
// where `.ci/run` builds it).
package zenohtest

import (
	"os/exec"
	"testing"

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
