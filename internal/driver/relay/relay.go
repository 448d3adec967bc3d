package relay

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/external"
)

// Name is the transport's registry name.
const Name = "relay"

// Flag names (driver.FlagOwner).
const (
	FlagCommand = "relay-command"
	FlagName    = "relay-name"
)

// Environment variables the adapter is started with.
const (
	EnvMaxMessage = "MQGATE_RELAY_MAX_MESSAGE" // the largest message of the run, in bytes
	EnvReliable   = "MQGATE_RELAY_RELIABLE"    // 1 for a reliable sub-experiment, else 0
	EnvType       = "MQGATE_RELAY_TYPE"        // the sub-experiment name
)

// MaxHello is the largest hello frame an adapter may write.
const MaxHello = 4096

func init() { driver.Register(Transport{}) }

// Transport measures round trips through an adapter program speaking the
// relay protocol on its standard input and output (docs/relay.md). Its
// sub-experiment is named by --relay-name (driver.ScenarioDefiner).
type Transport struct{}

// Name returns "relay".
func (Transport) Name() string { return Name }

// Capabilities: process-bound, since the adapter is started by the
// measuring process, over pipes, never by `run echo`.
func (Transport) Capabilities() driver.Capabilities {
	return driver.Capabilities{ProcessBound: true}
}

// Flags declares the driver's settings.
func (Transport) Flags() []driver.Flag {
	return []driver.Flag{
		{Name: FlagCommand, Usage: "adapter program speaking the relay protocol (docs/relay.md) on its standard input and output: " +
			"a JSON array or words (no shell; quotes group words)"},
		{Name: FlagName, Usage: "sub-experiment name of what the adapter relays through, <scope>_<reliability>[_<transport>][_security] (formats §1), e.g. kafka_reliable; also give it to --subexperiments"},
	}
}

// config is the driver's settings, checked.
type config struct {
	argv []string
	name string
}

func parseConfig(value func(string) string) (c config, ok bool, err error) {
	cmd := value(FlagCommand)
	if strings.TrimSpace(cmd) == "" {
		if value(FlagName) != "" {
			return c, false, fmt.Errorf("--%s without --%s: give the adapter to run", FlagName, FlagCommand)
		}
		return c, false, nil
	}
	if c.argv, err = external.ParseCommand(cmd); err != nil {
		return c, false, fmt.Errorf("--%s: %v", FlagCommand, err)
	}
	for _, a := range c.argv {
		for _, ph := range []string{external.PhPayload, external.PhSamples, external.PhWarmup, external.PhOut} {
			if strings.Contains(a, ph) {
				return c, false, fmt.Errorf("--%s: argument %q: an adapter takes no placeholders (it is started once and relays every payload)", FlagCommand, a)
			}
		}
	}
	c.name = value(FlagName)
	if c.name == "" {
		return c, false, fmt.Errorf("--%s needs --%s, the sub-experiment name of what the adapter relays through (formats §1), e.g. kafka_reliable", FlagCommand, FlagName)
	}
	if _, err := external.NamedScenario(c.name, Name); err != nil {
		return c, false, fmt.Errorf("--%s: %v", FlagName, err)
	}
	return c, true, nil
}

// DefineScenarios returns the sub-experiment --relay-name when
// --relay-command is set, after checking that the adapter exists.
func (Transport) DefineScenarios(value func(string) string) ([]driver.Scenario, error) {
	c, ok, err := parseConfig(value)
	if err != nil || !ok {
		return nil, err
	}
	return external.ProgramScenario(FlagCommand, c.argv[0], c.name, Name)
}

// Listen returns the echoer that owns the adapters the pingers dialling it
// start: closing it stops them, and its Serve fails when one of them dies.
func (Transport) Listen(_ context.Context, _ string, opts driver.Options) (driver.Echoer, error) {
	e := &echoer{id: strconv.FormatUint(nextID.Add(1), 10), done: make(chan struct{}), failed: make(chan error, 1)}
	echoers.Store(e.id, e)
	return e, nil
}

// Dial starts an adapter for the echoer at addr and waits, within ctx, for
// its hello frame.
func (Transport) Dial(ctx context.Context, addr string, opts driver.Options) (driver.Pinger, error) {
	c, ok, err := parseConfig(func(f string) string { return opts.Params[f] })
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("no --%s", FlagCommand)
	}
	v, found := echoers.Load(strings.TrimPrefix(addr, Name+"/"))
	if !found {
		return nil, fmt.Errorf("no relay echoer at %q", addr)
	}
	a, err := startAdapter(ctx, c, opts, v.(*echoer))
	if err != nil {
		return nil, err
	}
	return a, nil
}

var (
	nextID  atomic.Uint64
	echoers sync.Map // id → *echoer
)

// echoer stands for the adapters of one sub-experiment.
type echoer struct {
	id       string
	mu       sync.Mutex
	adapters []*adapter
	closed   bool
	once     sync.Once
	done     chan struct{}
	failed   chan error
}

func (e *echoer) Addr() string { return Name + "/" + e.id }

// Serve waits until ctx is done or the echoer is closed (nil), or an
// adapter dies (its error).
func (e *echoer) Serve(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return nil
	case <-e.done:
		return nil
	case err := <-e.failed:
		return err
	}
}

// add attaches a started adapter; false when the echoer is closed.
func (e *echoer) add(a *adapter) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return false
	}
	e.adapters = append(e.adapters, a)
	return true
}

// died reports an adapter that exited on its own.
func (e *echoer) died(err error) {
	select {
	case e.failed <- err:
	default:
	}
}

// Close stops every adapter.
func (e *echoer) Close() error {
	e.mu.Lock()
	e.closed = true
	as := e.adapters
	e.adapters = nil
	e.mu.Unlock()
	e.once.Do(func() { close(e.done) })
	echoers.Delete(e.id)
	for _, a := range as {
		a.stop(stopWait)
	}
	return nil
}

// stopWait is how long an adapter whose standard input was closed has to
// exit before it is stopped by signals.
const stopWait = 5 * time.Second

// Compile-time checks.
var (
	_ driver.Transport       = Transport{}
	_ driver.FlagOwner       = Transport{}
	_ driver.ScenarioDefiner = Transport{}
)
