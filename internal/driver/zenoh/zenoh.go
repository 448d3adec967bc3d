package zenoh

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/zenoh/zenohhelper"
)

// Name is the transport's registry name.
const Name = "zenoh"

// Flag names (driver.FlagOwner).
const (
	FlagMode     = "zenoh-mode"     // peer or client
	FlagEndpoint = "zenoh-endpoint" // the router a client-mode run uses
	FlagHelper   = "zenoh-helper"   // the mqgate-zenoh binary
	FlagKey      = "zenoh-key"      // key expression prefix
)

func init() {
	driver.Register(Transport{})
	driver.RegisterScenario(driver.Scenario{Type: "zenoh_best_effort", Transport: Name, Interprocess: true})
	driver.RegisterScenario(driver.Scenario{Type: "zenoh_reliable", Transport: Name, Reliable: true, Interprocess: true})
}

// Transport opens Zenoh links through the helper.
type Transport struct{}

// Capabilities: none declared. The helper's pong does not apply
// Options.EchoDelay, so run refuses --echo-delay and --echo-work.
func (Transport) Capabilities() driver.Capabilities { return driver.Capabilities{} }

// Name returns "zenoh".
func (Transport) Name() string { return Name }

// Separator joins the chunks of a key expression.
func (Transport) Separator() string { return "/" }

// RoleUsage describes Zenoh in the roles' --help.
func (Transport) RoleUsage() driver.RoleUsage {
	return driver.RoleUsage{What: "through mqgate-zenoh", Endpoint: "tcp/host:7447", EndpointNote: "every router",
		Reliability: "best effort with congestion control drop, or reliable with block"}
}

// Flags are the Zenoh settings of run and run echo.
func (Transport) Flags() []driver.Flag {
	return []driver.Flag{
		{Name: FlagMode, Default: zenohhelper.ModePeer, Usage: "Zenoh session mode of both ends: peer (pong listens, ping connects) or client (both through a router)"},
		{Name: FlagEndpoint, Usage: "client mode: the router's endpoint, e.g. tcp/10.0.0.1:7447 (default: the echo end starts one with mqgate-zenoh router)"},
		{Name: FlagHelper, EnvVar: zenohhelper.EnvHelper, Usage: "the mqgate-zenoh binary (default: the repository's release build, then PATH)"},
		{Name: FlagKey, Usage: "key expression prefix (default: mqgate/<run topic> per sub-experiment, mqgate/bench for run echo)"},
	}
}

// MessageLimit: the helper's messages are at least 16 bytes and Zenoh
// fragments large ones; 16 MiB bounds the helper's buffers.
func (Transport) MessageLimit(driver.Options) int { return 16 << 20 }

// settings are the flag values of one end.
type settings struct{ bin, mode, endpoint, key string }

// CheckParams checks the flag values, and that the helper is there,
// before a run creates anything (driver.ParamChecker).
func (Transport) CheckParams(o driver.Options) error {
	_, err := parse(o)
	return err
}

func parse(o driver.Options) (settings, error) {
	s, err := check(o)
	if err != nil {
		return s, err
	}
	if p := o.Params[FlagHelper]; p != "" {
		s.bin = p
		if !zenohhelper.IsExecutable(p) {
			return s, fmt.Errorf("--%s %s: not an executable file", FlagHelper, p)
		}
	} else if s.bin, err = zenohhelper.Find(); err != nil {
		return s, err
	}
	return s, nil
}

// check reads the flag values that need no file.
func check(o driver.Options) (settings, error) {
	s := settings{mode: o.Params[FlagMode], endpoint: o.Params[FlagEndpoint], key: o.Params[FlagKey]}
	switch s.mode {
	case "":
		s.mode = zenohhelper.ModePeer
	case zenohhelper.ModePeer, zenohhelper.ModeClient:
	default:
		return s, fmt.Errorf("--%s %q: expected %s or %s", FlagMode, s.mode, zenohhelper.ModePeer, zenohhelper.ModeClient)
	}
	if s.endpoint != "" {
		if s.mode != zenohhelper.ModeClient {
			return s, fmt.Errorf("--%s %s: a router endpoint needs --%s client", FlagEndpoint, s.endpoint, FlagMode)
		}
		if _, err := hostPort(s.endpoint); err != nil {
			return s, fmt.Errorf("--%s: %v", FlagEndpoint, err)
		}
	}
	if s.key == "" {
		s.key = "mqgate/bench"
		if o.Topic != "" {
			s.key = "mqgate/" + o.Topic
		}
	}
	if strings.ContainsAny(s.key, "*$?#") || strings.HasPrefix(s.key, "/") || strings.HasSuffix(s.key, "/") {
		return s, fmt.Errorf("--%s %q: expected a plain key expression prefix such as mqgate/bench", FlagKey, s.key)
	}
	return s, nil
}

func (s settings) common(o driver.Options) zenohhelper.Common {
	return zenohhelper.Common{Mode: s.mode, Key: s.key, Reliable: o.Reliable}
}

// hostPort returns HOST:PORT of a tcp/HOST:PORT endpoint or of HOST:PORT.
func hostPort(addr string) (string, error) {
	hp, tcp := strings.CutPrefix(addr, "tcp/")
	if _, _, err := net.SplitHostPort(hp); err != nil || !tcp && strings.Contains(addr, "/") {
		return "", fmt.Errorf("%q: expected tcp/HOST:PORT or HOST:PORT", addr)
	}
	return hp, nil
}

