package driver

// Consumer is implemented by subscribers whose client library delivers each
// message to a callback of its own (nats.go's asynchronous subscriptions,
// the MQTT libraries' message handlers). Consume hands the messages to f on
// that callback's goroutine, as the libraries' own benchmarks (`nats bench`)
// consume them, instead of queueing them for a goroutine that calls
// Receive: one goroutine hand-over less per message, which a one-way load
// at hundreds of thousands of messages per second pays for.
type Consumer interface {
	// Consume calls f with every message from now on (those queued for
	// Receive first), one at a time, in order, and the time it arrived as
	// Receive would report it, as a Mono reading (MonoTime(at) is
	// Receive's time): one reading of the monotonic clock and no
	// time.Time, which a load at a million messages a second pays for at
	// every message. msg is valid only during the call. It
	// returns nil once the subscriber is closed, or an error when the link
	// failed; f is never called after Consume returned. Receive must not
	// be called once Consume was, and Consume is called at most once.
	Consume(f func(msg []byte, at int64)) error
}
