package check

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/requirements"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats"
)

// kind is one kind of requirement row (requirements.KeyedRow) and of the
// result table it is checked against: latency summaries, throughput
// summaries or burst summaries. Every kind is judged by one loop (judge),
// reported by one writer (writeReport) and plotted by one figure builder
// (figures); what sets the kinds apart, as the files of formats §4 and §9
// fix it, is data here.
type kind struct {
	// prefix starts the names of the kind's check reports, after "checks_".
	prefix string
	// columns is the header of a check report. A row names the check (its
	// metric, or name when set) and the payload, then for a kind of loads
	// the mode and offered load, then the requirement, the value, the
	// difference, the percentage and the status.
	columns []string
	name    string
	// loads: rows are keyed by offered load too (throughput), so that a
	// check is labelled by it (result.ThroughputLabel) and its message
	// starts with its key; else by the payload and the metric.
	loads   bool
	metrics []result.Metric
	// tables returns the result tables of the kind that a run holds.
	tables func(*experiment.Experiment) []table
	// sorted: the checks of a sub-experiment go by payload, the
	// sub-experiments in the order the runs hold them, then the required
	// ones no run holds by name; else in the requirements' order, then the
	// rows without requirement in the runs' order. Either way a
	// sub-experiment's checks go metric by metric.
	sorted bool
	// unrequired: a row measured without a requirement is a missing check;
	// else it is not checked.
	unrequired bool
	// fastRTPS: the single-run rule is the Fast-RTPS throughput script's: a
	// value over a requirement of 0 is the difference × 100 percent over it,
	// and the message does not say which way is better.
	fastRTPS bool
	// missing returns the value and the message of a missing check: of a
	// row without requirement (c.req nil), or that the runs lacking do not
	// hold; what names the check, values are the other runs' values.
	missing func(j *judging, c cell, what string, values []float64, lacking []*experiment.Experiment) (float64, string)
	// perSummary: a check report for every sub-experiment the runs hold,
	// checked or not, as the Fast-RTPS script writes one per summary; else
	// one for every sub-experiment checked.
	perSummary bool
	// figure names and titles the check plot of a sub-experiment at one
	// load for one metric; nil for a kind without plots.
	figure func(typ string, load result.Key, m result.Metric) figureText
	// mode states how the runs were judged, for the verdict's Mode; "" to
	// state nothing (nil: the burst check states its own).
	mode func(reqs []requirements.KeyedRow, runs int, margin float64) string
}

// latencyKind: the Median, 99% and Max of latency summaries (formats §4),
// the Fast-RTPS latency check.
var latencyKind = &kind{
	columns: ReportColumns,
	metrics: result.RequirementMetrics,
	tables:  func(e *experiment.Experiment) []table { return tablesOf(e.Summaries) },
	sorted:  true, unrequired: true, perSummary: true,
	missing: func(j *judging, c cell, what string, values []float64, lacking []*experiment.Experiment) (float64, string) {
		var msg string
		switch _, holds := j.tables[0][c.typ]; {
		case c.req == nil && !j.required[c.typ]:
			msg = "the requirements have no sub-experiment " + c.typ
		case c.req == nil:
			msg = fmt.Sprintf("the requirements have no row for %s, %d bytes", c.typ, c.key.Payload)
		case !j.plain:
			msg = fmt.Sprintf("required, but %s %s no %d-byte row of %s", names(lacking), hasHave(len(lacking)), c.key.Payload, c.typ)
		case holds:
			msg = fmt.Sprintf("required, but the summary of %s has no %d-byte row", c.typ, c.key.Payload)
		default:
			msg = "required, but the experiment has no summary for " + c.typ
		}
		return stats.Median(values), what + ": " + msg
	},
	figure: func(typ string, _ result.Key, m result.Metric) figureText {
		name := strings.ToLower(m.Name)
		return figureText{dir: "measurements_" + typ, file: "comparison_" + strings.ReplaceAll(name, "%", ""),
			title: "Check " + typ + ": " + name, y: "Latency [µs]", experiment: "experiment " + m.Name, requirement: "requirement " + m.Name}
	},
	mode: func(reqs []requirements.KeyedRow, runs int, margin float64) string {
		if plainRule(reqs, runs, margin) {
			return ""
		}
		return modeText(reqs, runs, margin)
	},
}

