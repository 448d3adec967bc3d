package session

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/udp"
	"github.com/mqgate/mqgate/internal/engine"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/program"
	"github.com/mqgate/mqgate/internal/suggest"
)

// echoStartTimeout bounds how long a local echo process may take to start
// and listen (a broker echo connects and subscribes in that time too).
const echoStartTimeout = 15 * time.Second

// Session is a prepared run: every sub-experiment resolved and checked,
// certificates ready, embedded brokers started, external ends reached.
// Nothing has been written to the results directory yet.
type Session struct {
	cfg   Config
	plans []*plan
	tls   *meta.TLS
	// echoSec and pingerSec are the secure ends' material.
	echoSec, pingerSec *driver.Security
	brokers            map[brokerKey]*embedded
	cleanup            []func() error
	runID              string
	// cpus is the placement of the two ends (resolvePlacement); an end
	// the default could not pin is set to -1 as the run goes.
	cpus *meta.CPUs
	// invocation is how the running program was started (the context
	// given to Prepare), which starts it again in the echo role.
	invocation program.Invocation
}

// plan is one sub-experiment, resolved.
type plan struct {
	sc     driver.Scenario
	tr     driver.Transport
	broker bool
	// echo is the placement: EchoInProcess, EchoSubprocess or EchoRemote.
	echo string
	// addr is the broker URL, or the remote echo's address; empty for a
	// socket echoer this run starts.
	addr     string
	embedded bool
	opts     driver.Options // the pinger's
	echoOpts driver.Options // the echoer's
	// params are the transport's settings (Options.Params); recorded are
	// those that may go to meta.json.
	params, recorded map[string]string
}

type brokerKey struct {
	transport string
	secure    bool
}

type embedded struct {
	url  string
	stop func() error
}

