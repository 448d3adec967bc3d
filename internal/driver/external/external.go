package external

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/extformat"
	"github.com/mqgate/mqgate/internal/meta"
)

// Name is the transport's registry name.
const Name = "external"

// Flag names (driver.FlagOwner); run reads each from MQGATE_<NAME> too.
const (
	FlagCommand        = "external-command"
	FlagName           = "external-name"
	FlagFormat         = "external-format"
	FlagUnit           = "external-unit"
	FlagLatency        = "external-latency"
	FlagTimeout        = "external-timeout"
	FlagVersionCommand = "external-version-command"
)

// Defaults of the flags.
const (
	DefaultTimeout = 10 * time.Minute
	// versionTimeout bounds the version command: a program that ignores
	// --version and starts measuring is stopped.
	versionTimeout = 5 * time.Second
)

// NoVersion as --external-version-command skips the version query.
const NoVersion = "none"

func init() { driver.Register(Transport{}) }

// Transport runs an external program that measures on its own and reads
// the latencies it writes. Its sub-experiment is named by --external-name
// (driver.ScenarioDefiner).
type Transport struct{}

// Name returns "external".
func (Transport) Name() string { return Name }

// Capabilities: process-bound, since the program is started by the
// measuring process, never by `run echo`.
func (Transport) Capabilities() driver.Capabilities {
	return driver.Capabilities{ProcessBound: true}
}

// Flags declares the driver's settings.
func (Transport) Flags() []driver.Flag {
	return []driver.Flag{
		{Name: FlagCommand, Usage: "program that measures on its own, started by run: a JSON array or words (no shell; quotes group words); " +
			"placeholders {payload} (then it runs once per payload), {samples}, {warmup}, {out} (a file in the experiment folder it writes its results to; else its standard output is read)"},
		{Name: FlagName, Usage: "sub-experiment name of what the program measures, <scope>_<reliability>[_<transport>][_security] (formats §1), e.g. sockperf_best_effort; also give it to --subexperiments"},
		{Name: FlagFormat, Usage: "what the program writes: " + strings.Join(extformat.Formats, ", ") +
			" (Fast DDS LatencyTest raw CSV, sockperf --full-log, zenoh z_ping lines, one latency per line)"},
		{Name: FlagUnit, Default: "us", Usage: "--external-format lines: the unit of the values, " + strings.Join(extformat.Units, ", ")},
		{Name: FlagLatency, Default: meta.LatencyRTT, Usage: "--external-format lines: what the values are, rtt, half-rtt or one-way"},
		{Name: FlagTimeout, Default: DefaultTimeout.String(), Range: driver.DurationRange(time.Millisecond, 7*24*time.Hour), Usage: "stop the program (its whole process group) when one start of it runs longer; what it wrote is kept and the run is marked incomplete"},
		{Name: FlagVersionCommand, Usage: "command printing the program's version for meta.json (default: the program with --version; its first line is kept); none skips it"},
	}
}

// config is the driver's settings, checked.
type config struct {
	argv, versionArgv []string
	name, format      string
	read              extformat.Options
	timeout           time.Duration
}

