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
// Throughput modes use the one-way halves, Sender and Receiver, through the
// optional StreamTransport interface.
//
// Transports register themselves by name from an init function:
//
//	func init() { driver.Register(Transport{}) }
//
// and the run command blank-imports their packages. The built-in names are
// Intraprocess, UDP, TCP, DTLS and TLS; sub-experiment names map onto them
// (see the constants below).
//
// # Contract
//
// Messages are opaque to a transport: a Pinger sends exactly the bytes it is
// given (the engine writes a sequence number and a timestamp into the first
// 16 bytes) and the Echoer returns them unchanged. Receive returns an error
// wrapping ErrTimeout when nothing arrived before the deadline; any other
// error means the link is broken and the engine stops the sub-experiment.
//
// A reliable datagram transport retransmits inside Pinger.Receive: when no
// echo arrived within Options.RetransmitTimeout it resends the last message,
// at most Options.MaxRetries times, and counts the resends in Counters. The
// engine recognises the duplicate echoes this may produce by their sequence
// number. Resender holds this logic for the udp and dtls transports.
package driver
