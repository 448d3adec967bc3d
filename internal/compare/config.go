package compare

import (
	"cmp"
	"fmt"
	"math"
	"strings"

	"github.com/mqgate/mqgate/internal/numflag"
	"github.com/mqgate/mqgate/internal/pairing"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats/paired"
)

// DefaultThreshold is the relative margin allowed over the reference when no
// other is given: 0.1 = 10 %, as in the Fast-RTPS script.
const DefaultThreshold = 0.1

// Config says what Compare gates and how strictly.
type Config struct {
	// Metrics are the summary columns gated, among result.CompareMetrics.
	// Empty means result.DefaultCompareMetrics.
	Metrics []result.Metric
	// Threshold is the relative margin allowed in each metric's bad
	// direction (0.1 = 10 %), unless Thresholds names the metric.
	Threshold float64
	// Thresholds overrides Threshold per metric name ("99%": 0.2).
	Thresholds map[string]float64
	// AllowMissing turns a reference sub-experiment absent from the results
	// from a failure into a note.
	AllowMissing bool
	// FalseFail is the family-wise false-fail level of a statistical
	// comparison (formats §8); 0 means gate.DefaultFalseFail.
	FalseFail float64
	// AllowIncomplete admits experiments whose run did not complete, with a
	// warning in every report.
	AllowIncomplete bool
	// Pairing says whether several runs per side are compared in pairs
	// (PairAuto: when Series says they were interleaved).
	Pairing Pairing
	// Margins are the paired verdict's δ_pass and δ_fail; zero means
	// DefaultMargins. The unpaired gates use Threshold(s) instead.
	Margins paired.Margins
	// Series is the series file of run ab that the runs come from, when
	// known (--series, or found beside the two sides' folders): a paired
	// comparison then takes its units (pairs or ABBA blocks) from it
	// rather than from the experiments' names.
	Series *pairing.Series
}

// margins returns the paired margins, defaulted.
func (c Config) margins() paired.Margins { return cmp.Or(c.Margins, DefaultMargins) }

// metrics returns the gated metrics, defaulted.
func (c Config) metrics() []result.Metric {
	if len(c.Metrics) == 0 {
		return result.DefaultCompareMetrics
	}
	return c.Metrics
}

// ThresholdOf returns the threshold applied to metric m.
func (c Config) ThresholdOf(m result.Metric) float64 {
	if t, ok := c.Thresholds[m.Name]; ok {
		return t
	}
	return c.Threshold
}

// Validate reports a configuration that cannot gate: a threshold below 0 or
// not a number, a metric compare cannot gate, a metric listed twice, or a
// per-metric threshold for a metric that is not gated.
func (c Config) Validate() error {
	if err := checkThreshold(c.Threshold); err != nil {
		return fmt.Errorf("fail threshold (--fail-threshold): %w", err)
	}
	if c.FalseFail != 0 && !numflag.CompareLevel.Contains(c.FalseFail) {
		return fmt.Errorf("false-fail level (--false-fail) %v: expected a probability %s, e.g. 0.01 or 1%%", c.FalseFail, numflag.CompareLevel.Text())
	}
	for _, m := range []struct {
		flag string
		v    float64
	}{{"pass margin (--pass-margin)", c.Margins.Pass}, {"fail margin (--fail-margin)", c.Margins.Fail}} {
		if err := checkThreshold(m.v); err != nil {
			return fmt.Errorf("%s: %w", m.flag, err)
		}
	}
	gated := map[string]bool{}
	for _, m := range c.metrics() {
		if _, ok := result.Parse(m.Name, result.CompareMetrics); !ok {
			return fmt.Errorf("column %q cannot be compared: expected one of %s", m.Name, result.Names(result.CompareMetrics))
		}
		if gated[m.Name] {
			return fmt.Errorf("column %q is listed twice", m.Name)
		}
		gated[m.Name] = true
	}
	for name, t := range c.Thresholds {
		if !gated[name] {
			return fmt.Errorf("threshold for column %q, which is not gated: add it to --columns (gated: %s)", name, result.Names(c.metrics()))
		}
		if err := checkThreshold(t); err != nil {
			return fmt.Errorf("threshold for column %q: %w", name, err)
		}
	}
	return nil
}

// checkThreshold checks a threshold of a Config built by a program: any
// finite number ≥ 0. The flags are held to numflag.Tolerance.
func checkThreshold(t float64) error {
	if math.IsNaN(t) || math.IsInf(t, 0) {
		return fmt.Errorf("%v is not a finite number", t)
	}
	if t < 0 {
		return fmt.Errorf("%v is below 0: a threshold is the relative margin allowed over the reference, e.g. 0.1 for 10 %%", t)
	}
	return nil
}

// ParseThreshold parses a per-column threshold "COLUMN=VALUE", as given to
// --threshold, e.g. "99%=0.2". It returns the column's canonical name.
func ParseThreshold(s string) (column string, threshold float64, err error) {
	name, value, ok := strings.Cut(s, "=")
	if !ok {
		return "", 0, fmt.Errorf("threshold %q: expected COLUMN=VALUE, e.g. 99%%=0.2", s)
	}
	m, ok := result.Parse(name, result.CompareMetrics)
	if !ok {
		return "", 0, fmt.Errorf("threshold %q: unknown column %q: expected one of %s", s, strings.TrimSpace(name), result.Names(result.CompareMetrics))
	}
	t, err := numflag.Tolerance.Parse(value)
	if err != nil {
		return "", 0, fmt.Errorf("threshold %q: %w (COLUMN=VALUE, e.g. 99%%=0.2 or 99%%=20%%)", s, err)
	}
	return m.Name, t, nil
}
