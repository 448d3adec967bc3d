package session

import (
	"github.com/mqgate/mqgate/internal/driver"
)

// Stream is a prepared sub-experiment seen as one-way links, for the
// workloads that open publishers and subscribers themselves (one-way
// latency under load, throughput): its transport, where its broker is,
// and the options of each end. The session prepared it as for a round
// trip with the echo in this process: certificates, embedded brokers and
// the probe of an external broker are done.
type Stream struct {
	Scenario  driver.Scenario
	Transport driver.Transport
	// URL is the broker URL of a broker transport, "" otherwise.
	URL      string
	Embedded bool
	// Publish is the options of a sending end (a client); Subscribe those
	// of a receiving end, which on a secure socket link is the server and
	// holds the far end's certificate. Topic is the sub-experiment's.
	Publish, Subscribe driver.Options
	// Params are the driver settings that may be recorded (no secrets).
	Params map[string]string
}

// Streams returns the prepared sub-experiments, in order.
func (s *Session) Streams() []Stream {
	out := make([]Stream, len(s.plans))
	for i, p := range s.plans {
		out[i] = Stream{Scenario: p.sc, Transport: p.tr, Embedded: p.embedded,
			Publish: p.opts, Subscribe: p.echoOpts, Params: p.recorded}
		if p.broker {
			out[i].URL = p.addr
		}
	}
	return out
}