// Prepare resolves and checks cfg, and makes ready what the run needs
// before anything is measured: the certificates of the secure scenarios,
// the embedded brokers, and a connection to every external far end and
// broker (a round trip with a remote echo), so that a mistake or an
// unreachable end is reported before the experiment directory exists. The
// caller closes the session.
func Prepare(ctx context.Context, cfg Config) (_ *Session, err error) {
	s := &Session{cfg: cfg, brokers: map[brokerKey]*embedded{}, invocation: program.FromContext(ctx)}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if err := s.resolve(); err != nil {
		return nil, err
	}
	if err := s.resolvePlacement(); err != nil {
		return nil, err
	}
	if err := s.prepareSecurity(); err != nil {
		return nil, err
	}
	for _, p := range s.plans {
		s.setOptions(p)
		if err := checkSize(p, s.cfg.Engine.MaxPayload()); err != nil {
			return nil, err
		}
		if pc, ok := p.tr.(driver.ParamChecker); ok {
			if err := pc.CheckParams(p.opts); err != nil {
				return nil, fmt.Errorf("%s: %w", p.sc.Type, err)
			}
		}
	}
	if err := s.startBrokers(ctx); err != nil {
		return nil, err
	}
	for _, p := range s.plans {
		p.useAddr()
		if err := s.probe(ctx, p); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// UnreachableError is Prepare's error when a broker or remote echo the
// flags name does not answer: the system measured is not there, which is
// the environment's failure rather than the flags' (a gate says it has no
// verdict, as when an echo process it starts never answers).
type UnreachableError struct{ Err error }

func (e *UnreachableError) Error() string { return e.Err.Error() }
func (e *UnreachableError) Unwrap() error { return e.Err }

// useAddr makes a broker's URL flag say the URL p uses, which may come from
// --target or an embedded broker, so that the driver and meta.json see the
// same address.
func (p *plan) useAddr() {
	if !p.broker {
		return
	}
	name := driver.URLFlag(p.tr.Name())
	if _, declared := p.params[name]; !declared {
		return
	}
	p.params[name] = p.addr
	if _, recorded := p.recorded[name]; recorded {
		p.recorded[name] = driver.RedactURL(p.addr)
	}
}

// resolve checks the configuration and places every sub-experiment.
func (s *Session) resolve() error {
	if err := s.checkConfig(); err != nil {
		return err
	}
	var b [4]byte
	rand.Read(b[:])
	s.runID = hex.EncodeToString(b[:])
	if err := s.selectScenarios(); err != nil {
		return err
	}
	targets, err := parseTargets(s.cfg.Targets)
	if err != nil {
		return err
	}
	used := map[string]bool{}
	for _, p := range s.plans {
		if err := s.place(p, targets, used); err != nil {
			return err
		}
		if err := s.checkEchoDelay(p); err != nil {
			return err
		}
	}
	if len(s.cfg.EchoCommand) > 0 && !slices.ContainsFunc(s.plans, func(p *plan) bool { return p.echo == EchoSubprocess }) {
		return errors.New("--echo-command: no selected sub-experiment starts an echo process (it applies to --echo subprocess)")
	}
	// A setting nothing applies was accepted and recorded in meta.json
	// as if it had been.
	if e := s.cfg.Echo; (e == EchoSubprocess || e == EchoRemote) && !slices.ContainsFunc(s.plans, func(p *plan) bool { return p.echo == e }) {
		return fmt.Errorf("--echo %s: no selected sub-experiment has its echo there (intraprocess ones, and links bound to this process, echo in it)", e)
	}
	if s.cfg.Topic != "" && !slices.ContainsFunc(s.plans, func(p *plan) bool { return p.broker }) {
		return fmt.Errorf("--topic %q: no selected sub-experiment goes through a broker, whose topic it names", s.cfg.Topic)
	}
	if err := s.checkEchoProgram(); err != nil {
		return err
	}
	// A target no sub-experiment uses is a mistake: a misspelt transport
	// would silently measure a local echo instead.
	for key, t := range targets {
		if !used[key] {
			return s.unusedTarget(key, t)
		}
	}
	return nil
}

// checkConfig fills in the configuration's defaults and checks its
// settings that need no sub-experiment.
func (s *Session) checkConfig() error {
	c := &s.cfg
	c.Engine = c.Engine.WithDefaults()
	if err := c.Engine.Validate(); err != nil {
		return err
	}
	if err := engine.CheckMemory(c.Engine); err != nil {
		return err
	}
	var err error
	if c.Echo, err = normalizeEcho(c.Echo); err != nil {
		return err
	}
	switch c.Broker {
	case "":
		c.Broker = BrokerExternal
	case BrokerExternal, BrokerEmbedded:
	default:
		return fmt.Errorf("--broker %q: expected %s or %s", c.Broker, BrokerExternal, BrokerEmbedded)
	}
	if c.RetransmitTimeout < 0 || c.MaxRetries < 0 || c.QueueDepth < 0 || c.ConnectTimeout < 0 {
		return errors.New("--retransmit-timeout, --max-retries, --queue-depth and --connect-timeout must not be negative")
	}
	// The reliable datagram defaults are filled in so that meta.json
	// records the values used.
	c.RetransmitTimeout = cmp.Or(c.RetransmitTimeout, udp.DefaultRetransmitTimeout)
	c.MaxRetries = cmp.Or(c.MaxRetries, udp.DefaultMaxRetries)
	c.ConnectTimeout = cmp.Or(c.ConnectTimeout, DefaultConnectTimeout)
	if len(c.Scenarios) == 0 {
		return errors.New("no sub-experiment selected")
	}
	return nil
}

// selectScenarios plans every sub-experiment of --subexperiments, built in
// or defined by transport flags, each once, and refuses a defined one that
// is not selected.
func (s *Session) selectScenarios() error {
	c := &s.cfg
	defined, err := s.defineScenarios()
	if err != nil {
		return err
	}
	for _, name := range c.Scenarios {
		sc, ok := driver.ScenarioOf(name)
		if !ok {
			sc, ok = defined[name]
		}
		if !ok {
			return unknownScenario(name, defined)
		}
		if slices.ContainsFunc(s.plans, func(p *plan) bool { return p.sc.Type == name }) {
			return fmt.Errorf("--subexperiments: %s is listed twice", name)
		}
		tr, err := driver.Lookup(sc.Transport)
		if err != nil {
			return fmt.Errorf("--subexperiments: %s: %v", name, err)
		}
		s.plans = append(s.plans, &plan{sc: sc, tr: tr, broker: driver.IsBroker(tr)})
	}

	// A sub-experiment defined by flags but not selected is a mistake, as
	// an unused target is: the user meant to measure it.
	for name, sc := range defined {
		if !slices.Contains(c.Scenarios, name) {
			return fmt.Errorf("sub-experiment %s is defined by the flags of transport %s but not selected: add it to --subexperiments", name, sc.Transport)
		}
	}
	return nil
}

// unknownScenario is the error for a sub-experiment name neither built in
// nor defined: the nearest known name, or all of them.
func unknownScenario(name string, defined map[string]driver.Scenario) error {
	known := slices.AppendSeq(ScenarioNames(), maps.Keys(defined))
	if near := suggest.NearestName(name, known); near != "" {
		return fmt.Errorf("--subexperiments: unknown sub-experiment %q: did you mean %s? ('run --list' lists the %d known)", name, near, len(known))
	}
	return fmt.Errorf("--subexperiments: unknown sub-experiment %q; expected some of %s (see 'run --list')%s", name, strings.Join(known, ", "), definerHint())
}

// parseTargets reads the --target flags by transport ("" for one that
// names none), at most one each.
func parseTargets(raws []string) (map[string]target, error) {
	targets := map[string]target{}
	for _, raw := range raws {
		t, err := parseTarget(raw)
		if err != nil {
			return nil, err
		}
		if o, dup := targets[t.transport]; dup {
			return nil, fmt.Errorf("--target %q and %q: one target per transport", driver.RedactURL(o.raw), driver.RedactURL(raw))
		}
		targets[t.transport] = t
	}
	return targets, nil
}

// unusedTarget is the error for a target (of transport key) no selected
// sub-experiment uses, saying why.
func (s *Session) unusedTarget(key string, t target) error {
	var transports []string
	for _, p := range s.plans {
		if p.sc.Interprocess && !slices.Contains(transports, p.tr.Name()) {
			transports = append(transports, p.tr.Name())
		}
	}
	switch {
	case len(transports) == 0:
		return fmt.Errorf("--target %q: no selected sub-experiment is interprocess", driver.RedactURL(t.raw))
	case key != "" && !slices.Contains(transports, key):
		return fmt.Errorf("--target %q: no selected sub-experiment uses transport %q; expected one of %s",
			driver.RedactURL(t.raw), key, strings.Join(transports, ", "))
	default:
		return fmt.Errorf("--target %q: no selected sub-experiment reaches it (the echo placement is not remote)", driver.RedactURL(t.raw))
	}
}

// place decides where p's echoer runs and which address it uses.
func (s *Session) place(p *plan, targets map[string]target, used map[string]bool) error {
	c := &s.cfg
	name, typ := p.tr.Name(), p.sc.Type
	if !p.sc.Interprocess || driver.IsProcessBound(p.tr) {
		p.echo = EchoInProcess
		if p.broker {
			return s.placeBroker(p, targets, used)
		}
		return nil
	}
	if p.broker {
		p.echo = cmp.Or(c.Echo, EchoSubprocess) // EchoAuto is ""
		return s.placeBroker(p, targets, used)
	}
	t, ok := targets[name]
	key := name
	if !ok {
		t, ok = targets[""]
		key = ""
	}
	switch c.Echo {
	case EchoAuto:
		p.echo = EchoSubprocess
		if ok {
			p.echo = EchoRemote
		}
	case EchoRemote:
		if !ok {
			return fmt.Errorf("%s: --echo remote needs --target HOST:PORT (or %s=HOST:PORT), where 'run echo --transport %s' listens", typ, name, name)
		}
		p.echo = EchoRemote
	default:
		p.echo = c.Echo
		return nil // an unused target is reported by resolve
	}
	if p.echo == EchoRemote {
		p.addr = t.addr
		used[key] = true
	}
	return nil
}

// placeBroker resolves the broker URL of p: from --target, the driver's
// URL flag, or an embedded broker.
func (s *Session) placeBroker(p *plan, targets map[string]target, used map[string]bool) error {
	c := &s.cfg
	name, typ := p.tr.Name(), p.sc.Type
	t, given := targets[name]
	if given {
		used[name] = true
	}
	switch {
	case c.Broker == BrokerEmbedded:
		if given {
			return fmt.Errorf("%s: --broker embedded and --target %q: choose one", typ, driver.RedactURL(t.raw))
		}
		if _, ok := p.tr.(driver.Embedder); !ok {
			return fmt.Errorf("%s: transport %s cannot run its broker embedded; give its URL with --target or --%s", typ, name, driver.URLFlag(name))
		}
		if p.echo == EchoRemote {
			return fmt.Errorf("%s: an embedded broker listens on this host's loopback only: a remote echo cannot reach it", typ)
		}
		p.embedded = true
	case given:
		p.addr = t.addr
	default:
		p.addr = s.param(p.tr, driver.URLFlag(name))
		if p.addr == "" {
			return fmt.Errorf("%s: no broker URL: give --target %s://HOST:PORT, --%s (or %s), or --broker embedded",
				typ, driver.SchemesOf(p.tr)[0], driver.URLFlag(name), driver.URLEnv(name))
		}
		if driver.URLScheme(p.addr) == "" {
			return fmt.Errorf("%s: --%s %q: expected a URL such as %s://HOST:PORT", typ, driver.URLFlag(name), driver.RedactURL(p.addr), driver.SchemesOf(p.tr)[0])
		}
	}
	if p.echo == EchoRemote && c.Topic == "" {
		return fmt.Errorf("%s: a remote echo over a broker needs --topic, the topic given to its 'run echo'", typ)
	}
	return nil
}

// checkEchoDelay refuses an echo delay p cannot apply: its echo end is not
// this run's, or its transport ignores the delay.
func (s *Session) checkEchoDelay(p *plan) error {
	if s.cfg.EchoDelay.IsZero() {
		return nil
	}
	flag := delayFlag(s.cfg.EchoDelay)
	if p.echo == EchoRemote {
		return fmt.Errorf("%s: %s applies to the echoes this run starts; give it to the remote 'run echo' instead", p.sc.Type, flag)
	}
	if !driver.HonoursEchoDelay(p.tr) {
		return fmt.Errorf("%s: transport %s does not apply %s", p.sc.Type, p.tr.Name(), flag)
	}
	return nil
}

// delayFlag names the flag that gave d: --echo-work when it has no delay.
func delayFlag(d driver.Delay) string {
	if d.Mean == 0 && d.Jitter == 0 {
		return "--echo-work"
	}
	return "--echo-delay"
}

// param returns the value of t's flag name: as configured, or its default.
func (s *Session) param(t driver.Transport, name string) string {
	if v, ok := s.cfg.Params[name]; ok {
		return v
	}
	for _, f := range driver.FlagsOf(t) {
		if f.Name == name {
			return f.Default
		}
	}
	return ""
}

// setOptions fills p's driver options.
func (s *Session) setOptions(p *plan) {
	c := &s.cfg
	p.params, p.recorded = map[string]string{}, map[string]string{}
	secret := map[string]bool{}
	for _, f := range driver.FlagsOf(p.tr) {
		p.params[f.Name] = s.param(p.tr, f.Name)
		secret[f.Name] = f.Secret
	}
	maps.Copy(p.params, p.sc.Params)
	for k, v := range p.params {
		if !secret[k] {
			p.recorded[k] = driver.RedactURL(v)
		}
	}
	if len(p.recorded) == 0 {
		p.recorded = nil
	}
	o := driver.Options{
		Reliable:          p.sc.Reliable,
		RetransmitTimeout: c.RetransmitTimeout,
		MaxRetries:        c.MaxRetries,
		LargestMessage:    c.Engine.MaxPayload(),
		QueueDepth:        c.QueueDepth,
		Params:            p.params,
	}
	if p.broker {
		o.Topic = cmp.Or(c.Topic, "mqgate-"+s.runID+"-"+p.sc.Type)
	}
	p.opts, p.echoOpts = o, o
	p.echoOpts.EchoDelay = c.EchoDelay
	p.echoOpts.EchoDelay.Seed = c.Engine.Seed
	if p.sc.Security {
		pinger, echo := *s.pingerSec, *s.echoSec
		p.opts.Security, p.echoOpts.Security = &pinger, &echo
		if p.broker {
			// The broker end is a client too: it presents the client
			// certificate, and the broker the server one.
			p.echoOpts.Security = &pinger
		}
	}
}

// checkSize refuses a payload larger than the transport carries.
func checkSize(p *plan, maxPayload int) error {
	limit := driver.MessageLimitOf(p.tr, p.opts)
	if limit > 0 && maxPayload > limit {
		return fmt.Errorf("payload %d B is larger than the %d-byte maximum message of transport %s (sub-experiment %s); choose smaller --payloads",
			maxPayload, limit, p.tr.Name(), p.sc.Type)
	}
	return nil
}

// startBrokers starts one embedded broker per transport and security.
func (s *Session) startBrokers(ctx context.Context) error {
	for _, p := range s.plans {
		if !p.embedded {
			continue
		}
		key := brokerKey{p.tr.Name(), p.sc.Security}
		b := s.brokers[key]
		if b == nil {
			opts := p.opts
			opts.Security = nil
			if p.sc.Security {
				echo := *s.echoSec
				opts.Security = &echo
			}
			sctx, cancel := context.WithTimeout(ctx, s.cfg.ConnectTimeout+echoStartTimeout)
			u, stop, err := p.tr.(driver.Embedder).StartEmbedded(sctx, opts)
			cancel()
			if err != nil {
				return fmt.Errorf("%s: cannot start the embedded %s broker: %w", p.sc.Type, p.tr.Name(), err)
			}
			b = &embedded{url: u, stop: stop}
			s.brokers[key] = b
			s.cleanup = append(s.cleanup, stop)
		}
		p.addr = b.url
	}
	return nil
}

// probe connects to p's external far end or broker once: a broker must
// accept the connection (and its credentials), a remote echo must echo a
// message. Ends the run starts itself are not probed: their failure shows
// when the sub-experiment opens its link.
func (s *Session) probe(ctx context.Context, p *plan) error {
	if p.echo != EchoRemote && (!p.broker || p.embedded) {
		return nil
	}
	what := "the broker"
	if p.echo == EchoRemote {
		what = "the remote echo"
	}
	cctx, cancel := context.WithTimeout(ctx, s.cfg.ConnectTimeout)
	defer cancel()
	st, oneWay := p.tr.(driver.StreamTransport)
	oneWay = oneWay && s.cfg.OneWay && p.echo != EchoRemote
	var pinger driver.Pinger
	var err error
	if oneWay {
		err = probeOneWay(cctx, st, p)
	} else {
		pinger, err = p.tr.Dial(cctx, p.addr, p.opts)
	}
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w while connecting", p.sc.Type, engine.ErrInterrupted)
		}
		if expired(cctx) {
			err = fmt.Errorf("%w (nothing within --connect-timeout %v)", err, s.cfg.ConnectTimeout)
		}
		return &UnreachableError{fmt.Errorf("%s: cannot reach %s at %s: %w", p.sc.Type, what, driver.RedactURL(p.addr), err)}
	}
	if oneWay {
		return nil // probeOneWay closed its ends
	}
	defer pinger.Close()
	if p.echo != EchoRemote {
		return nil
	}
	if _, ok := pinger.(driver.SelfMeasuring); ok {
		// A self-measuring link (a helper program exchanges the messages)
		// checked the far end in Dial: it sends nothing through this
		// process.
		return nil
	}
	if as, ok := pinger.(driver.AckSender); ok {
		as.OnAck(func(error) {})
	}
	// Sequence number 0 is never one of the engine's.
	msg := make([]byte, engine.HeaderSize)
	binary.LittleEndian.PutUint64(msg[8:], uint64(time.Now().UnixNano()))
	buf := make([]byte, p.opts.LargestMessageOrDefault()+1)
	deadline, _ := cctx.Deadline()
	if err := pinger.Send(msg); err != nil {
		return fmt.Errorf("%s: %s at %s: %w", p.sc.Type, what, driver.RedactURL(p.addr), err)
	}
	for {
		n, _, err := pinger.Receive(buf, deadline)
		if err != nil {
			if errors.Is(err, driver.ErrTimeout) {
				return fmt.Errorf("%s: %s at %s did not echo within --connect-timeout %v", p.sc.Type, what, driver.RedactURL(p.addr), s.cfg.ConnectTimeout)
			}
			return fmt.Errorf("%s: %s at %s: %w", p.sc.Type, what, driver.RedactURL(p.addr), err)
		}
		if n == len(msg) && string(buf[:n]) == string(msg) {
			return nil
		}
	}
}

