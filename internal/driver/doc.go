// Package driver defines the small interfaces through which mqgate's
// measurement engine talks to a system under test, and a registry of the
// transports that implement them.
//
// The engine owns timing, pacing, recording and output; a driver only moves
// bytes. A round-trip sub-experiment needs two ends:
//
//   - a Pinger, the measuring end, which sends messages and receives their
//     echoes;
//   - an Echoer (the "ponger"), the far end, which sends every message it
//     receives straight back.
//
// A Transport opens both ends for one kind of link: Listen starts an Echoer
// at an address, Dial connects a Pinger to it. The same shape fits every
// system mqgate measures:
//
//   - built-in links (in-process, UDP, TCP, DTLS, TLS): the address is a
//     socket address or an in-process name, and Listen binds it;
//   - brokers (RabbitMQ, MQTT, NATS): the address is the broker URL, Listen
//     subscribes the echoer to the ping subject and publishes to the pong
//     subject, Dial does the reverse; broker-specific settings travel in
//     Options.Params;
//   - external programs: Listen starts the program, Dial connects to it;
//   - distributed roles: `run echo` calls Listen on one host, `run --target`
//     calls Dial on another.
//
// # Roles
//
// Every end plays one of four roles. A Pinger is the requester of a round
// trip and an Echoer its replier; one-way modes use a Publisher and a
// Subscriber, opened through the optional StreamTransport interface. A
// socket link is point to point, so its pinger and echoer are adapters over
// one connection; a broker link is two clients of the broker, each
// publishing to one topic and subscribing to another.
//
// Receivers return when each message arrived (the earliest moment this end
// saw it), so that latency excludes time a message spent queued inside a
// client library. Two queues serve the drivers for that: Inbox, fixed
// buffers filled by a subscriber's own readers (TCP, DTLS), and Handoff,
// what a client library hands to its message handler (NATS, MQTT), which
// also passes each message straight to a Consumer on the library's
// goroutine, its arrival time a reading of the monotonic clock alone
// (Mono). Senders whose system acknowledges messages (publisher
// confirms, PUBACK/PUBCOMP, JetStream acks) also implement AckSender.
//
// # Registries
//
// Transports register themselves by name from an init function:
//
//	func init() { driver.Register(Transport{}) }
//
// and the run command blank-imports their packages. The built-in names are
// Intraprocess, UDP, TCP, DTLS and TLS. Sub-experiments are Scenarios,
// registered by name (formats §1) with the transport that carries them and
// the settings they fix; the ten built-in ones are registered here, and
// `run --list` prints them all.
//
// # Capabilities
//
// A transport declares in one value, Transport.Capabilities, what changes
// what the run command accepts and no method of its own carries (Broker
// with its URL Schemes and URLFlag(name), ProcessBound, EchoDelay: see
// Capabilities). Register checks the value, `run --list` prints it, and
// the conformance suite (drivertest.Run) runs the checks each declared
// field implies.
//
// # Optional interfaces
//
// A transport says what it can do by implementing small interfaces,
// each checked by the run command before anything is created:
//
//   - SizeLimiter: the largest message it carries; a larger payload is
//     refused up front, naming the limit.
//   - FlagOwner: its own settings as plain Flags; run adds each to `run`
//     and `run echo` with an environment variable (Flag.EnvVar, else
//     EnvName) and passes the values in Options.Params, which the driver
//     reads through ParseParams alone: defaults, Flag.Range and Boolean
//     flags checked there, in run's words. A broker declares its URL flag,
//     URLFlag(name) with URLEnv(name). Secret values are never written to
//     meta.json.
//   - ScenarioDefiner: its sub-experiments are named by the user, by its
//     flags (an external program, a relay adapter), rather than
//     registered.
//   - RoleSystem: the distributed roles (run pub|sub|req|qry) run over
//     it; it names its topic separator and describes itself in their
//     --help. ClientDialer: they run in this process through its Client
//     (PubSub and RequestReply), with its wildcard rules. RoleRunner: they
//     run in a helper of its own, which times the messages itself.
//
// One client per system: a ClientDialer is a StreamTransport, and its
// Client is made by the same constructors as its Publisher and
// Subscriber, from the same Options (Params, Security, Reliable), so
// that the roles take the system's flags and TLS as run's ends do and
// measure the client run load measures. A new broker driver adds to its
// ends' connection only what request/reply needs (a reply topic, a
// correlation id) and the defaults a role needs where no flag was given
// (lost-link detection within --timeout, a topic exchange); it declares
// no connection settings of its own for the roles.
//   - FanOutChecker: some settings cannot give each of several
//     subscribers of a topic every message (run load refuses them).
//   - Embedder: it starts its broker inside this process
//     (--broker embedded), on a free loopback port, serving TLS with the
//     run's certificates when Options.Security is set.
//
// and its ends by these:
//
//   - InfoReporter (pingers, publishers, subscribers): the product,
//     version and URL (without credentials) it reached, for meta.json.
//   - AckSender (senders of acknowledged links only): the engine waits
//     for the acknowledgements of each payload and counts them.
//   - CounterReader: resends, drops and transient errors it counted.
//   - SelfMeasuring (pingers whose far end times its own messages: an
//     external program, the Zenoh helper): the engine measures the
//     sub-experiment with the pinger's SelfWorkload instead of its loop.
//
// internal/session explains, with an example, how a broker driver plugs
// in and how its tests run its scenarios end to end.
//
// # Contract
//
// Messages are opaque to a transport: a Pinger sends exactly the bytes it is
// given (the engine writes a sequence number and a timestamp into the first
// 16 bytes) and the Echoer returns them unchanged. Receive returns an error
// wrapping ErrTimeout when nothing arrived before the deadline; any other
// error means the link is broken and the engine stops the sub-experiment.
// A broker driver whose connection is lost must say so that way (and its
// Echoer's Serve must return an error) rather than reconnect silently, so
// that a run stops at once with what it measured. Errors never contain a
// password: RedactURL removes it from URLs.
//
// A reliable datagram transport retransmits inside Pinger.Receive: when no
// echo arrived within Options.RetransmitTimeout it resends the last message,
// at most Options.MaxRetries times, and counts the resends in Counters. The
// engine recognises the duplicate echoes this may produce by their sequence
// number. Resender holds this logic for the udp and dtls transports.
package driver