// throughputKind: the Median [msg/s] of throughput summaries (formats §4,
// §9), a lower limit.
var throughputKind = &kind{
	prefix:  "throughput_",
	columns: ThroughputReportColumns,
	name:    requirements.ThroughputColumns[len(requirements.ThroughputColumns)-1],
	loads:   true,
	metrics: []result.Metric{result.MessageRate},
	tables:  func(e *experiment.Experiment) []table { return tablesOf(e.Throughputs) },
	// A requirement whose row the runs lack (another payload or offered
	// rate) names what was measured instead.
	unrequired: true,
	missing: func(j *judging, c cell, what string, values []float64, lacking []*experiment.Experiment) (float64, string) {
		if c.req == nil {
			return values[0], what + ": no throughput requirement for it"
		}
		dirs := make([]string, len(lacking))
		for i, e := range lacking {
			dirs[i] = e.Dir
		}
		return math.NaN(), fmt.Sprintf("%s: no measurement in %s (%s)%s", what, strings.Join(dirs, ", "),
			experiment.ThroughputFileName(c.typ), measuredInstead(j, c))
	},
	figure: func(typ string, load result.Key, _ result.Metric) figureText {
		return figureText{dir: "throughput_" + typ, file: "check_" + strings.NewReplacer(" ", "_", "/", "").Replace(load.Load()),
			title: fmt.Sprintf("Check throughput_%s, %s: median msg/s (higher is better)", typ, load.Load()),
			y:     "Throughput [msg/s], higher is better", experiment: "experiment median", requirement: "requirement (lower limit)",
			below: "below requirement"}
	},
	mode: func(reqs []requirements.KeyedRow, runs int, margin float64) string {
		if st := reqs[0].Stat; st != nil {
			return fmt.Sprintf("throughput: statistical requirements (%s, %.3g%% per check, family-wise %.3g%% with the latency requirements derived with them)",
				st.Method, 100*st.CheckLevel, 100*st.FalseFail)
		}
		return "throughput " + modeText(reqs, runs, margin)
	},
}

// burstKind: the lost samples (at most) and the subscription throughput
// (at least) of burst summaries, the Fast-RTPS throughput check (formats
// §9): every payload's Lost, then every payload's Subscription throughput,
// in the requirements' order, as its script orders its report.
var burstKind = &kind{
	prefix:   "burst_",
	columns:  BurstReportColumns,
	metrics:  requirements.BurstMetrics,
	tables:   burstTables,
	fastRTPS: true,
	missing: func(_ *judging, c cell, _ string, _ []float64, _ []*experiment.Experiment) (float64, string) {
		return 0, fmt.Sprintf("required, but the burst summary of %s has no %d-byte row", c.typ, c.key.Payload)
	},
}

// table is one run's result table of one sub-experiment as a check reads
// it: the keys of its rows in file order, and the first row of each key.
type table struct {
	typ  string
	keys []result.Key
	rows map[result.Key]valuer
}

// valuer is a result row as a check reads it: its metrics (result.Row).
type valuer interface {
	Value(result.Metric) (float64, bool)
}

// tableOf is the table of sub-experiment typ holding rows rs.
func tableOf[R valuer](typ string, rs []R, key func(R) result.Key) table {
	t := table{typ: typ, rows: map[result.Key]valuer{}}
	for _, r := range rs {
		if k := key(r); t.rows[k] == nil {
			t.keys = append(t.keys, k)
			t.rows[k] = r
		}
	}
	return t
}

// tablesOf is tableOf of every table of ts.
func tablesOf[R result.Row](ts []experiment.Table[R]) []table {
	out := make([]table, len(ts))
	for i, t := range ts {
		out[i] = tableOf(t.Type, t.Rows, func(r R) result.Key { return r.Key() })
	}
	return out
}

// burstTables are the burst summaries of e, a row's key its payload.
func burstTables(e *experiment.Experiment) []table {
	out := make([]table, len(e.Bursts))
	for i, b := range e.Bursts {
		out[i] = tableOf(b.Type, b.Rows, func(r result.BurstRow) result.Key { return result.Key{Payload: r.Payload} })
	}
	return out
}

// cell is one row a requirement or a run names: sub-experiment typ's row
// with key key, and its requirement (nil when it has none).
type cell struct {
	typ string
	key result.Key
	req *requirements.KeyedRow
}

// judging is what one judge call judges: the runs, their tables by
// sub-experiment, the sub-experiments required, and whether it is by the
// plain rule (plainRule).
type judging struct {
	runs     []*experiment.Experiment
	tables   []map[string]table
	required map[string]bool
	plain    bool
}

// rowCheck is a check with the row it judged.
type rowCheck struct {
	Type string
	Key  result.Key
	gate.Check
}

// gates are the gate checks of checks.
func gates(checks []rowCheck) []gate.Check {
	out := make([]gate.Check, len(checks))
	for i, c := range checks {
		out[i] = c.Check
	}
	return out
}