// probeOneWay opens a subscriber and a publisher of p's topic at p's
// broker, as the one-way runs do, and closes them.
func probeOneWay(ctx context.Context, st driver.StreamTransport, p *plan) error {
	sub, err := st.Subscribe(ctx, p.addr, p.opts)
	if err != nil {
		return err
	}
	defer sub.Close()
	pub, err := st.Publish(ctx, p.addr, p.opts)
	if err != nil {
		return err
	}
	return pub.Close()
}

// Close stops the embedded brokers and removes generated certificates.
func (s *Session) Close() error {
	var errs []error
	for i := len(s.cleanup) - 1; i >= 0; i-- {
		errs = append(errs, s.cleanup[i]())
	}
	s.cleanup = nil
	return errors.Join(errs...)
}

// Subs returns the engine's view of the sub-experiments, in order.
func (s *Session) Subs() []engine.Sub {
	subs := make([]engine.Sub, len(s.plans))
	for i, p := range s.plans {
		subs[i] = engine.Sub{
			Type: p.sc.Type, Transport: p.tr.Name(), Reliable: p.sc.Reliable, Echo: recordedEcho(p.echo),
			Topic: p.opts.Topic, Params: p.recorded,
			Open: func(ctx context.Context) (*engine.Link, error) { return s.open(ctx, p) },
		}
	}
	return subs
}

