package zenoh

import (
	"testing"

	"github.com/mqgate/mqgate/internal/driver/drivertest"
)

// TestDeclared runs the checks of the capabilities the transport declares
// (its ends are driven by the end-to-end tests: its pinger times its own
// messages).
func TestDeclared(t *testing.T) {
	drivertest.RunDeclared(t, drivertest.Config{Transport: Transport{}})
}
