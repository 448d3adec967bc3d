package result

import (
	"fmt"
	"strconv"
	"strings"
)

// Key says which throughput row of a sub-experiment a gate compares between
// runs (formats §9): the payload, the mode and, in rate mode, the offered
// rate. In window mode the offered load F is the best one run throughput's
// search found, a result of the run rather than a setting, so rows of one
// payload match whatever their F (each side's F is reported); a file holds
// one window row per payload.
type Key struct {
	Payload int
	Mode    string
	// Offered is the open-loop rate of a rate row (0: unpaced); 0 for a
	// window row.
	Offered float64
}

// Row is one row of a result file: its key and the named metrics it holds.
// Latency and throughput rows differ only in which metrics those are, so
// that every tool matches and judges both along one path.
type Row interface {
	Key() Key
	// Value returns metric m of the row, false when the row holds no m.
	Value(m Metric) (float64, bool)
	// Record returns the row's fields as its file writes them.
	Record() []string
}

// Key returns the key of r: its payload.
func (r SummaryRow) Key() Key { return Key{Payload: r.Bytes} }

// Value returns the summary column m names.
func (r SummaryRow) Value(m Metric) (float64, bool) { return r.Get(m.Name) }

// Value returns the Median of r in msg/s (MessageRate) or in Mb/s
// (Bandwidth).
func (r ThroughputRow) Value(m Metric) (float64, bool) {
	switch m {
	case MessageRate:
		return r.Median, true
	case Bandwidth:
		return Mbps(r.Median, r.Payload), true
	}
	return 0, false
}

// Key returns the key of r.
func (r ThroughputRow) Key() Key {
	k := Key{Payload: r.Payload, Mode: r.Mode, Offered: r.Offered}
	if r.Mode == ModeWindow {
		k.Offered = 0
	}
	return k
}

// Load names the offered load of k for people: "window", "rate 5000
// msg/s" or "rate unpaced".
func (k Key) Load() string {
	switch {
	case k.Mode == ModeWindow:
		return "window"
	case k.Offered == 0:
		return "rate unpaced"
	}
	return "rate " + FormatOffered(k.Offered) + " msg/s"
}

// String is k for people: "16 B window", "16 B rate 5000 msg/s".
func (k Key) String() string { return fmt.Sprintf("%d B %s", k.Payload, k.Load()) }

// throughputPrefix starts the name of everything throughput of a
// sub-experiment: its file, its label, its series.
const throughputPrefix = "throughput_"

// ThroughputLabel names the throughput of sub-experiment typ at an offered
// load in reports, where a gate check's sub-experiment is shown:
// "throughput_<type> (window)", "throughput_<type> (rate 5000 msg/s)". It
// starts with the file's stem, so that it never reads as a latency
// sub-experiment.
func ThroughputLabel(typ string, k Key) string {
	return fmt.Sprintf("%s%s (%s)", throughputPrefix, typ, k.Load())
}

// ThroughputSeriesName names the throughput of sub-experiment typ at the
// offered load of k as a file-name-safe series, as history plots and lists
// it: "throughput_<type>_window", "throughput_<type>_rate_5000",
// "throughput_<type>_rate_unpaced".
func ThroughputSeriesName(typ string, k Key) string {
	// Load without its unit, spaces made underscores (FormatOffered has none).
	return throughputPrefix + typ + "_" + strings.ReplaceAll(strings.TrimSuffix(k.Load(), " msg/s"), " ", "_")
}

// FormatOffered writes an offered load as the throughput CSV does: the
// shortest decimal that reads back to it.
func FormatOffered(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