// open starts p's echoer where it is placed and connects a pinger.
func (s *Session) open(ctx context.Context, p *plan) (link *engine.Link, err error) {
	switch p.echo {
	case EchoInProcess:
		link, err = s.openInProcess(ctx, p)
	case EchoSubprocess:
		link, err = s.openSubprocess(ctx, p)
	default:
		var pinger driver.Pinger
		pinger, err = s.dial(ctx, p, p.addr)
		if err == nil {
			link = &engine.Link{Pinger: pinger}
		}
	}
	if err != nil {
		return nil, err
	}
	link.System = s.systemInfo(p, link.Pinger)
	return link, nil
}

// systemInfo describes what p's pinger reached, for meta.json.
func (s *Session) systemInfo(p *plan, pinger driver.Pinger) *meta.SystemInfo {
	var info meta.SystemInfo
	ir, ok := pinger.(driver.InfoReporter)
	if ok {
		info = ir.SystemInfo()
	}
	if !ok && !p.broker {
		return nil
	}
	if info.URL == "" && p.broker {
		info.URL = p.addr
	}
	return driver.Recorded(info, p.embedded)
}

// dial connects a pinger within the connect timeout.
func (s *Session) dial(ctx context.Context, p *plan, addr string) (driver.Pinger, error) {
	cctx, cancel := context.WithTimeout(ctx, s.cfg.ConnectTimeout)
	defer cancel()
	pinger, err := p.tr.Dial(cctx, addr, p.opts)
	if err != nil && expired(cctx) && ctx.Err() == nil {
		return nil, fmt.Errorf("%w (--connect-timeout %v)", err, s.cfg.ConnectTimeout)
	}
	return pinger, err
}

