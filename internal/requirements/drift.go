package requirements

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats"
	"github.com/mqgate/mqgate/internal/stats/trend"
)

// DriftLevel is the family-wise level of the drift tests: Holm over every
// check's Mann–Kendall test. It is looser than a gate's false-fail level
// because missing a drift is the costlier error here: limits from drifting
// runs are not what their guarantee assumes.
const DriftLevel = 0.05

// DriftColumns is the header of the drift report CSV (formats §11).
var DriftColumns = []string{"Experiment type", "Bytes", "Metric", "Runs", "Order", "Tau", "P", "Holm P", "Slope per run", "Drifting"}

// DriftCheck is the Mann–Kendall test of one check's run values (one
// requirement row and column), in run order.
type DriftCheck struct {
	// Type is the sub-experiment (a throughput row's label); Metric the
	// column ("Median", "99%", "Max", "Median [msg/s]").
	Type   string
	Bytes  int
	Metric string
	Test   trend.MannKendall
	// PAdjusted is P after Holm's correction over the family; Drifting
	// says it is within DriftLevel.
	PAdjusted float64
	Drifting  bool
	// Slope is Sen's slope of the log values as a relative change per
	// run (0.01 = 1 % per run); NaN when a value is ≤ 0.
	Slope float64
}

// Drift is the drift report of a derivation: every check's runs tested
// for a trend over run order, the family at DriftLevel (Holm).
type Drift struct {
	// Order says where the run order comes from: "meta.json start times",
	// "directory names" or both, with how many runs each.
	Order  string
	Checks []DriftCheck
}

// DriftOf tests the runs of every requirement row and column of in, and of
// every throughput row, for a trend over run order: the experiments'
// start times (meta.json, else the directory name), as
// experiment.SortChronological orders them. Checks with fewer than 3 runs
// are left out: their test cannot reject at DriftLevel.
func DriftOf(in *Input) Drift {
	exps := append([]*experiment.Experiment(nil), in.Experiments...)
	experiment.SortChronological(exps)
	rank := map[string]int{}
	from := map[string]int{}
	for i, e := range exps {
		rank[e.Name] = i
		from[e.StartFrom]++
	}
	var order []string
	for _, f := range []struct{ key, text string }{{"meta.json", "meta.json start times"}, {"name", "directory names"}, {"", "names, undated"}} {
		if from[f.key] > 0 {
			order = append(order, fmt.Sprintf("%s (%d runs)", f.text, from[f.key]))
		}
	}
	if len(from) == 1 {
		order[0] = order[0][:strings.Index(order[0], " (")]
	}
	d := Drift{Order: strings.Join(order, ", ")}
	type series struct {
		typ, metric string
		bytes       int
		at          []int
		vals        []float64
	}
	var all []*series
	index := map[string]*series{}
	add := func(typ string, bytes int, metric, exp string, v float64) {
		id := fmt.Sprintf("%s\x00%d\x00%s", typ, bytes, metric)
		s := index[id]
		if s == nil {
			s = &series{typ: typ, metric: metric, bytes: bytes}
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
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.typ != b.typ {
			return a.typ < b.typ
		}
		return a.bytes < b.bytes
	})
	var ps []float64
	for _, s := range all {
		if len(s.vals) < 3 {
			continue
		}
		idx := make([]int, len(s.vals))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(i, j int) bool { return s.at[idx[i]] < s.at[idx[j]] })
		x := make([]float64, len(idx))
		positive := true
		for i, j := range idx {
			x[i] = s.vals[j]
			positive = positive && x[i] > 0
		}
		if positive {
			for i := range x {
				x[i] = math.Log(x[i])
			}
		}
		mk, err := trend.Test(x)
		if err != nil {
			continue
		}
		c := DriftCheck{Type: s.typ, Bytes: s.bytes, Metric: s.metric, Test: mk, Slope: math.NaN()}
		if positive {
			c.Slope = math.Expm1(mk.Slope)
		}
		d.Checks = append(d.Checks, c)
		ps = append(ps, mk.P)
	}
	for i, dec := range stats.Holm(ps, DriftLevel) {
		d.Checks[i].PAdjusted, d.Checks[i].Drifting = dec.Adjusted, dec.Rejected
	}
	return d
}

// Drifting returns the checks whose runs drift at the family level.
func (d Drift) Drifting() []DriftCheck {
	var out []DriftCheck
	for _, c := range d.Checks {
		if c.Drifting {
			out = append(out, c)
		}
	}
	return out
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

// PrintDrift writes the family-level statement of d, and the drifting
// checks, for people.
func PrintDrift(w io.Writer, d Drift) error {
	bw := bufio.NewWriter(w)
	if len(d.Checks) == 0 {
		fmt.Fprintln(bw, "Drift over run order: not tested (every check has fewer than 3 runs).")
		return bw.Flush()
	}
	head := fmt.Sprintf("Drift over run order (Mann–Kendall per check, order from %s, Holm over %d checks at %s)", d.Order, len(d.Checks), pct(DriftLevel))
	drifting := d.Drifting()
	if len(drifting) == 0 {
		low := d.Checks[0]
		for _, c := range d.Checks {
			if c.Test.P < low.Test.P {
				low = c
			}
		}
		few := ""
		if low.Test.N < 10 {
			few = fmt.Sprintf(" %d runs detect only strong drift.", low.Test.N)
		}
		fmt.Fprintf(bw, "%s: none found (smallest p %.3g, %s).%s\n", head, low.Test.P, low.label(), few)
		return bw.Flush()
	}
	fmt.Fprintf(bw, "%s: %d of %d checks DRIFT; their limits assume exchangeable runs, which drifting runs are not:\n", head, len(drifting), len(d.Checks))
	for i, c := range drifting {
		if i == 8 {
			fmt.Fprintf(bw, "  … and %d more (see the drift report)\n", len(drifting)-i)
			break
		}
		fmt.Fprintf(bw, "  %s: %d runs, tau %+.2f, Sen's slope %s, p %.3g (Holm %.3g)\n", c.label(), c.Test.N, c.Test.Tau, c.slopeText(), c.Test.P, c.PAdjusted)
	}
	return bw.Flush()
}

// DriftFileFor is the drift report's path beside requirements CSV out:
// its name less the extension, then "_drift.csv".
func DriftFileFor(out string) string {
	return strings.TrimSuffix(out, filepath.Ext(out)) + "_drift.csv"
}

// WriteDriftFile writes d as the drift report CSV (formats §11), atomically.
func WriteDriftFile(path string, d Drift) error {
	return atomicfile.Write(path, func(w io.Writer) error { return WriteDrift(w, d) })
}

// WriteDrift writes d as the drift report CSV (formats §11).
func WriteDrift(w io.Writer, d Drift) error {
	cw := csv.NewWriter(w)
	cw.Write(DriftColumns)
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	for _, c := range d.Checks {
		slope := ""
		if !math.IsNaN(c.Slope) {
			slope = g(c.Slope)
		}
		cw.Write([]string{c.Type, strconv.Itoa(c.Bytes), c.Metric, strconv.Itoa(c.Test.N), d.Order,
			g(c.Test.Tau), g(c.Test.P), g(c.PAdjusted), slope, map[bool]string{true: "yes", false: "no"}[c.Drifting]})
	}
	cw.Flush()
	return cw.Error()
}
