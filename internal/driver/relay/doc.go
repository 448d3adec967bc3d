// Package relay measures round trips through any system for which an
// adapter program exists, in any language: mqgate writes length-framed
// messages to the adapter's standard input, the adapter sends each through
// the system under test and writes the message it gets back to its
// standard output, and mqgate times the round trip. docs/relay.md is the
// protocol's specification; tools/relay-echo is an example adapter in Go.
//
// The adapter and its sub-experiment are given by flags (the transport is
// a driver.ScenarioDefiner):
//
//	run -s kafka_reliable --relay-name kafka_reliable --relay-command 'python3 kafka_adapter.py --acks all'
//
// The transport is process bound: `run` starts one adapter per
// sub-experiment (Dial), after an echoer that only owns it (Listen), and
// waits --connect-timeout for its hello frame. The measurement is the
// engine's round trip, so the pipes' cost is part of every sample: the
// relay-echo benchmark measures it (docs/relay.md states the figure).
//
// Faults: an adapter that is not found exits 2 before anything is created;
// one that writes no hello in time, exits, writes a frame larger than the
// largest message, or stops reading its standard input (SendTimeout) stops
// the sub-experiment with how it exited and the
// end of its standard error (which is also passed on to run's, prefixed by
// its name), keeping the samples measured so far in an experiment marked
// incomplete. A message the system loses is a loss after --timeout, as on
// any link.
package relay