// expired reports whether ctx's deadline has passed. A transport may give
// up on its own socket deadline, taken from ctx, an instant before ctx
// itself is done.
func expired(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return ctx.Err() != nil || ok && !time.Now().Before(d)
}

// listenAddr is where a local echoer of p listens.
func (p *plan) listenAddr() string {
	switch {
	case p.broker:
		return p.addr
	case driver.IsProcessBound(p.tr):
		return ""
	}
	return "127.0.0.1:0"
}

func (s *Session) openInProcess(ctx context.Context, p *plan) (*engine.Link, error) {
	lctx, cancel := context.WithTimeout(ctx, s.cfg.ConnectTimeout)
	e, err := p.tr.Listen(lctx, p.listenAddr(), p.echoOpts)
	cancel()
	if err != nil {
		return nil, err
	}
	addr := e.Addr()
	if p.broker {
		addr = p.addr
	}
	// The echoer serves before the pinger dials: a TLS or DTLS handshake
	// needs it accepting.
	sctx, stop := context.WithCancel(context.Background())
	failed := make(chan error, 1)
	pinned := make(chan error, 1)
	var wg sync.WaitGroup
	wg.Go(func() {
		pinned <- pinThread(s.pongerCPU())
		if err := e.Serve(sctx); err != nil && sctx.Err() == nil {
			failed <- err
		}
	})
	closeEcho := func() error {
		stop()
		e.Close()
		wg.Wait()
		return nil
	}
	if err := <-pinned; err != nil {
		if s.given() {
			closeEcho()
			return nil, fmt.Errorf("--cpus: the echo end: %w", err)
		}
		s.unpin(p.sc.Type+": the echo end", err)
	}
	pinger, err := s.dial(ctx, p, addr)
	if err != nil {
		closeEcho()
		return nil, err
	}
	return &engine.Link{Pinger: pinger, Failed: failed, Close: closeEcho}, nil
}

