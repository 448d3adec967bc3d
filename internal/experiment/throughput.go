package experiment

import (
	"fmt"

	"github.com/mqgate/mqgate/internal/result"
)

// ThroughputKey says which throughput row of a sub-experiment a gate
// compares between runs (formats §9): the payload, the mode and, in rate
// mode, the offered rate. In window mode the offered load F is the best
// one run throughput's search found, a result of the run rather than a
// setting, so rows of one payload match whatever their F (each side's F is
// reported); a file holds one window row per payload.
type ThroughputKey struct {
	Payload int
	Mode    string
	// Offered is the open-loop rate of a rate row (0: unpaced); 0 for a
	// window row.
	Offered float64
}

// KeyOf returns the key of row r.
func KeyOf(r result.ThroughputRow) ThroughputKey {
	k := ThroughputKey{Payload: r.Payload, Mode: r.Mode, Offered: r.Offered}
	if r.Mode == result.ModeWindow {
		k.Offered = 0
	}
	return k
}

// Load names the offered load of k for people: "window", "rate 5000
// msg/s" or "rate unpaced".
func (k ThroughputKey) Load() string {
	switch {
	case k.Mode == result.ModeWindow:
		return "window"
	case k.Offered == 0:
		return "rate unpaced"
	}
	return "rate " + FormatOffered(k.Offered) + " msg/s"
}

// String is k for people: "16 B window", "16 B rate 5000 msg/s".
func (k ThroughputKey) String() string { return fmt.Sprintf("%d B %s", k.Payload, k.Load()) }

// ThroughputLabel names the throughput of sub-experiment typ at an offered
// load in reports, where a gate check's sub-experiment is shown:
// "throughput_<type> (window)", "throughput_<type> (rate 5000 msg/s)". It
// starts with the file's stem, so that it never reads as a latency
// sub-experiment.
func ThroughputLabel(typ string, k ThroughputKey) string {
	return fmt.Sprintf("%s%s (%s)", tputPrefix, typ, k.Load())
}

// Keys lists the keys of t's rows in file order.
func (t *Throughput) Keys() []ThroughputKey {
	keys := make([]ThroughputKey, len(t.Rows))
	for i, r := range t.Rows {
		keys[i] = KeyOf(r)
	}
	return keys
}

// At returns the row of t with key k, or nil.
func (t *Throughput) At(k ThroughputKey) *result.ThroughputRow {
	for i := range t.Rows {
		if KeyOf(t.Rows[i]) == k {
			return &t.Rows[i]
		}
	}
	return nil
}

// ThroughputSeriesName names the throughput of sub-experiment typ at the
// offered load of k as a file-name-safe series, as history plots and lists
// it: "throughput_<type>_window", "throughput_<type>_rate_5000",
// "throughput_<type>_rate_unpaced".
func ThroughputSeriesName(typ string, k ThroughputKey) string {
	switch {
	case k.Mode == result.ModeWindow:
		return tputPrefix + typ + "_window"
	case k.Offered == 0:
		return tputPrefix + typ + "_rate_unpaced"
	}
	return tputPrefix + typ + "_rate_" + FormatOffered(k.Offered)
}
