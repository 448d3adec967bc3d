// Package session owns the set-up of a run: it turns a plain Config (the
// sub-experiments, what to measure, where the far ends and brokers are,
// the drivers' settings, the certificates) into the engine's
// sub-experiments, each with an Open function that starts its far end and
// connects a pinger, and runs the engine over them. The run command only
// turns flags into a Config (internal/cliapp/runcmd) and errors into exit
// codes (internal/runapp); tests and other programs use it directly.
//
// # Preparing
//
// Prepare checks everything that can be checked before the experiment
// directory is created, so that a mistake costs nothing:
//
//   - each sub-experiment is a registered driver.Scenario whose transport
//     is registered, or one that the flags of a transport naming its
//     sub-experiments define (driver.ScenarioDefiner: an external
//     program, a relay adapter); one so defined but not selected is
//     refused;
//   - the payloads fit the transport (driver.SizeLimiter) and the samples
//     fit in memory (engine.CheckMemory);
//   - certificate files belong together and are signed by the CA, or a CA
//     and certificates are generated for the run (secure scenarios only;
//     certificate flags without a secure scenario are refused);
//   - each broker scenario has a broker URL: a --target URL whose scheme
//     the transport declares (driver.Capabilities.Schemes), TRANSPORT=URL, the driver's
//     URL flag ("<transport>-url", driver.URLFlag) or its environment
//     variable (MQGATE_<TRANSPORT>_URL), or an embedded broker;
//   - with Broker = "embedded", each broker transport's StartEmbedded is
//     called once per run (once more for its secure scenarios, which get a
//     broker serving TLS with the run's certificates);
//   - every external far end is reached once within ConnectTimeout: an
//     external broker must accept a connection and its credentials, a
//     remote echo must return a probe message. An unreachable broker or a
//     wrong password is thus reported, naming the URL without its
//     password, before anything is written. Far ends the run starts itself
//     (echo processes, in-process echoers) fail later, when their
//     sub-experiment opens its link; meta.json then records the failure and
//     is marked incomplete.
//
// # Placing the echo
//
// A round trip needs an echo end. In-process scenarios (and transports
// whose ends share a process, driver.Capabilities.ProcessBound) echo on a goroutine.
// Interprocess ones follow Config.Echo: EchoInProcess (a goroutine with a
// connection of its own: for a broker, a second client), EchoSubprocess
// (`run echo` on this host, started per sub-experiment, its CPU pinned when
// asked, stopped through a lifeline on its standard input), or EchoRemote (a
// `run echo` started elsewhere: at the --target of a socket transport, or
// serving --topic on the broker). A broker echo process gets the broker URL
// and the driver's settings through environment variables, so that no
// password shows on a command line.
//
// Config.EchoDelay stands in for processing: every echo end the run starts
// (in-process, echo process, broker client) spends it on each message
// before replying (driver.Options.EchoDelay; a transport declares that it
// applies it with driver.Capabilities.EchoDelay, and the others are refused, as is a
// remote echo, which has its own `run echo --echo-delay`).
//
// Each broker sub-experiment publishes to a topic of its own,
// "mqgate-<run id>-<type>" (driver.Options.Topic), so that concurrent runs
// on one broker never cross; Config.Topic overrides it (a remote echo
// serves the topic it was given).
//
// # Faults
//
// A far end or broker that dies mid-run stops the sub-experiment at once
// when the driver notices (Receive or Serve returns an error that is not a
// timeout, an echo process exits), or after MaxLostInRow consecutive
// timeouts otherwise; the samples measured so far are written and meta.json
// is marked incomplete (engine.StopError, exit 2). A cancelled context
// stops the run the same way (engine.ErrInterrupted, exit 130).
//
// # meta.json
//
// Besides the engine's counts, each sub-experiment records where its echo
// ran, its topic, the system its pinger reached (driver.InfoReporter:
// product, version, URL without credentials, embedded or not), whether its
// link acknowledged messages (driver.AckSender) and the driver settings it
// used. Values of secret flags (driver.Flag.Secret) are never written, and
// passwords are removed from URLs, the command line included.
//
// # How a broker driver plugs in
//
// A broker driver is a package under internal/driver that registers a
// transport and its scenarios from init, and is blank-imported by
// internal/runapp:
//
//	func init() {
//		driver.Register(Transport{})
//		driver.RegisterScenario(driver.Scenario{Type: "nats_reliable", Transport: "nats",
//			Reliable: true, Interprocess: true})
//		driver.RegisterScenario(driver.Scenario{Type: "nats_reliable_security", Transport: "nats",
//			Reliable: true, Security: true, Interprocess: true})
//	}
//
//	func (Transport) Name() string      { return "nats" }
//	func (Transport) Capabilities() driver.Capabilities {
//		return driver.Capabilities{Broker: true, Schemes: []string{"nats", "tls"}, EchoDelay: true}
//	}
//	func (Transport) Flags() []driver.Flag { // driver.FlagOwner: --nats-url, MQGATE_NATS_URL
//		return []driver.Flag{
//			{Name: driver.URLFlag("nats"), EnvVar: driver.URLEnv("nats"), Default: "nats://127.0.0.1:4222", Usage: "NATS server URL"},
//			{Name: "nats-password", Secret: true, Usage: "password when the URL has none"},
//		}
//	}
//	func (Transport) MessageLimit(driver.Options) int { return 1 << 20 } // driver.SizeLimiter
//	func (Transport) StartEmbedded(ctx context.Context, o driver.Options) (string, func() error, error) // driver.Embedder
//	func (Transport) Listen(ctx context.Context, url string, o driver.Options) (driver.Echoer, error)   // echo client
//	func (Transport) Dial(ctx context.Context, url string, o driver.Options) (driver.Pinger, error)     // measuring client
//
// Listen connects the echo end to the broker at url, subscribes to the
// requests of o.Topic (e.g. o.Topic+".ping") and returns once the
// subscription is in place; Serve publishes every request back unchanged
// to the replies (o.Topic+".pong"). Dial connects the pinger, subscribes to
// the replies and publishes requests. Both read their settings from
// o.Params (flag values by name, merged with the scenario's Params), use
// o.Security for TLS (CAFile always; CertFile and KeyFile when a client
// certificate is given), and never put a password in an error (use
// driver.RedactURL). A pinger may report what it reached (InfoReporter)
// and, on an acknowledged link, implement AckSender: the engine then waits
// for the acknowledgements of each payload and counts them. When the
// connection to the broker is lost, Receive must return an error that is
// not a timeout and Serve must return an error, rather than reconnecting
// silently, so that the run stops at once with what it measured.
//
// A driver's tests can run its scenarios end to end with this package:
//
//	s, err := session.Prepare(ctx, session.Config{
//		Scenarios: []string{"nats_reliable"},
//		Engine:    engine.Config{Payloads: []int{16, 1024}, Samples: 1000},
//		Broker:    session.BrokerEmbedded, // or Targets: []string{testenv URL}
//		Echo:      session.EchoInProcess,
//	})
//	...
//	defer s.Close()
//	err = s.Run(ctx, session.Output{Dir: t.TempDir(), Meta: &meta.Meta{}})
//
// The test hub (internal/driver/drivertest/hub) is a complete example of a
// broker transport and the one these packages test with.
package session
