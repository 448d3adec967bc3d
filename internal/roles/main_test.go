package roles_test

import (
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/rolescmd"
	// Every system run registers, so that the tests iterating the
	// registered systems (roles.Drivers, driver.Names) check a new one too.
	_ "github.com/mqgate/mqgate/internal/runapp"
)

// The test binary plays two more parts when started by the tests in other
// processes (or network namespaces): the run command's roles (mainEnv),
// and a NATS server listening at an address (natsEnv), each until killed
// or its work is done.
const (
	mainEnv = "MQGATE_ROLES_TEST_MAIN"
	natsEnv = "MQGATE_ROLES_TEST_NATS"
)

func TestMain(m *testing.M) {
	if addr := os.Getenv(natsEnv); addr != "" {
		serveNATS(addr)
	}
	if os.Getenv(mainEnv) == "1" {
		cliapp.Main(testApp())
	}
	os.Exit(m.Run())
}

// serveNATS runs a NATS server at HOST:PORT until SIGTERM.
func serveNATS(addr string) {
	host, portStr, _ := cutLast(addr, ":")
	port, _ := strconv.Atoi(portStr)
	s, err := server.NewServer(&server.Options{Host: host, Port: port, NoLog: true, NoSigs: true, MaxPayload: 8 << 20})
	if err != nil {
		fmt.Fprintln(os.Stderr, "nats:", err)
		os.Exit(2)
	}
	go s.Start()
	if !s.ReadyForConnections(20 * time.Second) {
		fmt.Fprintln(os.Stderr, "nats: not ready")
		os.Exit(2)
	}
	fmt.Println("ready")
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGTERM, os.Interrupt)
	<-c
	s.Shutdown()
	os.Exit(0)
}

func cutLast(s, sep string) (string, string, bool) {
	for i := len(s) - len(sep); i >= 0; i-- {
		if s[i:i+len(sep)] == sep {
			return s[:i], s[i+len(sep):], true
		}
	}
	return s, "", false
}

// testApp is the run command as far as the roles go: run's own role flags
// (TopFlags) and the four roles.
func testApp() *cli.App {
	return &cli.App{Name: "run", Flags: rolescmd.TopFlags(), Before: rolescmd.CheckTopFlags, Commands: rolescmd.Commands()}
}
