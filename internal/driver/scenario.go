package driver

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/mqgate/mqgate/internal/subexp"
)

// Scenario is a named sub-experiment (formats §1): which transport carries it
// and how. The ten built-in ones are those of the Fast-RTPS latency
// specification; each driver package registers its own (amqp_reliable,
// mqtt_exactly_once, nats_best_effort_security, …) from an init function.
type Scenario struct {
	// Type is the sub-experiment name:
	// <scope>_<reliability>[_<transport>][_security].
	Type string
	// Transport is the registry name of the transport that carries it.
	Transport string
	// Reliable asks the transport for its acknowledged, retransmitting or
	// blocking mode (Options.Reliable).
	Reliable bool
	// Security asks for the transport's authenticated, encrypted link.
	Security bool
	// Interprocess: the far end runs in another process (or on another
	// host) unless the run places it otherwise. In-process scenarios have
	// no far end outside this process.
	Interprocess bool
	// Params are settings fixed by the scenario, merged over the flags'
	// values in Options.Params (e.g. {"mqtt-qos": "2"}).
	Params map[string]string
	// Builtin marks the ten Fast-RTPS sub-experiments, listed first.
	Builtin bool
}

var (
	scenarioMu sync.RWMutex
	scenarios  []Scenario
)

// RegisterScenario makes s available by name. It is meant to be called from
// an init function and panics when the name does not follow formats §1 or is
// taken.
func RegisterScenario(s Scenario) {
	if err := CheckScenario(s); err != nil {
		panic("driver: " + err.Error())
	}
	scenarioMu.Lock()
	defer scenarioMu.Unlock()
	for _, o := range scenarios {
		if o.Type == s.Type {
			panic("driver: scenario " + s.Type + " registered twice")
		}
	}
	scenarios = append(scenarios, s)
	sort.SliceStable(scenarios, func(i, j int) bool {
		a, b := scenarios[i], scenarios[j]
		if a.Builtin != b.Builtin {
			return a.Builtin
		}
		if a.Builtin {
			return false // keep the formats §1 order they were registered in
		}
		return a.Type < b.Type
	})
}

// CheckScenario reports whether s's name follows formats §1 and its
// Security field agrees with the name's _security suffix.
func CheckScenario(s Scenario) error {
	if !subexp.Valid(s.Type) {
		return fmt.Errorf("sub-experiment name %q does not follow %s (formats §1), e.g. fastdds_reliable", s.Type, subexp.Grammar)
	}
	if s.Security != strings.HasSuffix(s.Type, "_security") {
		return fmt.Errorf("sub-experiment %q: Security must match the _security suffix", s.Type)
	}
	return nil
}

// ScenarioDefiner is implemented by transports whose sub-experiments the
// user names: an external program or a relay adapter measures whatever
// system it is given, so the name of what it measures (formats §1) is a
// setting, not a registration. Before the names selected for a run are
// looked up, each such transport returns the scenarios its flags define.
type ScenarioDefiner interface {
	// DefineScenarios returns the scenarios defined by the transport's
	// flag values (value returns the value of the flag named, or its
	// default), none when they define none. An error names the flag
	// that is wrong and what was expected.
	DefineScenarios(value func(flag string) string) ([]Scenario, error)
}

// ScenarioOf returns the scenario named typ.
func ScenarioOf(typ string) (Scenario, bool) {
	scenarioMu.RLock()
	defer scenarioMu.RUnlock()
	for _, s := range scenarios {
		if s.Type == typ {
			return s, true
		}
	}
	return Scenario{}, false
}

// Scenarios returns every registered scenario: the built-in ones in formats §1
// order, then the others by name.
func Scenarios() []Scenario {
	scenarioMu.RLock()
	defer scenarioMu.RUnlock()
	return append([]Scenario(nil), scenarios...)
}

// BuiltinScenarios returns the ten Fast-RTPS sub-experiments in formats §1
// order.
func BuiltinScenarios() []Scenario {
	var out []Scenario
	for _, s := range Scenarios() {
		if s.Builtin {
			out = append(out, s)
		}
	}
	return out
}

// BuiltinTypes returns the names of BuiltinScenarios, in order: the
// default sub-experiments of run.
func BuiltinTypes() []string {
	var names []string
	for _, s := range BuiltinScenarios() {
		names = append(names, s.Type)
	}
	return names
}

// The ten Fast-RTPS sub-experiment names map onto the built-in transports:
// interprocess without "_tcp" means UDPv4; "_security" adds DTLS or TLS.
func init() {
	for _, s := range []Scenario{
		{Type: "intraprocess_best_effort", Transport: Intraprocess},
		{Type: "intraprocess_reliable", Transport: Intraprocess, Reliable: true},
		{Type: "interprocess_best_effort", Transport: UDP, Interprocess: true},
		{Type: "interprocess_best_effort_security", Transport: DTLS, Interprocess: true, Security: true},
		{Type: "interprocess_best_effort_tcp", Transport: TCP, Interprocess: true},
		{Type: "interprocess_best_effort_tcp_security", Transport: TLS, Interprocess: true, Security: true},
		{Type: "interprocess_reliable", Transport: UDP, Reliable: true, Interprocess: true},
		{Type: "interprocess_reliable_security", Transport: DTLS, Reliable: true, Interprocess: true, Security: true},
		{Type: "interprocess_reliable_tcp", Transport: TCP, Reliable: true, Interprocess: true},
		{Type: "interprocess_reliable_tcp_security", Transport: TLS, Reliable: true, Interprocess: true, Security: true},
	} {
		s.Builtin = true
		RegisterScenario(s)
	}
}
