package archtest

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/check"
	"github.com/mqgate/mqgate/internal/history"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/measurements"
	"github.com/mqgate/mqgate/internal/permessagefile"
	"github.com/mqgate/mqgate/internal/requirements"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/roles"
)

// TestFastRTPSHeadersUnchanged: the headers of the Fast-RTPS formats (formats
// §2–§4, §9 burst) are read by its scripts and by other teams' tools, so
// they stay byte for byte, `us` included.
func TestFastRTPSHeadersUnchanged(t *testing.T) {
	for got, want := range map[string]string{
		measurements.Header:                          "Sample,Payload [Bytes],Latency [us]",
		strings.Join(result.SummaryColumns, ","):     "Bytes,Samples,Max,Min,Mean,Median,Stdev,Mean jitter,Max jitter,90%,99%,99.99%",
		strings.Join(requirements.Columns, ","):      "Experiment type,Bytes,Median,99%,Max",
		strings.Join(check.ReportColumns, ","):       "Check,Bytes,Requirement,Experiment,Difference,Percentage over requirement,Status",
		strings.Join(check.BurstReportColumns, ","):  "Check,Payload [Bytes],Requirement,Experiment,Difference,Percentage over requirement,Status",
		strings.Join(requirements.BurstColumns, ","): "Experiment type,Payload [Bytes],Lost [samples],Subscription throughput [Mb/s]",
		result.BurstHeader: "Payload [Bytes],Demand [sample/burst],Recovery time [ms],Sent [samples],Publication time [us]," +
			"Publication sample rate [Sample/s],Publication throughput [Mb/s],Received [samples],Lost [samples]," +
			"Subscription time [us],Subscription sample rate [Sample/s],Subscription throughput [Mb/s]",
	} {
		if got != want {
			t.Errorf("Fast-RTPS header changed:\n got %s\nwant %s", got, want)
		}
	}
}

// unitSuffix is a column's unit as the headers write it: "Median [msg/s]".
var unitSuffix = regexp.MustCompile(`\[([^\]]+)\]`)

// units are the units a header may name (formats §7), µs spelled so.
var units = []string{"Bytes", "s", "ms", "µs", "ns", "msg/s", "Mb/s", "%", "ns/msg", "samples", "sample/burst", "Sample/s"}

// bare are the columns of mqgate's own CSVs that name no unit, and why
// (formats §7): a name, a count, a dimensionless number, a column whose
// unit the row gives (long formats), or one named by its unit.
var bare = map[string]string{
	// names, labels and categories
	"Experiment type": "name", "Role": "name", "Mode": "name", "Load": "name", "Metric": "name", "metric": "name",
	"tags": "name", "Order": "name", "Drifting": "name", "Quantity": "name", "Multimodal": "name", "Note": "name",
	"Check": "name", "Status": "name", "experiment": "name", "sub-experiment": "name", "magnitude": "name",
	"change": "name", "Side": "name", "Design": "name", "Start": "timestamp",
	"Experiment": "name (ab series), or the row's unit (check reports)",
	"Latency":    "name", "Median method": "name", "99% method": "name", "Max method": "name",
	// counts
	"Sent": "count", "Received": "count", "Errors": "count", "Timeouts": "count", "Lost": "count",
	"Duplicates": "count", "Out of order": "count", "Samples": "count", "Runs": "count", "Count": "count",
	"n": "index", "Unit": "index", "Position": "index", "Run": "index", "Seed": "number",
	// dimensionless
	"Tau": "dimensionless", "P": "probability", "Holm P": "probability", "Slope per run": "fraction",
	"Bimodality": "dimensionless", "Replies per query": "ratio", "change-ratio": "ratio", "change-p": "probability",
	"False fail": "probability", "Check level": "probability",
	"Lag-1 autocorrelation": "dimensionless", "Lag-1 P": "probability", "Variance factor": "ratio", "Correlated": "name",
	"Median log sd": "dimensionless", "99% log sd": "dimensionless", "Max log sd": "dimensionless",
	"Median normality p": "probability", "99% normality p": "probability", "Max normality p": "probability",
	"Percentage over requirement": "percentage",
	// long formats: the row says the unit (its metric, quantity, check or magnitude)
	"value": "row's unit", "requirement": "row's unit", "Requirement": "row's unit",
	"Difference": "row's unit", "Mean": "row's unit", "Median": "row's unit", "Lower median": "row's unit",
	"Robust deviation": "row's unit", "Min": "row's unit", "Max": "row's unit", "p50": "row's unit", "p90": "row's unit",
	"p99": "row's unit", "Overall": "row's unit",
	// named by its unit, as the Fast-RTPS files name it
	"Bytes": "unit",
	// unit by mode: messages in flight (window) or msg/s (rate)
	"Offered": "mode's unit",
}

// historyColumns are history.csv's columns, from its record's tags.
func historyColumns() []string {
	var cols []string
	rt := reflect.TypeFor[history.Record]()
	for i := range rt.NumField() {
		cols = append(cols, rt.Field(i).Tag.Get("csv"))
	}
	return cols
}

// TestHeaderUnits: every column of every CSV mqgate writes beyond the
// Fast-RTPS formats names its unit in brackets, spelled as formats §7 lists
// them (µs, not us), or is a name, count, dimensionless number or long-format
// value listed in bare. A new quantity column without a unit fails here.
func TestHeaderUnits(t *testing.T) {
	headers := map[string][]string{
		"throughput summary (§9)":           strings.Split(result.ThroughputHeader, ","),
		"load snapshots (§9)":               strings.Split(load.SnapshotsHeader, ","),
		"role snapshots (§9)":               strings.Split(roles.SnapshotHeader, ","),
		"per-message (§9)":                  permessagefile.Header,
		"per-message CPU (§9)":              permessagefile.CPUHeader,
		"per-message summary (§9)":          permessagefile.SummaryHeader,
		"per-message quantities (§9)":       permessagefile.Quantities,
		"statistical requirements (§11)":    append([]string{requirements.LatencyColumn}, requirements.StatColumns...),
		"throughput requirements (§4, §11)": append(slices.Clone(requirements.ThroughputColumns), requirements.ThroughputStatColumns...),
		"drift report (§11)":                requirements.DriftColumns,
		"throughput check report (§4)":      check.ThroughputReportColumns,
		"history.csv (§10)":                 historyColumns(),
	}
	for file, cols := range headers {
		for _, p := range unitProblems(cols) {
			t.Errorf("%s: %s", file, p)
		}
	}
	// The rule catches what it is for: the headers before it held.
	for _, old := range []string{"t,metric,value,tags", "Time [s],Role,Sent,p50 [us]", "experiment,sub-experiment,payload,magnitude"} {
		if len(unitProblems(strings.Split(old, ","))) != 1 {
			t.Errorf("%q: want one problem, got %q", old, unitProblems(strings.Split(old, ",")))
		}
	}
}

// unitProblems says which of cols break the rule of formats §7.
func unitProblems(cols []string) []string {
	var out []string
	for _, c := range cols {
		if m := unitSuffix.FindStringSubmatch(c); m != nil {
			if !slices.Contains(units, m[1]) {
				out = append(out, fmt.Sprintf("column %q: unit %q is not one of formats §7's %v", c, m[1], units))
			}
			continue
		}
		if _, ok := bare[c]; !ok {
			out = append(out, fmt.Sprintf("column %q names no unit: add it in brackets (formats §7), or list it in bare with why it has none", c))
		}
	}
	return out
}