// parseConfig reads and checks the flag values. It reports ok false when no
// command is set (the driver is not used).
func parseConfig(value func(string) string) (c config, ok bool, err error) {
	given := map[string]string{}
	for _, f := range (Transport{}).Flags() {
		given[f.Name] = value(f.Name)
	}
	ps, err := driver.ParseParams(Transport{}.Flags(), given)
	if err != nil {
		return c, false, err
	}
	c.timeout = ps.Duration(FlagTimeout)
	cmd := value(FlagCommand)
	if strings.TrimSpace(cmd) == "" {
		for _, f := range []string{FlagName, FlagFormat} {
			if value(f) != "" {
				return c, false, fmt.Errorf("--%s without --%s: give the program to run", f, FlagCommand)
			}
		}
		return c, false, nil
	}
	if c.argv, err = ParseCommand(cmd); err != nil {
		return c, false, fmt.Errorf("--%s: %v", FlagCommand, err)
	}
	c.name = value(FlagName)
	if c.name == "" {
		return c, false, fmt.Errorf("--%s needs --%s, the sub-experiment name of what it measures (formats §1), e.g. sockperf_best_effort", FlagCommand, FlagName)
	}
	if _, err := NamedScenario(c.name, Name); err != nil {
		return c, false, fmt.Errorf("--%s: %v", FlagName, err)
	}
	c.format = value(FlagFormat)
	if c.format == "" {
		return c, false, fmt.Errorf("--%s needs --%s: one of %s", FlagCommand, FlagFormat, strings.Join(extformat.Formats, ", "))
	}
	c.read = extformat.Options{Unit: value(FlagUnit), Latency: value(FlagLatency)}
	if err := extformat.Check(c.format, c.read); err != nil {
		flag := FlagFormat
		switch {
		case strings.HasPrefix(err.Error(), "unit"):
			flag = FlagUnit
		case strings.HasPrefix(err.Error(), "latency"):
			flag = FlagLatency
		}
		return c, false, fmt.Errorf("--%s: %v", flag, err)
	}
	switch v := strings.TrimSpace(value(FlagVersionCommand)); v {
	case NoVersion:
	case "":
		c.versionArgv = []string{c.argv[0], "--version"}
	default:
		if c.versionArgv, err = ParseCommand(v); err != nil {
			return c, false, fmt.Errorf("--%s: %v", FlagVersionCommand, err)
		}
	}
	return c, true, nil
}

// DefineScenarios returns the sub-experiment --external-name, when
// --external-command is set, after checking every setting and that the
// program exists: a mistake is reported before the experiment directory
// is created.
func (Transport) DefineScenarios(value func(string) string) ([]driver.Scenario, error) {
	c, ok, err := parseConfig(value)
	if err != nil || !ok {
		return nil, err
	}
	return ProgramScenario(FlagCommand, c.argv[0], c.name, Name)
}

// NamedScenario is the sub-experiment the user named name (formats §1)
// for what a program measures over transport; an error says why the name
// is no sub-experiment name.
func NamedScenario(name, transport string) (driver.Scenario, error) {
	_, rel, _ := strings.Cut(name, "_")
	s := driver.Scenario{Type: name, Transport: transport, Security: strings.HasSuffix(name, "_security"),
		Reliable: strings.HasPrefix(rel, "reliable") || strings.HasPrefix(rel, "exactly_once")}
	return s, driver.CheckScenario(s)
}

// ProgramScenario checks that the program given to --flag exists and
// returns the sub-experiment it measures, named name (checked already).
func ProgramScenario(flag, program, name, transport string) ([]driver.Scenario, error) {
	if _, err := exec.LookPath(program); err != nil {
		return nil, fmt.Errorf("--%s: program %q not found: %v", flag, program, unwrapExec(err))
	}
	s, _ := NamedScenario(name, transport)
	return []driver.Scenario{s}, nil
}

// unwrapExec drops exec's repetition of the program name.
func unwrapExec(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}

// Listen returns an echoer that does nothing: the program measures its
// own round trips.
func (Transport) Listen(context.Context, string, driver.Options) (driver.Echoer, error) {
	return &idle{done: make(chan struct{})}, nil
}

// Dial prepares the program (it starts when the engine measures) and asks
// it for its version.
func (Transport) Dial(ctx context.Context, _ string, opts driver.Options) (driver.Pinger, error) {
	c, ok, err := parseConfig(func(f string) string { return opts.Params[f] })
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("no --%s", FlagCommand)
	}
	p := &program{cfg: c, info: meta.SystemInfo{Product: filepath.Base(c.argv[0]),
		Extra: map[string]string{"command": QuoteArgv(c.argv), "format": c.format}}}
	if c.versionArgv != nil {
		v, err := version(ctx, c.versionArgv)
		if err != nil {
			p.info.Extra["version_error"] = err.Error()
		}
		p.info.Version = v
	}
	return p, nil
}

// idle is the echoer of a program that measures on its own.
type idle struct {
	once sync.Once
	done chan struct{}
}

func (*idle) Addr() string { return Name }

func (e *idle) Serve(ctx context.Context) error {
	select {
	case <-ctx.Done():
	case <-e.done:
	}
	return nil
}

func (e *idle) Close() error {
	e.once.Do(func() { close(e.done) })
	return nil
}

// Compile-time checks.
var (
	_ driver.Transport       = Transport{}
	_ driver.FlagOwner       = Transport{}
	_ driver.ScenarioDefiner = Transport{}
)