// checkEchoProgram makes sure, before anything is created, that the
// program started in the echo role (--echo-command, or this program) can
// be executed when a sub-experiment starts echo processes.
func (s *Session) checkEchoProgram() error {
	if !slices.ContainsFunc(s.plans, func(p *plan) bool { return p.echo == EchoSubprocess }) {
		return nil
	}
	argv, what, err := s.echoProgram()
	if err != nil {
		return err
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		return fmt.Errorf("%s %q cannot be executed: %v", what, argv[0], err)
	}
	return nil
}

// echoProgram is the command line started in the echo role, before `echo`
// and its flags, and what it is called in messages: --echo-command, or
// Self, or else this program as it was started (`mqgate run` under the
// front, which runs no tool named echo; the executable itself otherwise).
func (s *Session) echoProgram() (argv []string, what string, err error) {
	if len(s.cfg.EchoCommand) > 0 {
		return s.cfg.EchoCommand, "--echo-command", nil
	}
	what = "the program started in the echo role"
	if len(s.cfg.Self) > 0 {
		return s.cfg.Self, what, nil
	}
	argv, err = s.invocation.Self()
	if err != nil {
		return nil, what, fmt.Errorf("cannot find this program to start the echo process: %w", err)
	}
	return argv, what, nil
}

// ListenEnv passes a broker URL to an echo process (run echo's --listen),
// so that credentials do not appear on its command line.
const ListenEnv = "MQGATE_ECHO_LISTEN"

func (s *Session) openSubprocess(ctx context.Context, p *plan) (*engine.Link, error) {
	stderr := cmp.Or(s.cfg.EchoStderr, io.Discard)
	argv, _, err := s.echoProgram()
	if err != nil {
		return nil, err
	}
	o := p.echoOpts
	argv = append(slices.Clone(argv), "echo", "--transport", p.tr.Name(), "--stdin-lifeline",
		"--max-message-size", strconv.Itoa(o.LargestMessage))
	env := os.Environ()
	if p.broker {
		env = append(env, ListenEnv+"="+p.addr)
		argv = append(argv, "--topic", o.Topic)
	} else {
		argv = append(argv, "--listen", p.listenAddr())
	}
	if o.Reliable {
		argv = append(argv, "--reliable")
	}
	if cpu := s.pongerCPU(); cpu >= 0 {
		argv = append(argv, "--cpu", strconv.Itoa(cpu))
	}
	if o.QueueDepth > 0 {
		argv = append(argv, "--queue-depth", strconv.Itoa(o.QueueDepth))
	}
	if d := o.EchoDelay; d.Mean != 0 || d.Jitter != 0 {
		argv = append(argv, "--echo-delay", d.String(), "--seed", strconv.FormatUint(d.Seed, 10))
	}
	if w := o.EchoDelay.Work; w > 0 {
		argv = append(argv, "--echo-work", w.String())
	}
	if sec := o.Security; sec != nil {
		// A broker's echo is a client: with --ca alone it verifies the
		// broker and presents no certificate.
		argv = append(argv, "--ca", sec.CAFile)
		if sec.CertFile != "" {
			argv = append(argv, "--cert", sec.CertFile, "--key", sec.KeyFile)
		}
	}
	// The transport's settings travel in the environment variables of its
	// flags, so that secrets stay off the command line.
	for _, f := range driver.FlagsOf(p.tr) {
		env = append(env, FlagEnv(f)+"="+p.params[f.Name])
	}
	ep, err := startEchoProcess(ctx, argv, env, stderr, echoStartTimeout+s.cfg.ConnectTimeout)
	if err != nil {
		return nil, err
	}
	if cpu := s.pongerCPU(); cpu >= 0 {
		// The echo process pinned itself before printing its address;
		// what the OS made of it is read from outside.
		if err := checkProcessPinned(ep.cmd.Process.Pid, cpu); err != nil {
			if s.given() {
				ep.stop()
				return nil, fmt.Errorf("--cpus: the echo process %d: %w", ep.cmd.Process.Pid, err)
			}
			s.unpin(fmt.Sprintf("%s: the echo process %d", p.sc.Type, ep.cmd.Process.Pid), err)
		}
	}
	addr := ep.addr
	if p.broker {
		addr = p.addr // the echo printed the URL without its password
	}
	pinger, err := s.dial(ctx, p, addr)
	if err != nil {
		ep.stop()
		return nil, err
	}
	pid := ep.cmd.Process.Pid
	return &engine.Link{Pinger: pinger, Failed: ep.failed, Close: ep.stop, CPU: func() (time.Duration, error) { return echoCPU(pid) }}, nil
}

