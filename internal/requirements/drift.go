package requirements

import (
	"bufio"
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats"
	"github.com/mqgate/mqgate/internal/stats/trend"
)

// driftLevel is the family-wise level of the drift tests: Holm over every
// check's Mann–Kendall test. It is looser than a gate's false-fail level
// because missing a drift is the costlier error here: limits from drifting
// runs are not what their guarantee assumes.
const driftLevel = 0.05

// DriftColumns is the header of the drift report CSV (formats §11).
var DriftColumns = []string{"Experiment type", "Bytes", "Metric", "Runs", "Order", "Tau", "P", "Holm P", "Slope per run", "Drifting",
	"Lag-1 autocorrelation", "Lag-1 P", "Variance factor", "Correlated"}

// DriftCheck is the Mann–Kendall test of one check's run values (one
// requirement row and column), in run order, and the test of their lag-1
// autocorrelation (trend.TestSerial).
type DriftCheck struct {
	// Type is the sub-experiment (a throughput row's label); Metric the
	// column ("Median", "99%", "Max", "Median [msg/s]").
	Type   string
	Bytes  int
	Metric string
	// Test is the plain Mann–Kendall test, which assumes independent
	// runs; Serial.P, with the variance corrected for lag-1
	// autocorrelation, is the one the drift is decided on.
	Test   trend.MannKendall
	Serial trend.Serial
	// PAdjusted is Serial.P after Holm's correction over the family;
	// Drifting says it is within driftLevel.
	PAdjusted float64
	Drifting  bool
	// Correlated says consecutive runs are positively correlated:
	// Serial.Lag1P within driftLevel after Holm over the family. The
	// limits' false-fail guarantee assumes exchangeable runs, which such
	// runs are not.
	Correlated bool
	// Slope is Sen's slope of the log values as a relative change per
	// run (0.01 = 1 % per run); NaN when a value is ≤ 0.
	Slope float64
}

// Drift is the drift report of a derivation: every check's runs tested
// for a trend over run order, the family at driftLevel (Holm).
type Drift struct {
	// Order says where the run order comes from: "meta.json start times",
	// "directory names" or both, with how many runs each.
	Order  string
	Checks []DriftCheck
	// Pooled is the serial-correlation test of every check's log run
	// values pooled over the checks (pooledSerial), which statistical
	// requirements are refused on.
	Pooled Pooled
}

// driftOf tests the runs of every requirement row and column of in, and of
// every throughput row, for a trend over run order: the experiments'
// start times (meta.json, else the directory name), as
// experiment.SortChronological orders them. Checks with fewer than 3 runs
// are left out: their test cannot reject at driftLevel.
func driftOf(in *Input) Drift {
	rank, order := runOrder(in)
	d := Drift{Order: order}
	var ps, lagPs []float64
	var logs [][]float64
	for _, s := range driftSeriesOf(in, rank) {
		if len(s.vals) < 3 {
			continue
		}
		x, positive := s.inOrder()
		if positive {
			for i := range x {
				x[i] = math.Log(x[i])
			}
			logs = append(logs, x)
		}
		st, err := trend.TestSerial(x)
		if err != nil {
			continue
		}
		c := DriftCheck{Type: s.typ, Bytes: s.bytes, Metric: s.metric, Test: st.Test, Serial: st, Slope: math.NaN()}
		if positive {
			c.Slope = math.Expm1(st.Test.Slope)
		}
		d.Checks = append(d.Checks, c)
		ps, lagPs = append(ps, st.P), append(lagPs, st.Lag1P)
	}
	for i, dec := range stats.Holm(ps, driftLevel) {
		d.Checks[i].PAdjusted, d.Checks[i].Drifting = dec.Adjusted, dec.Rejected
	}
	for i, dec := range stats.Holm(lagPs, driftLevel) {
		d.Checks[i].Correlated = dec.Rejected
	}
	d.Pooled = pooledSerial(logs)
	return d
}

// runOrder ranks the experiments of in by start time (0 for the first),
// by name, and says where the order comes from (Drift.Order).
func runOrder(in *Input) (rank map[string]int, order string) {
	exps := append([]*experiment.Experiment(nil), in.Experiments...)
	experiment.SortChronological(exps)
	rank = map[string]int{}
	from := map[string]int{}
	for i, e := range exps {
		rank[e.Name] = i
		from[e.StartFrom]++
	}
	var parts []string
	for _, f := range []struct{ key, text string }{{"meta.json", "meta.json start times"}, {"name", "directory names"}, {"", "names, undated"}} {
		if from[f.key] > 0 {
			parts = append(parts, fmt.Sprintf("%s (%d runs)", f.text, from[f.key]))
		}
	}
	if len(from) == 1 {
		parts[0] = parts[0][:strings.Index(parts[0], " (")]
	}
	return rank, strings.Join(parts, ", ")
}

