package drivertest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest/hub"
	"github.com/mqgate/mqgate/internal/driver/tcp"
)

// deaf declares, as tcp does, that its echo applies Options.EchoDelay, but
// its echo does not.
type deaf struct{ tcp.Transport }

func (d deaf) Listen(ctx context.Context, addr string, opts driver.Options) (driver.Echoer, error) {
	opts.EchoDelay = driver.Delay{}
	return d.Transport.Listen(ctx, addr, opts)
}

// TestEchoDelayCaught: the EchoDelay check passes a transport whose echo
// waits and catches one that declares it but does not.
func TestEchoDelayCaught(t *testing.T) {
	if err := checkEchoDelay(t, Config{Transport: tcp.Transport{}}); err != nil {
		t.Errorf("tcp: %v", err)
	}
	if err := checkEchoDelay(t, Config{Transport: deaf{}}); err == nil || !strings.Contains(err.Error(), "did not wait") {
		t.Errorf("an echo ignoring its delay: %v, want it caught", err)
	}
}

// silent is a hub whose pingers turn a lost link into timeouts, as a
// client reconnecting behind the engine's back would, and whose echoers
// return nil when the link is lost.
type silent struct {
	hub.Transport
	quietEcho bool
}

type silentPinger struct{ driver.Pinger }

func (p silentPinger) Send(msg []byte) error {
	if err := p.Pinger.Send(msg); err != nil {
		return fmt.Errorf("%w (reconnecting)", driver.ErrTimeout)
	}
	return nil
}

func (p silentPinger) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	n, at, err := p.Pinger.Receive(buf, deadline)
	if err != nil && !errors.Is(err, driver.ErrTimeout) {
		time.Sleep(time.Until(deadline))
		return 0, time.Time{}, fmt.Errorf("%w (reconnecting)", driver.ErrTimeout)
	}
	return n, at, err
}

type quietEchoer struct{ driver.Echoer }

func (e quietEchoer) Serve(ctx context.Context) error {
	e.Echoer.Serve(ctx)
	return nil
}

func (s silent) Dial(ctx context.Context, addr string, opts driver.Options) (driver.Pinger, error) {
	p, err := s.Transport.Dial(ctx, addr, opts)
	if err != nil || s.quietEcho {
		return p, err
	}
	return silentPinger{p}, nil
}

func (s silent) Listen(ctx context.Context, addr string, opts driver.Options) (driver.Echoer, error) {
	e, err := s.Transport.Listen(ctx, addr, opts)
	if err != nil || !s.quietEcho {
		return e, err
	}
	return quietEchoer{e}, nil
}

func embeddedHub(t *testing.T) string {
	t.Helper()
	url, stop, err := hub.Transport{}.StartEmbedded(context.Background(), driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop() })
	return url
}

// TestBrokerDiesCaught: the BrokerDies check passes the hub, whose ends
// report a lost broker, and catches a pinger that only times out and an
// echoer that returns nil.
func TestBrokerDiesCaught(t *testing.T) {
	defer func(d time.Duration) { lostWithin = d }(lostWithin)
	lostWithin = time.Second
	url := embeddedHub(t)
	for _, c := range []struct {
		tr   driver.Transport
		want string
	}{
		{hub.Transport{}, ""},
		{silent{}, "only timed out"},
		{silent{quietEcho: true}, "Serve returned nil"},
	} {
		t.Run(fmt.Sprintf("%T/%s", c.tr, c.want), func(t *testing.T) {
			err := checkBrokerDies(t, Config{Transport: c.tr, Addr: url}.forTest(t))
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Errorf("checkBrokerDies = %v, want %q", err, c.want)
			}
		})
	}
}

// named declares what it is given, with the flags it is given.
type named struct {
	tcp.Transport
	name  string
	caps  driver.Capabilities
	flags []driver.Flag
}

func (n named) Name() string                      { return n.name }
func (n named) Capabilities() driver.Capabilities { return n.caps }
func (n named) Flags() []driver.Flag              { return n.flags }

// TestCapabilityProblems: a broker without its URL flag, with the flag's
// environment variable wrong or reached by a scheme it does not declare,
// and a flag named like a broker's URL flag on a transport that is no
// broker are each caught; the hub as it is declared passes.
func TestCapabilityProblems(t *testing.T) {
	url := driver.URLFlag("x")
	broker := driver.Capabilities{Broker: true, Schemes: []string{"x", "xs"}}
	for _, c := range []struct {
		tr   driver.Transport
		addr string
		want string
	}{
		{hub.Transport{}, "hub://127.0.0.1:1", ""},
		{named{name: "x", caps: broker, flags: []driver.Flag{{Name: url, EnvVar: driver.URLEnv("x")}}}, "xs://h:1", ""},
		{named{name: "x"}, "127.0.0.1:0", ""},
		{named{name: "x", caps: broker}, "x://h:1", "declares no flag --x-url"},
		{named{name: "x", caps: broker, flags: []driver.Flag{{Name: url, EnvVar: "X_URL"}}}, "x://h:1", `reads "X_URL", want MQGATE_X_URL`},
		{named{name: "x", caps: broker, flags: []driver.Flag{{Name: url, EnvVar: driver.URLEnv("x")}}}, "y://h:1", "whose scheme is not one it declares"},
		{named{name: "x", flags: []driver.Flag{{Name: url}}}, "127.0.0.1:0", "is no broker"},
	} {
		got := strings.Join(capabilityProblems(c.tr, c.addr), "; ")
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s at %s: %q, want %q", c.tr.Name(), c.addr, got, c.want)
		}
	}
}
