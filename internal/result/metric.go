package result

import (
	"fmt"
	"math"
	"strings"
)

// Direction says which way a metric gets better.
type Direction int

// Directions.
const (
	// LowerIsBetter: latencies, jitters, spreads.
	LowerIsBetter Direction = iota
	// HigherIsBetter: throughputs.
	HigherIsBetter
)

// String returns "lower is better" or "higher is better".
func (d Direction) String() string {
	if d == HigherIsBetter {
		return "higher is better"
	}
	return "lower is better"
}

// MarshalText encodes d as "lower" or "higher".
func (d Direction) MarshalText() ([]byte, error) {
	return []byte(strings.TrimSuffix(d.String(), " is better")), nil
}

// UnmarshalText decodes "lower" or "higher".
func (d *Direction) UnmarshalText(b []byte) error {
	switch string(b) {
	case "lower":
		*d = LowerIsBetter
	case "higher":
		*d = HigherIsBetter
	default:
		return fmt.Errorf("unknown direction %q: expected \"lower\" or \"higher\"", b)
	}
	return nil
}

// Units, as files and JSON spell them.
const (
	UnitMicroseconds = "us"    // latency (formats §7)
	UnitMessagesPerS = "msg/s" // throughput in messages
	UnitMegabitsPerS = "Mb/s"  // throughput in 10^6 bits per second
)

// UnitText is a unit as text for people spells it: "µs" for the "us" of
// files and JSON (formats §7), any other unit as it is.
func UnitText(unit string) string {
	if unit == UnitMicroseconds {
		return "µs"
	}
	return unit
}

// Metric is a quantity a gate can judge. Name is the summary CSV column it is
// read from (formats §3), e.g. "Median" or "99%".
type Metric struct {
	Name   string    `json:"name"`
	Unit   string    `json:"unit"`
	Better Direction `json:"better"`
}

// The metrics, by summary column name.
var (
	Min        = Metric{"Min", UnitMicroseconds, LowerIsBetter}
	Median     = Metric{"Median", UnitMicroseconds, LowerIsBetter}
	Mean       = Metric{"Mean", UnitMicroseconds, LowerIsBetter}
	Max        = Metric{"Max", UnitMicroseconds, LowerIsBetter}
	P90        = Metric{"90%", UnitMicroseconds, LowerIsBetter}
	P99        = Metric{"99%", UnitMicroseconds, LowerIsBetter}
	P9999      = Metric{"99.99%", UnitMicroseconds, LowerIsBetter}
	Stdev      = Metric{"Stdev", UnitMicroseconds, LowerIsBetter}
	MeanJitter = Metric{"Mean jitter", UnitMicroseconds, LowerIsBetter}
	MaxJitter  = Metric{"Max jitter", UnitMicroseconds, LowerIsBetter}

	// Throughput metrics: more is better.
	MessageRate = Metric{"Messages/s", UnitMessagesPerS, HigherIsBetter}
	Bandwidth   = Metric{"Mb/s", UnitMegabitsPerS, HigherIsBetter}
)

// Metrics lists every known metric: the latency summary columns in the
// order of the summary CSV, then the throughput metrics, then the burst ones.
var Metrics = []Metric{Max, Min, Mean, Median, Stdev, MeanJitter, MaxJitter, P90, P99, P9999, MessageRate, Bandwidth,
	BurstLostMetric, BurstThroughputMetric}

// RequirementMetrics are the metrics a requirements file holds and check
// judges, in the order of its columns and of the check report rows (formats §4).
var RequirementMetrics = []Metric{Median, P99, Max}

// CompareMetrics are the metrics compare may judge, in the order the
// Fast-RTPS comparison plots show them.
var CompareMetrics = []Metric{Min, Median, Mean, P90, P99, P9999, Max}

// DefaultCompareMetrics are the metrics compare judges unless told otherwise.
var DefaultCompareMetrics = []Metric{Min, Median, P99, Max}

// DefaultStatisticalMetrics are the metrics compare judges with several runs
// per side unless told otherwise: Max is left out because its run-to-run
// dispersion (often 50× between unchanged runs) makes it not gateable at any
// practical number of runs.
var DefaultStatisticalMetrics = []Metric{Min, Median, P99}

// Lookup returns the metric whose Name is name.
func Lookup(name string) (Metric, bool) {
	for _, m := range Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// Parse returns the metric of among named name, ignoring case and
// surrounding space ("median", " MAX").
func Parse(name string, among []Metric) (Metric, bool) {
	for _, m := range among {
		if strings.EqualFold(m.Name, strings.TrimSpace(name)) {
			return m, true
		}
	}
	return Metric{}, false
}

// ParseList parses a comma-separated list of names of metrics among among
// (any case), as --columns takes it, into metrics in the order given.
func ParseList(s string, among []Metric) ([]Metric, error) {
	var ms []Metric
	for _, name := range strings.Split(s, ",") {
		if strings.TrimSpace(name) == "" {
			continue
		}
		m, ok := Parse(name, among)
		if !ok {
			return nil, fmt.Errorf("unknown column %q: expected a comma-separated list of %s", strings.TrimSpace(name), Names(among))
		}
		ms = append(ms, m)
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("no column in %q: expected a comma-separated list of %s", s, Names(among))
	}
	return ms, nil
}

// Names lists the names of ms, comma-separated.
func Names(ms []Metric) string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.Name
	}
	return strings.Join(names, ", ")
}

// Limit returns the worst value that still passes against reference when a
// relative threshold (0.1 = 10 %) is allowed in m's bad direction.
func (m Metric) Limit(reference, threshold float64) float64 {
	if m.Better == HigherIsBetter {
		return reference * (1 - threshold)
	}
	return reference * (1 + threshold)
}

// limitULPs is how many units in the last place a value may lie beyond a
// limit and still count as at the limit. 1 + threshold is inexact in
// binary, so reference × (1 + threshold) can come out an ulp or two below
// the decimal product: 0.565 × 1.1 gives 0.62149999…, which would fail a
// value of exactly 0.6215. A few ulps are far below the 0.001 resolution of
// a summary at any magnitude, so no real violation passes by them (a
// relative tolerance would: 1e-9 of 5,000,000 µs is 0.005 µs).
const limitULPs = 4

// Violates reports whether value is worse than limit by more than
// limitULPs units in the last place. NaN never violates: a missing value is
// not a measured failure (see Missing).
func (m Metric) Violates(value, limit float64) bool {
	if math.Abs(value-limit) <= limitULPs*ulp(limit) {
		return false
	}
	if m.Better == HigherIsBetter {
		return value < limit
	}
	return value > limit
}

// Worse returns how far value lies beyond limit in m's bad direction:
// positive when value violates limit, negative (the headroom) when it passes.
func (m Metric) Worse(value, limit float64) float64 {
	if m.Better == HigherIsBetter {
		return limit - value
	}
	return value - limit
}

// ulp is the distance from x to the next float64 away from zero.
func ulp(x float64) float64 {
	x = math.Abs(x)
	return math.Nextafter(x, math.Inf(1)) - x
}