// FlagEnv is the environment variable of a driver flag: its own, or
// driver.EnvName of its name.
func FlagEnv(f driver.Flag) string {
	return cmp.Or(f.EnvVar, driver.EnvName(f.Name))
}

// Output says where a session's results go.
type Output struct {
	// Dir is the experiment directory.
	Dir string
	// Meta is the record to complete: the caller fills Tool, Experiment,
	// Start, System (name, version, commit) and Host; the session adds
	// the configuration and the scopes. Config.Out is the caller's.
	Meta *meta.Meta
	// Progress receives progress reports (nil: quiet); Terminal makes them
	// a status line.
	Progress io.Writer
	Terminal bool
}

// Run measures every sub-experiment and writes the experiment directory
// (engine.Runner.Run says what it returns). The pinger runs on a
// goroutine of its own, pinned by the placement, so that pinning never
// leaks a pinned thread to the rest of the program. A pin given by --cpus
// that the OS does not honour stops the run; a default one is recorded as
// not pinned, with a warning.
func (s *Session) Run(ctx context.Context, out Output) error {
	runner := s.runner(out)
	subs := s.Subs()
	return s.asPinger(func() error { return runner.Run(ctx, subs) })
}

// runner completes out's meta.json record and gives the runner that
// writes out.
func (s *Session) runner(out Output) *engine.Runner {
	s.CompleteMeta(out.Meta)
	return &engine.Runner{Config: s.cfg.Engine, Dir: out.Dir, Meta: out.Meta, Progress: out.Progress, Terminal: out.Terminal}
}

// CompleteMeta completes m, a run's meta.json record, with the
// configuration (MetaConfig, keeping m's Config.Out) and the scopes of the
// sub-experiments.
func (s *Session) CompleteMeta(m *meta.Meta) {
	dir := m.Config.Out
	m.Config = s.MetaConfig()
	m.Config.Out = dir
	for _, p := range s.plans {
		scope, _, _ := strings.Cut(p.sc.Type, "_")
		if !slices.Contains(m.System.Scopes, scope) {
			m.System.Scopes = append(m.System.Scopes, scope)
		}
	}
}

// asPinger runs measure on a goroutine of its own pinned to the pinger's
// CPU (Run says why).
func (s *Session) asPinger(measure func() error) error {
	errc := make(chan error, 1)
	go func() {
		if err := pinThread(s.pingerCPU()); err != nil {
			if s.given() {
				errc <- fmt.Errorf("--cpus: the pinger: %w", err)
				return
			}
			s.unpin("pinger", err)
		}
		errc <- measure()
	}()
	return <-errc
}

// RunDuet measures the sub-experiments of a and b side by side in one
// run (engine.Duet): one pinger, on a's pinger CPU, alternates blocks of
// round trips between a's and b's links, whose echo ends each session
// places as it would alone (both on its echo CPU when the sessions are
// placed alike). d's A, B and Config are set from the sessions and the
// outputs; d.Round sees each round's block pairs.
func RunDuet(ctx context.Context, a, b *Session, outA, outB Output, d engine.Duet) error {
	if !slices.Equal(a.cfg.Engine.Payloads, b.cfg.Engine.Payloads) {
		return fmt.Errorf("the sides measure payloads %v and %v", a.cfg.Engine.Payloads, b.cfg.Engine.Payloads)
	}
	d.Config = a.cfg.Engine
	d.A, d.B = a.runner(outA), b.runner(outB)
	subsA, subsB := a.Subs(), b.Subs()
	return a.asPinger(func() error { return d.Run(ctx, subsA, subsB) })
}