// driftSeries is the runs' values of one check: sub-experiment, payload
// and metric, with the rank of each value's run.
type driftSeries struct {
	typ, metric string
	bytes       int
	at          []int
	vals        []float64
}

// driftSeriesOf gathers the series of every requirement row and column of
// in, and of every throughput row, by sub-experiment and payload.
func driftSeriesOf(in *Input, rank map[string]int) []*driftSeries {
	var all []*driftSeries
	index := map[string]*driftSeries{}
	add := func(typ string, bytes int, metric, exp string, v float64) {
		id := fmt.Sprintf("%s\x00%d\x00%s", typ, bytes, metric)
		s := index[id]
		if s == nil {
			s = &driftSeries{typ: typ, metric: metric, bytes: bytes}
			index[id] = s
			all = append(all, s)
		}
		s.at, s.vals = append(s.at, rank[exp]), append(s.vals, v)
	}
	for _, o := range in.Observations() {
		for i, get := range observationColumns {
			add(o.Type, o.Bytes, metricNames[i], o.Experiment, get(o))
		}
	}
	for _, o := range in.ThroughputObservations() {
		add(result.ThroughputLabel(o.Type, o.Key), o.Key.Payload, ThroughputColumns[len(ThroughputColumns)-1], o.Experiment, o.Median)
	}
	slices.SortStableFunc(all, func(a, b *driftSeries) int {
		return cmp.Or(strings.Compare(a.typ, b.typ), cmp.Compare(a.bytes, b.bytes))
	})
	return all
}

// inOrder returns the values of s in run order, and whether all are
// positive.
func (s *driftSeries) inOrder() (x []float64, positive bool) {
	idx := make([]int, len(s.vals))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return s.at[idx[i]] < s.at[idx[j]] })
	x = make([]float64, len(idx))
	positive = true
	for i, j := range idx {
		x[i] = s.vals[j]
		positive = positive && x[i] > 0
	}
	return x, positive
}

// Correlated returns the checks whose consecutive runs are correlated at
// the family level.
func (d Drift) Correlated() []DriftCheck {
	return slices.DeleteFunc(slices.Clone(d.Checks), func(c DriftCheck) bool { return !c.Correlated })
}

// Drifting returns the checks whose runs drift at the family level.
func (d Drift) Drifting() []DriftCheck {
	return slices.DeleteFunc(slices.Clone(d.Checks), func(c DriftCheck) bool { return !c.Drifting })
}

// label names a check in text.
func (c DriftCheck) label() string { return fmt.Sprintf("%s %d B %s", c.Type, c.Bytes, c.Metric) }

// slopeText writes the slope per run as a signed percentage.
func (c DriftCheck) slopeText() string {
	if math.IsNaN(c.Slope) {
		return "n/a"
	}
	return fmt.Sprintf("%+.2g%% per run", 100*c.Slope)
}

// PrintDrift writes the family-level statements of d, drift and serial
// correlation, with the checks concerned, for people.
func PrintDrift(w io.Writer, d Drift) error {
	bw := bufio.NewWriter(w)
	if len(d.Checks) == 0 {
		fmt.Fprintln(bw, "Drift over run order: not tested (every check has fewer than 3 runs).")
		return bw.Flush()
	}
	head := fmt.Sprintf("Drift over run order (Mann–Kendall per check, its variance corrected for lag-1 autocorrelation, order from %s, Holm over %d checks at %s)",
		d.Order, len(d.Checks), pct(driftLevel))
	drifting := d.Drifting()
	if len(drifting) == 0 {
		low := slices.MinFunc(d.Checks, func(a, b DriftCheck) int { return cmp.Compare(a.Serial.P, b.Serial.P) })
		few := ""
		if low.Test.N < 10 {
			few = fmt.Sprintf(" %d runs detect only strong drift.", low.Test.N)
		}
		fmt.Fprintf(bw, "%s: none found (smallest p %.3g, %s).%s\n", head, low.Serial.P, low.label(), few)
	} else {
		fmt.Fprintf(bw, "%s: %d of %d checks DRIFT; their limits assume exchangeable runs, which drifting runs are not:\n", head, len(drifting), len(d.Checks))
		listChecks(bw, drifting, func(c DriftCheck) string {
			return fmt.Sprintf("%d runs, tau %+.2f, Sen's slope %s, p %.3g (Holm %.3g)%s", c.Test.N, c.Test.Tau, c.slopeText(), c.Serial.P, c.PAdjusted, c.factorText())
		})
	}
	printSerial(bw, d)
	return bw.Flush()
}