// judge judges the rows of the runs' tables of kind k against reqs, the
// runs' values together against each requirement raised by margin: by the
// plain rule of formats §4 (gate.Evaluate) for one run against percentile
// requirements and no margin, else by requirements.Judge, three-valued
// (formats §11). A requirement that some run's table lacks is a missing
// check, and so is a measured row without requirement (k.unrequired).
// columns restrict the metrics judged (nil: all of k.metrics).
func (k *kind) judge(reqs []requirements.KeyedRow, runs []*experiment.Experiment, columns []result.Metric, margin float64) []rowCheck {
	j := &judging{runs: runs, required: map[string]bool{}, plain: plainRule(reqs, len(runs), margin)}
	var cells []cell
	seen := map[cell]bool{}
	for i, r := range reqs {
		cells = append(cells, cell{r.Type, r.Key, &reqs[i]})
		seen[cell{typ: r.Type, key: r.Key}], j.required[r.Type] = true, true
	}
	var measured []string
	for _, e := range runs {
		byType := map[string]table{}
		for _, t := range k.tables(e) {
			byType[t.typ] = t
			if !slices.Contains(measured, t.typ) {
				measured = append(measured, t.typ)
			}
			for _, key := range t.keys {
				if c := (cell{typ: t.typ, key: key}); k.unrequired && !seen[c] {
					seen[c] = true
					cells = append(cells, c)
				}
			}
		}
		j.tables = append(j.tables, byType)
	}
	if k.sorted {
		absent := slices.DeleteFunc(slices.Sorted(maps.Keys(j.required)), func(typ string) bool { return slices.Contains(measured, typ) })
		order := append(measured, absent...)
		slices.SortStableFunc(cells, func(a, b cell) int {
			return cmp.Or(slices.Index(order, a.typ)-slices.Index(order, b.typ), a.key.Payload-b.key.Payload)
		})
	}
	var checks []rowCheck
	for start, end := 0, 0; start < len(cells); start = end {
		for end = start; end < len(cells) && cells[end].typ == cells[start].typ; end++ {
		}
		for _, m := range k.metrics {
			for _, c := range cells[start:end] {
				if checked(columns, m) {
					checks = append(checks, rowCheck{c.typ, c.key, k.check(j, c, m, margin)})
				}
			}
		}
	}
	return checks
}

// check judges metric m of cell c.
func (k *kind) check(j *judging, c cell, m result.Metric, margin float64) gate.Check {
	var values []float64
	var lacking []*experiment.Experiment
	for i, e := range j.runs {
		if row := j.tables[i][c.typ].rows[c.key]; row != nil {
			v, _ := row.Value(m)
			values = append(values, v)
		} else {
			lacking = append(lacking, e)
		}
	}
	label, what := k.label(c.typ, c.key), fmt.Sprintf("%d B %s", c.key.Payload, m.Name)
	if k.loads {
		what = c.key.String()
	}
	if c.req == nil || len(lacking) > 0 {
		limit := math.NaN()
		if c.req != nil {
			limit = c.req.Limits[m.Name]
		}
		value, msg := k.missing(j, c, what, values, lacking)
		return gate.MissingCheck(label, c.key.Payload, m, limit, value, msg)
	}
	l := c.req.Limit(m)
	if !j.plain {
		return judgedCheck(label, c.key.Payload, what, l, values, margin)
	}
	ch := gate.Evaluate(label, c.key.Payload, m, referenceName, l.Value, 0, values[0])
	switch {
	case k.fastRTPS && l.Value == 0:
		ch.Percent = (values[0] - l.Value) * 100
	case !k.fastRTPS && m.Better == result.HigherIsBetter:
		ch.Message += " [higher is better]"
	}
	return ch
}

// label is what a check of sub-experiment typ's row with key key is
// labelled as in reports, where its sub-experiment is shown.
func (k *kind) label(typ string, key result.Key) string {
	if k.loads {
		return result.ThroughputLabel(typ, key)
	}
	return typ
}

// measuredInstead says which rows of the same payload and mode the runs
// hold, when a requirement's offered rate is not among them.
func measuredInstead(j *judging, c cell) string {
	var other []string
	for _, byType := range j.tables {
		for _, k := range byType[c.typ].keys {
			if k.Payload == c.key.Payload && k.Mode == c.key.Mode && k != c.key && !slices.Contains(other, k.String()) {
				other = append(other, k.String())
			}
		}
	}
	if len(other) == 0 {
		return ""
	}
	return "; measured instead: " + strings.Join(other, ", ") + " (a different offered load is not compared)"
}

// reportTypes are the sub-experiments that get a check report of kind k,
// in order (k.perSummary).
func (k *kind) reportTypes(runs []*experiment.Experiment, checks []rowCheck) []string {
	var types []string
	add := func(typ string) {
		if !slices.Contains(types, typ) {
			types = append(types, typ)
		}
	}
	if !k.perSummary {
		for _, c := range checks {
			add(c.Type)
		}
		return types
	}
	for _, e := range runs {
		for _, t := range k.tables(e) {
			add(t.typ)
		}
	}
	return types
}
