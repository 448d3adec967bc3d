package driver

import (
	"fmt"
	"slices"
	"strings"
)

// Capabilities is what a transport declares, in one value, about the
// things that change what run accepts and that no method of its own
// carries: whether it reaches a broker, whether its ends share a process,
// whether its echo applies a delay. Each transport returns it from
// Transport.Capabilities; Register checks it, `run --list` prints it and
// the conformance suite (drivertest.Run) runs the checks each field
// implies. What a transport does (streams, embedded brokers, the roles'
// clients, size limits, checks of its settings) stays in the optional
// interfaces that carry it.
type Capabilities struct {
	// Broker: the transport reaches a message broker by URL instead of
	// listening at a socket address. The run command then resolves a
	// sub-experiment's address from --target (a URL with one of Schemes,
	// or TRANSPORT=URL), else from the transport's URL flag (URLFlag, which
	// it declares as a FlagOwner), else from the embedded broker (--broker
	// embedded, Embedder); `run echo --listen` takes the broker URL and
	// --ca alone verifies the broker. drivertest checks the URL flag, the
	// schemes, and that a broker dying mid-run ends the ends with an error
	// rather than a hang.
	Broker bool
	// Schemes are a broker's URL schemes, e.g. "nats" and "tls", or "mqtt"
	// and "mqtts"; none means the transport's name. No two registered
	// transports share one.
	Schemes []string
	// ProcessBound: the two ends must live in one process (in-process
	// queues, a program the measuring process starts itself): `run echo`
	// refuses the transport and its echoer always runs in the measuring
	// process. A broker is never process-bound.
	ProcessBound bool
	// EchoDelay: the echo ends apply Options.EchoDelay, its delay and its
	// work alike (both are spent by Delayer.Wait); the run command refuses
	// --echo-delay and --echo-work for the others rather than measuring
	// without them. drivertest checks that a delayed echo's round trips
	// take at least the delay.
	EchoDelay bool
}

// String lists the declared capabilities for `run --list`, e.g.
// "broker (nats, tls), echo delay"; "-" when there are none.
func (c Capabilities) String() string {
	var parts []string
	if c.Broker {
		parts = append(parts, "broker")
		if len(c.Schemes) > 0 {
			parts[0] += " (" + strings.Join(c.Schemes, ", ") + ")"
		}
	}
	if c.ProcessBound {
		parts = append(parts, "process-bound")
	}
	if c.EchoDelay {
		parts = append(parts, "echo delay")
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

// check reports what is inconsistent in the capabilities of the transport
// named name.
func (c Capabilities) check(name string) error {
	switch {
	case len(c.Schemes) > 0 && !c.Broker:
		return fmt.Errorf("transport %s declares URL schemes %v but is not a broker", name, c.Schemes)
	case c.Broker && c.ProcessBound:
		return fmt.Errorf("transport %s declares a broker whose ends share a process: a broker is reached by URL from any process", name)
	}
	for i, s := range c.Schemes {
		if s == "" || s != strings.ToLower(s) || strings.ContainsAny(s, ":/ ") {
			return fmt.Errorf("transport %s declares URL scheme %q: expected a lower-case scheme without ://", name, s)
		}
		if slices.Contains(c.Schemes[:i], s) {
			return fmt.Errorf("transport %s declares URL scheme %q twice", name, s)
		}
	}
	return nil
}

// CapabilitiesOf returns what t declares.
func CapabilitiesOf(t Transport) Capabilities { return t.Capabilities() }

// IsBroker reports whether t reaches a broker by URL (Capabilities.Broker).
func IsBroker(t Transport) bool { return t.Capabilities().Broker }

// SchemesOf returns the URL schemes of a broker transport: its declared
// Schemes, or its name when it declares none; nil for other transports.
func SchemesOf(t Transport) []string {
	c := t.Capabilities()
	switch {
	case !c.Broker:
		return nil
	case len(c.Schemes) > 0:
		return slices.Clone(c.Schemes)
	}
	return []string{t.Name()}
}

// IsProcessBound reports whether t's ends must share a process
// (Capabilities.ProcessBound).
func IsProcessBound(t Transport) bool { return t.Capabilities().ProcessBound }

// HonoursEchoDelay reports whether t's echo ends apply Options.EchoDelay
// (Capabilities.EchoDelay).
func HonoursEchoDelay(t Transport) bool { return t.Capabilities().EchoDelay }
