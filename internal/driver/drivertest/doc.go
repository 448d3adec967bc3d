// Package drivertest is a conformance suite for driver.Transport
// implementations, run by each transport's tests over real sockets:
//
//	func TestConformance(t *testing.T) {
//		drivertest.Run(t, drivertest.Config{Transport: udp.Transport{}})
//	}
//
// It checks that messages of 16 B to 16 KB (and odd sizes) come back
// byte-exact, that Receive times out with driver.ErrTimeout, that Close
// unblocks a Receive, that a dead echoer makes Receive return instead of
// hanging, that one echoer serves several pingers, that Serve returns when
// its context ends, and optionally that a round trip allocates nothing.
// Then it runs the checks the transport's declared driver.Capabilities
// imply (RunDeclared): a broker declares its URL flag and the scheme it is
// reached by, and a broker dying mid-run (the suite reaches it through a
// TCP proxy it kills) makes the pinger report the lost link and the
// echoer's Serve return an error, rather than time out or hang; an echo
// that declares EchoDelay makes each round trip last at least the delay.
//
// The same suite runs against a broker: Config.Addr is the broker URL, the
// pinger dials the echoer's Addr, and both ends share a topic. RunStream is
// the one-way counterpart for StreamTransport implementations (subscriber
// and publisher), sockets and brokers alike.
//
// It also holds what transport tests and benchmarks share: a UDP relay that
// drops every n-th datagram (LossyRelay), a TCP proxy to a broker that a
// test cuts or stalls (StartProxy), an echoer in a child process
// (StartEchoProcess, with ServeEchoProcess called from TestMain), and the
// round-trip benchmark body (BenchmarkRoundTrip).
//
// Tests here never assert on elapsed time beyond the lower bound a declared
// echo delay sets; a watchdog only turns a hang into a failure with a
// message.
package drivertest