// factorText says how far a check's drift test was widened for lag-1
// autocorrelation; "" when it was not.
func (c DriftCheck) factorText() string {
	if c.Serial.Factor <= 1 {
		return ""
	}
	return fmt.Sprintf(", variance ×%.2g for lag-1 autocorrelation %+.2f", c.Serial.Factor, c.Serial.Lag1)
}

// printSerial writes the statement on serial correlation between
// consecutive runs.
func printSerial(w io.Writer, d Drift) {
	head := "Serial correlation of consecutive runs (lag-1 autocorrelation of the runs less Sen's line, permutation test, Holm at " + pct(driftLevel) + ")"
	tested := slices.DeleteFunc(slices.Clone(d.Checks), func(c DriftCheck) bool { return math.IsNaN(c.Serial.Lag1) })
	if len(tested) == 0 {
		why := "every check has fewer than 4 runs"
		if slices.ContainsFunc(d.Checks, func(c DriftCheck) bool { return c.Test.N >= 4 }) {
			// 4 runs or more whose residuals from Sen's line are all
			// equal: no correlation to estimate.
			why = "no check of 4 runs or more varies about Sen's line: runs of equal values, nothing to correlate"
		}
		fmt.Fprintf(w, "%s: not tested (%s).\n", head, why)
		return
	}
	correlated := d.Correlated()
	if len(correlated) == 0 {
		c := slices.MaxFunc(tested, func(a, b DriftCheck) int { return cmp.Compare(a.Serial.Lag1, b.Serial.Lag1) })
		few := ""
		if c.Test.N < 20 {
			few = fmt.Sprintf(" %d runs detect only strong correlation.", c.Test.N)
		}
		fmt.Fprintf(w, "%s: none found (largest %+.2f, p %.3g, %s).%s\n", head, c.Serial.Lag1, c.Serial.Lag1P, c.label(), few)
		return
	}
	fmt.Fprintf(w, "%s: %d of %d checks CORRELATED; their limits assume exchangeable runs, and an unchanged system fails them more often than the false-fail level says (runs that wander together put a whole candidate block above the limit); take the runs further apart, or in a quieter setting:\n",
		head, len(correlated), len(tested))
	listChecks(w, correlated, func(c DriftCheck) string {
		return fmt.Sprintf("%d runs, lag-1 autocorrelation %+.2f, p %.3g", c.Test.N, c.Serial.Lag1, c.Serial.Lag1P)
	})
}

// listChecks writes up to 8 checks, one a line, each its label and what
// says of it, then how many more the drift report holds.
func listChecks(w io.Writer, checks []DriftCheck, what func(DriftCheck) string) {
	for i, c := range checks {
		if i == 8 {
			fmt.Fprintf(w, "  … and %d more (see the drift report)\n", len(checks)-i)
			return
		}
		fmt.Fprintf(w, "  %s: %s\n", c.label(), what(c))
	}
}

// DriftFileFor is the drift report's path beside requirements CSV out:
// its name less the extension, then "_drift.csv".
func DriftFileFor(out string) string {
	return strings.TrimSuffix(out, filepath.Ext(out)) + "_drift.csv"
}

// WriteDrift writes d as the drift report CSV (formats §11).
func WriteDrift(w io.Writer, d Drift) error {
	cw := csv.NewWriter(w)
	cw.Write(DriftColumns)
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	for _, c := range d.Checks {
		lag, lagP := "", ""
		if !math.IsNaN(c.Serial.Lag1) {
			lag, lagP = g(c.Serial.Lag1), g(c.Serial.Lag1P)
		}
		yes := map[bool]string{true: "yes", false: "no"}
		cw.Write([]string{c.Type, strconv.Itoa(c.Bytes), c.Metric, strconv.Itoa(c.Test.N), d.Order,
			g(c.Test.Tau), g(c.Serial.P), g(c.PAdjusted), gfmt(c.Slope), yes[c.Drifting], lag, lagP, g(c.Serial.Factor), yes[c.Correlated]})
	}
	cw.Flush()
	return cw.Error()
}
