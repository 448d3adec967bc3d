package amqp_test

import (
	"os"
	"testing"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/runcmd"
	"github.com/mqgate/mqgate/internal/driver/amqp"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
)

// runMainEnv makes the test binary behave as the run command, so that run
// can start it in the echo role (runapp.SelfEnv).
const runMainEnv = "MQGATE_AMQP_TEST_RUN_MAIN"

// TestMain serves the package's tests and, in child processes, the echo
// processes they start: drivertest's and run's.
func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		cliapp.Main(runcmd.App())
	}
	drivertest.ServeEchoProcess(amqp.Transport{})
	os.Exit(m.Run())
}