// MetaConfig is the resolved configuration for meta.json: every default
// filled in, secrets left out.
func (s *Session) MetaConfig() meta.Config {
	c := &s.cfg
	mc := meta.Config{
		Args:              RedactArgs(c.Args, secretFlags()),
		Payloads:          c.Engine.Payloads,
		Samples:           c.Engine.Samples,
		Warmup:            c.Engine.Warmup,
		Timeout:           meta.Duration(c.Engine.Timeout),
		MaxLostInRow:      c.Engine.MaxLostInRow,
		Fill:              c.Engine.Fill,
		Seed:              c.Engine.Seed,
		RetransmitTimeout: meta.Duration(c.RetransmitTimeout),
		MaxRetries:        c.MaxRetries,
		QueueDepth:        c.QueueDepth,
		CPUs:              s.cpus,
		TLS:               s.tls,
		ConnectTimeout:    meta.Duration(c.ConnectTimeout),
		Topic:             c.Topic,
	}
	if len(c.EchoCommand) > 0 {
		mc.EchoCommand = RedactArgs(c.EchoCommand, secretFlags())
	}
	if d := c.EchoDelay; d.Mean != 0 || d.Jitter != 0 {
		mc.EchoDelay = &meta.EchoDelay{Mean: meta.Duration(c.EchoDelay.Mean), Jitter: meta.Duration(c.EchoDelay.Jitter)}
	}
	var placements, targets []string
	for _, p := range s.plans {
		mc.SubExperiments = append(mc.SubExperiments, p.sc.Type)
		if p.sc.Interprocess && !slices.Contains(placements, recordedEcho(p.echo)) {
			placements = append(placements, recordedEcho(p.echo))
		}
		if p.broker {
			mc.Broker = c.Broker
		}
		for k, v := range p.recorded {
			if mc.Params == nil {
				mc.Params = map[string]string{}
			}
			if _, fixed := p.sc.Params[k]; !fixed {
				mc.Params[k] = v
			}
		}
	}
	for _, raw := range c.Targets {
		targets = append(targets, redactValue(raw))
	}
	slices.Sort(targets)
	mc.Target = strings.Join(targets, ",")
	mc.Echo = strings.Join(placements, ",")
	if len(placements) == 0 {
		mc.Echo = engine.EchoInProcess
	}
	return mc
}

// secretFlags names every registered transport's secret flags.
func secretFlags() map[string]bool {
	out := map[string]bool{}
	for _, n := range driver.Names() {
		t, _ := driver.Lookup(n)
		for _, f := range driver.FlagsOf(t) {
			if f.Secret {
				out[f.Name] = true
			}
		}
	}
	return out
}

// RedactArgs returns args with the values of secret flags replaced and
// passwords removed from URLs (also in NAME=URL arguments).
func RedactArgs(args []string, secret map[string]bool) []string {
	out := make([]string, len(args))
	hide := false
	for i, a := range args {
		if hide {
			out[i], hide = "xxxxx", false
			continue
		}
		if strings.HasPrefix(a, "-") {
			flag, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if secret[flag] {
				if hasValue {
					out[i] = a[:strings.Index(a, "=")+1] + "xxxxx"
				} else {
					out[i], hide = a, true
				}
				continue
			}
		}
		out[i] = redactValue(a)
	}
	return out
}

// redactValue removes the password of a URL in a, which may be NAME=URL.
func redactValue(a string) string {
	i := strings.Index(a, "://")
	if i < 0 {
		return a
	}
	if j := strings.Index(a, "="); j >= 0 && j < i {
		return a[:j+1] + redactValue(a[j+1:])
	}
	return driver.RedactURL(a)
}

// defineScenarios collects the scenarios that the flags of user-named
// transports (driver.ScenarioDefiner) define for this run.
func (s *Session) defineScenarios() (map[string]driver.Scenario, error) {
	defined := map[string]driver.Scenario{}
	for _, n := range driver.Names() {
		t, _ := driver.Lookup(n)
		d, ok := t.(driver.ScenarioDefiner)
		if !ok {
			continue
		}
		scs, err := d.DefineScenarios(func(flag string) string { return s.param(t, flag) })
		if err != nil {
			return nil, err
		}
		for _, sc := range scs {
			sc.Transport = cmp.Or(sc.Transport, n)
			if err := driver.CheckScenario(sc); err != nil {
				return nil, fmt.Errorf("transport %s: %v", n, err)
			}
			if _, taken := driver.ScenarioOf(sc.Type); taken {
				return nil, fmt.Errorf("transport %s: sub-experiment %s is registered already; choose another name", n, sc.Type)
			}
			if o, dup := defined[sc.Type]; dup {
				return nil, fmt.Errorf("sub-experiment %s is defined by the flags of transports %s and %s; choose one", sc.Type, o.Transport, n)
			}
			defined[sc.Type] = sc
		}
	}
	return defined, nil
}

// definerHint says which transports name their sub-experiments by flags.
func definerHint() string {
	var names []string
	for _, n := range driver.Names() {
		if t, _ := driver.Lookup(n); t != nil {
			if _, ok := t.(driver.ScenarioDefiner); ok {
				names = append(names, n)
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "; the flags of transport " + strings.Join(names, ", ") + " define sub-experiments of other names (see 'run --help')"
}

// ScenarioNames lists the registered sub-experiments whose transport is
// available in this program.
func ScenarioNames() []string {
	var out []string
	for _, sc := range driver.Scenarios() {
		if _, err := driver.Lookup(sc.Transport); err == nil {
			out = append(out, sc.Type)
		}
	}
	return out
}

// hostOf returns the host of a HOST:PORT address or URL.
func hostOf(addr string) string {
	if driver.URLScheme(addr) != "" {
		if u, err := url.Parse(addr); err == nil {
			return u.Hostname()
		}
	}
	h, _, err := net.SplitHostPort(addr)
	if err != nil {
		return ""
	}
	return h
}
