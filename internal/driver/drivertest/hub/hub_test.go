package hub

import (
	"context"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
	"github.com/mqgate/mqgate/internal/driver/secure"
)

// embedded starts a hub for the test and returns its URL.
func embedded(t *testing.T, sec *driver.Security) string {
	t.Helper()
	url, stop, err := Transport{}.StartEmbedded(context.Background(), driver.Options{Security: sec})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop() })
	return url
}

// The conformance suites accept a broker URL: the echoer and the
// subscriber connect to it, the pinger and the publisher are given their
// Addr, and each test gets a topic of its own.
func TestConformance(t *testing.T) {
	for _, reliable := range []bool{false, true} {
		t.Run(map[bool]string{false: "BestEffort", true: "Reliable"}[reliable], func(t *testing.T) {
			opts := driver.Options{Reliable: reliable}
			drivertest.Run(t, drivertest.Config{Transport: Transport{}, Addr: embedded(t, nil), Listen: opts, Dial: opts, MaxAllocs: -1})
		})
	}
}

func TestStreamConformance(t *testing.T) {
	for _, reliable := range []bool{false, true} {
		t.Run(map[bool]string{false: "BestEffort", true: "Reliable"}[reliable], func(t *testing.T) {
			opts := driver.Options{Reliable: reliable}
			drivertest.RunStream(t, drivertest.StreamConfig{Transport: Transport{}, Addr: embedded(t, nil), Subscribe: opts, Publish: opts})
		})
	}
}

func TestTLS(t *testing.T) {
	echo, pinger, err := secure.GenerateFiles(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	url := embedded(t, &echo)
	if !strings.HasPrefix(url, "hubs://") {
		t.Fatalf("a TLS hub at %s", url)
	}
	drivertest.Run(t, drivertest.Config{Transport: Transport{}, Addr: url, MaxAllocs: -1,
		Listen: driver.Options{Security: &pinger}, Dial: driver.Options{Security: &pinger, Reliable: true}})
}

func TestCredentials(t *testing.T) {
	h, err := Start("u", "p", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	bad := strings.Replace(h.URL(), ":p@", ":q@", 1)
	_, err = Transport{}.Dial(ctx, bad, driver.Options{Topic: "x"})
	if err == nil || !strings.Contains(err.Error(), "authentication failed") || strings.Contains(err.Error(), ":q@") {
		t.Errorf("wrong password: %v", err)
	}
	noPass := strings.Replace(h.URL(), ":p@", "@", 1)
	p, err := Transport{}.Dial(ctx, noPass, driver.Options{Topic: "x", Params: map[string]string{PasswordFlag: "p"}})
	if err != nil {
		t.Fatalf("password from the flag: %v", err)
	}
	p.Close()
}
