package report

import (
	"fmt"

	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/result"
)

// metricText names a check's metric in tables, with its direction when it
// is not the latency default: "Messages/s (higher is better)".
func metricText(m result.Metric) string {
	if m.Better == result.HigherIsBetter {
		return m.Name + " (" + m.Better.String() + ")"
	}
	return m.Name
}

// valueText is a value with its unit; a message rate also in Mb/s at the
// check's payload (formats §7: msg/s × payload × 8 / 10⁶), as throughput is
// read in both.
func valueText(c gate.Check, v float64) string {
	s := withUnit(f3(v), c.Metric.Unit)
	if c.Metric.Unit == result.UnitMessagesPerS && s != "n/a" && c.Payload > 0 {
		s += fmt.Sprintf(" (%s %s)", f3(result.Mbps(v, c.Payload)), result.UnitMegabitsPerS)
	}
	return s
}
