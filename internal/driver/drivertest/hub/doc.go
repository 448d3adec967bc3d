// Package hub is a small publish/subscribe broker over TCP (or TLS) with a
// transport that reaches it by URL, for testing what every broker driver
// relies on without a broker installed: URL resolution, driver flags and
// secret values, embedded brokers, echo placement, topics, acknowledgements,
// system information, and a broker that refuses credentials or dies
// mid-run. It is registered only by tests (Register); the real broker
// drivers are tested against their real brokers.
//
// Protocol: every frame is a 4-byte big-endian length, then an operation
// byte, a topic length byte, the topic and the body. A client first sends
// hubHello with body "user:password"; the hub answers hubOK or hubError
// (body: the reason) and closes. hubSub subscribes to the topic and is
// answered hubOK; hubPub publishes the body to every subscriber of the
// topic as hubMsg; hubPubAck does the same and answers hubAck once the
// message was handed to every subscriber.
package hub
