package drivertest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

// RunDeclared runs the checks the transport's declared capabilities imply
// (driver.Capabilities) as subtests of t: Capabilities always, EchoDelay
// when it declares one, BrokerDies for a broker. Run ends with it; a
// transport whose ends the rest of the suite cannot drive (a helper that
// times its own messages) runs it alone.
func RunDeclared(t *testing.T, c Config) {
	caps := c.Transport.Capabilities()
	t.Run("Capabilities", func(t *testing.T) {
		for _, p := range capabilityProblems(c.Transport, c.Addr) {
			t.Error(p)
		}
	})
	if caps.EchoDelay {
		t.Run("EchoDelay", func(t *testing.T) {
			if err := checkEchoDelay(t, c.forTest(t)); err != nil {
				t.Fatal(err)
			}
		})
	}
	if caps.Broker {
		t.Run("BrokerDies", func(t *testing.T) {
			c := c.forTest(t)
			if c.Listen.Security != nil || c.Dial.Security != nil {
				t.Skip("the broker is reached through a plain TCP proxy; a TLS link may use another port")
			}
			if err := checkBrokerDies(t, c); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// capabilityProblems: a broker declares the URL flag run reads its URL
// from and is reached at addr by one of its schemes, by which ForScheme
// finds it once registered; a transport that is no broker has no such
// flag, since run would never read it; a broker's ends never share a
// process.
func capabilityProblems(tr driver.Transport, addr string) []string {
	caps, name := tr.Capabilities(), tr.Name()
	var out []string
	if again := tr.Capabilities(); !slices.Equal(caps.Schemes, again.Schemes) || caps.Broker != again.Broker ||
		caps.ProcessBound != again.ProcessBound || caps.EchoDelay != again.EchoDelay {
		out = append(out, fmt.Sprintf("%s: Capabilities differ from one call to the next", name))
	}
	var urlFlag *driver.Flag
	for _, f := range driver.FlagsOf(tr) {
		if f.Name == driver.URLFlag(name) {
			urlFlag = &f
		}
	}
	if !caps.Broker {
		if urlFlag != nil {
			out = append(out, fmt.Sprintf("%s declares flag --%s but is no broker (Capabilities.Broker): run never reads it", name, urlFlag.Name))
		}
		return out
	}
	switch {
	case urlFlag == nil:
		out = append(out, fmt.Sprintf("broker %s declares no flag --%s: run reads a broker's URL from it (driver.URLFlag)", name, driver.URLFlag(name)))
	case urlFlag.EnvVar != driver.URLEnv(name):
		out = append(out, fmt.Sprintf("broker %s: --%s reads %q, want %s (driver.URLEnv)", name, urlFlag.Name, urlFlag.EnvVar, driver.URLEnv(name)))
	}
	if caps.ProcessBound {
		out = append(out, fmt.Sprintf("broker %s is process-bound", name))
	}
	schemes := driver.SchemesOf(tr)
	if s := driver.URLScheme(addr); !slices.Contains(schemes, s) {
		out = append(out, fmt.Sprintf("broker %s reached at %s, whose scheme is not one it declares (%v)", name, driver.RedactURL(addr), schemes))
	}
	if _, err := driver.Lookup(name); err == nil {
		for _, s := range schemes {
			if got, err := driver.ForScheme(s); err != nil || got.Name() != name {
				out = append(out, fmt.Sprintf("ForScheme(%s) = %v, %v; want the registered %s", s, got, err, name))
			}
		}
	}
	return out
}

// EchoDelayCheck is the delay the EchoDelay check gives the echo: every
// round trip must take at least this long.
const EchoDelayCheck = 20 * time.Millisecond

// checkEchoDelay: a transport that declares it applies Options.EchoDelay
// makes every round trip take at least the delay (a lower bound, which no
// load can break).
func checkEchoDelay(t *testing.T, c Config) error {
	c.Listen.EchoDelay = driver.Delay{Mean: EchoDelayCheck}
	e := StartEcho(t, c)
	p := Dial(t, c, e.Addr())
	buf := make([]byte, 64)
	for i := range 3 {
		msg := make([]byte, 16)
		binary.BigEndian.PutUint64(msg, uint64(i)+1<<32) // unique first 8 bytes
		start := time.Now()
		var err error
		withWatchdog(t, "round trip with an echo delay", func() { _, err = RoundTrip(p, msg, buf) })
		if err != nil {
			return fmt.Errorf("round trip %d with echo delay %v: %w", i, EchoDelayCheck, err)
		}
		if el := time.Since(start); el < EchoDelayCheck {
			return fmt.Errorf("round trip %d took %v with echo delay %v: %s declares EchoDelay but its echo did not wait", i, el, EchoDelayCheck, c.Transport.Name())
		}
	}
	return nil
}

// lostWithin is how long a pinger may take to report a dead broker.
var lostWithin = Watchdog - time.Second

// checkBrokerDies: the broker dies mid-run (the suite reaches it through a
// TCP proxy of its own and kills the proxy, closing every connection at
// once); the pinger must then report the lost link with an error other
// than a timeout within lostWithin, and the echoer's Serve must return an
// error within Watchdog, rather than wait or reconnect silently.
func checkBrokerDies(t *testing.T, c Config) error {
	px, addr := StartProxy(t, c.addr())
	c.Addr = addr
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e, err := c.Transport.Listen(ctx, c.addr(), c.Listen)
	if err != nil {
		t.Fatalf("Listen(%s): %v", driver.RedactURL(c.addr()), err)
	}
	defer e.Close()
	served := make(chan error, 1)
	go func() { served <- e.Serve(ctx) }()
	p := Dial(t, c, e.Addr())
	buf := make([]byte, 64)
	msg := []byte("0123456789abcdef")
	for range 3 {
		if _, err := RoundTrip(p, msg, buf); err != nil {
			return fmt.Errorf("round trip through the proxy: %w", err)
		}
	}
	px.Kill()
	var lost error
	withWatchdog(t, "a round trip after the broker died", func() {
		for end := time.Now().Add(lostWithin); time.Now().Before(end); {
			err := p.Send(msg)
			if err == nil {
				_, _, err = p.Receive(buf, time.Now().Add(200*time.Millisecond))
			}
			if err != nil && !errors.Is(err, driver.ErrTimeout) {
				lost = err
				return
			}
		}
	})
	if lost == nil {
		return fmt.Errorf("after the broker died the pinger only timed out for %v: it must report the lost link", lostWithin)
	}
	t.Logf("pinger after the broker died: %v", lost)
	select {
	case err := <-served:
		if err == nil {
			return errors.New("the echoer's Serve returned nil after the broker died: it must return why it stopped")
		}
		t.Logf("echoer after the broker died: %v", err)
	case <-time.After(Watchdog):
		return fmt.Errorf("the echoer's Serve did not return %v after the broker died", Watchdog)
	}
	return nil
}