// endpoint turns HOST:PORT into tcp/HOST:PORT.
func endpoint(addr string) string { return "tcp/" + strings.TrimPrefix(addr, "tcp/") }

// processStop is how long a helper has to write its summary and exit
// after SIGTERM.
const processStop = 10 * time.Second

// echoer is a pong role (and the router it started, if any).
type echoer struct {
	addr   string
	pong   *zenohhelper.Process
	router *zenohhelper.Process
	once   sync.Once
}

// Listen starts the helper's pong at addr (HOST:PORT; port 0 picks one).
// In client mode the pong connects to --zenoh-endpoint, or to a router the
// helper starts at addr; Addr is then the router's. The processes outlive
// ctx, which only bounds their start: Close stops them.
func (Transport) Listen(ctx context.Context, addr string, o driver.Options) (driver.Echoer, error) {
	s, err := parse(o)
	if err != nil {
		return nil, err
	}
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	if _, err := hostPort(addr); err != nil {
		return nil, err
	}
	e := &echoer{}
	c := s.common(o)
	var loc string // where pingers connect: the router's, else the pong's
	switch {
	case s.mode == zenohhelper.ModePeer:
		c.Listen = []string{endpoint(addr)}
	case s.endpoint != "":
		c.Connect, loc = []string{s.endpoint}, s.endpoint
	default:
		e.router, err = start(ctx, s.bin, zenohhelper.RouterArgs(zenohhelper.Serve{Common: zenohhelper.Common{Listen: []string{endpoint(addr)}}}))
		if err != nil {
			return nil, fmt.Errorf("starting the Zenoh router: %w", err)
		}
		loc = e.router.Ready.Locator("tcp")
		c.Connect = []string{loc}
	}
	e.pong, err = start(ctx, s.bin, zenohhelper.PongArgs(zenohhelper.Serve{Common: c}))
	if err != nil {
		e.Close()
		return nil, fmt.Errorf("starting the Zenoh pong: %w", err)
	}
	if s.mode == zenohhelper.ModePeer {
		loc = e.pong.Ready.Locator("tcp")
	}
	if e.addr, err = hostPort(loc); err != nil {
		e.Close()
		return nil, fmt.Errorf("the helper reported no TCP locator (%v)", err)
	}
	return e, nil
}

// start starts a helper role that outlives ctx: ctx only bounds the wait
// for its ready line.
func start(ctx context.Context, bin string, args []string) (*zenohhelper.Process, error) {
	type result struct {
		p   *zenohhelper.Process
		err error
	}
	ch := make(chan result, 1)
	go func() {
		p, err := zenohhelper.Start(context.Background(), bin, args)
		ch <- result{p, err}
	}()
	select {
	case r := <-ch:
		return r.p, r.err
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.p != nil {
				r.p.Kill()
			}
		}()
		return nil, ctx.Err()
	}
}

func (e *echoer) Addr() string { return e.addr }

// Serve waits until ctx is done or a helper process ends by itself (the
// link is then broken).
func (e *echoer) Serve(ctx context.Context) error {
	var routerDone <-chan struct{}
	if e.router != nil {
		routerDone = e.router.Done()
	}
	select {
	case <-ctx.Done():
		return nil
	case <-e.pong.Done():
		return fmt.Errorf("the Zenoh pong exited: %v", exitErr(e.pong.Wait()))
	case <-routerDone:
		return fmt.Errorf("the Zenoh router exited: %v", exitErr(e.router.Wait()))
	}
}

func exitErr(x zenohhelper.Exit) error {
	if err := x.Err(); err != nil {
		return err
	}
	return errors.New("exit code 0")
}

func (e *echoer) Close() error {
	e.once.Do(func() {
		if e.pong != nil {
			e.pong.Stop(processStop)
		}
		if e.router != nil {
			e.router.Stop(processStop)
		}
	})
	return nil
}

// Dial returns the measuring end: a pinger whose workload runs the
// helper's ping role against the pong at addr (peer mode) or through the
// router (client mode). It checks that the helper runs and that something
// accepts TCP connections at the address the ping will connect to, within
// ctx.
func (Transport) Dial(ctx context.Context, addr string, o driver.Options) (driver.Pinger, error) {
	s, err := parse(o)
	if err != nil {
		return nil, err
	}
	connect := endpoint(addr)
	if s.endpoint != "" {
		connect = s.endpoint
	}
	hp, err := hostPort(connect)
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", hp)
	if err != nil {
		return nil, fmt.Errorf("nothing accepts Zenoh connections at %s: %w", connect, err)
	}
	conn.Close()
	version, err := zenohhelper.Version(ctx, s.bin)
	if err != nil {
		return nil, err
	}
	return &Pinger{s: s, opts: o, connect: connect, version: version}, nil
}

// zenohVersionRE finds the crate version in `mqgate-zenoh --version`.
var zenohVersionRE = regexp.MustCompile(`\(zenoh ([^)]+)\)`)

// helperDir is where the ping of sub-experiment typ writes, under the
// experiment directory.
func helperDir(dir, typ string) string { return filepath.Join(dir, "helper", typ) }
