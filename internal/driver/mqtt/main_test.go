package mqtt_test

import (
	"os"
	"testing"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/runcmd"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
	"github.com/mqgate/mqgate/internal/driver/mqtt"
)

// runMainEnv makes the test binary behave as the run command, so that run
// can start it in the echo role (runapp.SelfEnv).
const runMainEnv = "MQGATE_MQTT_TEST_RUN_MAIN"

// TestMain serves the package's tests and, in child processes, what they
// start: run's echo processes, drivertest's echo processes and brokers.
func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		cliapp.Main(runcmd.App())
	}
	drivertest.ServeEchoProcess(mqtt.Transport{})
	mqtt.ServeBrokerProcess()
	os.Exit(m.Run())
}
