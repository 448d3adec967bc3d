package nats

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nats-io/nuid"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
	"github.com/mqgate/mqgate/internal/driver/secure"
	"github.com/mqgate/mqgate/internal/testenv"
)

// installedURL is the installed nats-server the tests also run against
// (JetStream on), or the test is skipped (failed under CI).
func installedURL(t testing.TB) string {
	t.Helper()
	url := testenv.Getenv("MQGATE_NATS_URL", DefaultURL)
	return testenv.Service(t, "nats-server", url, "start it with: nats-server -a 127.0.0.1 -p 4222 -js")
}

// embeddedURL starts an embedded server for the test.
func embeddedURL(t testing.TB, opts driver.Options) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), drivertest.Watchdog)
	defer cancel()
	url, stop, err := Transport{}.StartEmbedded(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("stopping the embedded server: %v", err)
		}
	})
	return url
}

// topic is a subject no other test or run uses.
func topic(t testing.TB) string {
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, t.Name())
	return "mqgate.test." + name + "." + nuid.Next()
}

// pki makes a CA and certificates for the server (and echo) and the pinger.
func pki(t testing.TB) (server, client *driver.Security) {
	t.Helper()
	s, c, err := secure.GenerateFiles(filepath.Join(t.TempDir(), "pki"))
	if err != nil {
		t.Fatal(err)
	}
	return &s, &c
}

// scenario is one of the four sub-experiments as test options.
type scenario struct {
	name               string
	reliable, security bool
	// embeddedAllocs bounds the allocations of one round trip with the
	// echo, the pinger and the embedded server in the test process (the
	// suite counts the whole process): measured 12–14 (best effort), 16–21
	// (TLS), 166–178 (JetStream), 175–190 (JetStream over TLS).
	embeddedAllocs float64
}

var scenarios = []scenario{
	{"nats_best_effort", false, false, 16},
	{"nats_reliable", true, false, 200},
	{"nats_best_effort_security", false, true, 24},
	{"nats_reliable_security", true, true, 210},
}

// Allocations of one round trip against a server in another process: the
// pinger's and the echo's. nats.go allocates 3 objects for every message it
// delivers (the Msg, its subject string and a copy of the payload), which
// no option avoids, so a core round trip costs 6; the JetStream client
// (pull requests, publish acknowledgements decoded from JSON, per-call
// timers) makes 58.
const (
	installedAllocsCore = 6
	installedAllocsJS   = 64
)

// config is the conformance configuration of sc against url; the echo and
// the pinger use the client certificates in sec (nil: plaintext).
func config(t testing.TB, url string, sc scenario, echoSec, pingSec *driver.Security, maxAllocs float64) drivertest.Config {
	tp := topic(t)
	c := drivertest.Config{
		Transport: Transport{},
		Addr:      url,
		Listen:    driver.Options{Reliable: sc.reliable, Security: echoSec, Topic: tp},
		Dial:      driver.Options{Reliable: sc.reliable, Security: pingSec, Topic: tp},
		MaxAllocs: maxAllocs,
	}
	if raceEnabled {
		c.MaxAllocs = -1
	}
	return c
}

func TestRegistered(t *testing.T) {
	if tr, err := driver.Lookup(Name); err != nil || tr.Name() != Name {
		t.Fatalf("Lookup(nats) = %v, %v", tr, err)
	}
	if got := fmt.Sprint(driver.SchemesOf(Transport{})); got != "[nats tls]" {
		t.Errorf("Schemes = %s", got)
	}
	if got := (Transport{}).MessageLimit(driver.Options{}); got != 1<<20 {
		t.Errorf("MessageLimit = %d, want nats-server's default max_payload", got)
	}
	for _, sc := range scenarios {
		s, ok := driver.ScenarioOf(sc.name)
		if !ok {
			t.Fatalf("scenario %s is not registered", sc.name)
		}
		if s.Transport != Name || s.Reliable != sc.reliable || s.Security != sc.security || !s.Interprocess {
			t.Errorf("scenario %s = %+v", sc.name, s)
		}
	}
}

// TestConformanceEmbedded runs the conformance suite for the four
// scenarios against an embedded server (TLS with generated certificates).
func TestConformanceEmbedded(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			var srv, cli *driver.Security
			if sc.security {
				srv, cli = pki(t)
			}
			url := embeddedURL(t, driver.Options{Security: srv})
			drivertest.Run(t, config(t, url, sc, srv, cli, sc.embeddedAllocs))
		})
	}
}

// TestConformanceInstalled runs the plaintext scenarios against the
// installed server at MQGATE_NATS_URL.
func TestConformanceInstalled(t *testing.T) {
	url := installedURL(t)
	for _, sc := range scenarios[:2] {
		t.Run(sc.name, func(t *testing.T) {
			allocs := float64(installedAllocsCore)
			if sc.reliable {
				allocs = installedAllocsJS
			}
			drivertest.Run(t, config(t, url, sc, nil, nil, allocs))
		})
	}
}

// TestStreamConformance runs the one-way conformance suite for the four
// scenarios against an embedded server and the plaintext ones against the
// installed server.
func TestStreamConformance(t *testing.T) {
	for _, sc := range scenarios {
		t.Run("embedded/"+sc.name, func(t *testing.T) {
			var srv, cli *driver.Security
			if sc.security {
				srv, cli = pki(t)
			}
			url := embeddedURL(t, driver.Options{Security: srv})
			drivertest.RunStream(t, drivertest.StreamConfig{
				Transport: Transport{},
				Addr:      url,
				Subscribe: driver.Options{Reliable: sc.reliable, Security: srv},
				Publish:   driver.Options{Reliable: sc.reliable, Security: cli},
			})
		})
	}
	url := installedURL(t)
	for _, sc := range scenarios[:2] {
		t.Run("installed/"+sc.name, func(t *testing.T) {
			drivertest.RunStream(t, drivertest.StreamConfig{
				Transport: Transport{},
				Addr:      url,
				Subscribe: driver.Options{Reliable: sc.reliable},
				Publish:   driver.Options{Reliable: sc.reliable},
			})
		})
	}
}
