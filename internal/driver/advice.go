package driver

import (
	"slices"
	"time"

	"github.com/mqgate/mqgate/internal/meta"
)

// Advisor is implemented by a transport that knows why a sub-experiment's
// round trips can be far slower than its link: a cause it can name from
// the settings and the system reached, such as a broker's TCP settings.
type Advisor interface {
	// Advice returns one sentence naming the likely cause and its remedy
	// when sub, measured with median round trip p50 (the fastest
	// payload's), shows it; "" otherwise.
	Advice(sub meta.SubExperiment, p50 time.Duration) string
}

// Advice is the warning line (ending in a newline) that run prints after
// sub's closing table when sub's transport is an Advisor with advice for
// its round trips; "" otherwise. The median is the lowest of the payloads'
// medians, so that a large payload's transfer time is not taken for a
// delay.
func Advice(sub meta.SubExperiment, payloads []PayloadResult) string {
	t, err := Lookup(sub.Transport)
	if err != nil {
		return ""
	}
	a, ok := t.(Advisor)
	if !ok {
		return ""
	}
	var p50 time.Duration
	for _, p := range payloads {
		if len(p.Nanos) == 0 {
			continue
		}
		x := slices.Clone(p.Nanos)
		slices.Sort(x)
		if m := time.Duration(x[len(x)/2]); p50 == 0 || m < p50 {
			p50 = m
		}
	}
	if p50 == 0 {
		return ""
	}
	if s := a.Advice(sub, p50); s != "" {
		return "warning: " + sub.Type + ": " + s + "\n"
	}
	return ""
}
