package compare

import (
	"math"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/result"
)

// Compare gates target against reference with cfg in single-run mode.
func Compare(reference, target *experiment.Experiment, cfg Config) (*Result, error) {
	return CompareRuns([]*experiment.Experiment{reference}, []*experiment.Experiment{target}, cfg)
}

// DefaultConfig is the configuration of the compare tool with no flags.
func DefaultConfig() Config {
	return Config{Metrics: result.DefaultCompareMetrics, Threshold: DefaultThreshold}
}

// Passed reports whether the sub-experiment passes: every check passed, or,
// if allowMissing, it is missing from the results.
func (s *Sub[R]) Passed(allowMissing bool) bool {
	if s.Missing() {
		return allowMissing
	}
	return len(s.Failed()) == 0
}

// row returns a summary row whose every latency column is v.
func row(payload int, v float64) result.SummaryRow {
	return result.SummaryRow{
		Bytes: payload,
		Summary: result.Summary{
			Samples:    100,
			Max:        v,
			Min:        v,
			Mean:       v,
			Median:     v,
			Stdev:      v,
			MeanJitter: v,
			MaxJitter:  v,
			P90:        v,
			P99:        v,
			P9999:      v,
		},
	}
}

func exp(name string, subs ...experiment.Summary) *experiment.Experiment {
	for i := range subs {
		subs[i].Path = name + "/measurements_" + subs[i].Type + "_summary.csv"
	}
	return &experiment.Experiment{Name: name, Dir: name, Latency: meta.LatencyHalfRTT, Summaries: subs}
}

func sub(typ string, rows ...result.SummaryRow) experiment.Summary {
	return experiment.Summary{Type: typ, Rows: rows}
}

// statuses returns the status of each check of the only sub-experiment.
func statuses(t *testing.T, r *Result) []gate.Status {
	t.Helper()
	var s []gate.Status
	for _, c := range r.Subs[0].Checks {
		s = append(s, c.Status)
	}
	return s
}

func TestThresholdBoundary(t *testing.T) {
	tests := []struct {
		name      string
		ref, got  float64
		threshold float64
		want      gate.Status
	}{
		{"equal", 10, 10, 0.1, gate.Passed},
		{"improved", 10, 9, 0.1, gate.Passed},
		// The Fast-RTPS script fails this one: any increase fails there.
		{"5% over with 10% threshold", 10, 10.5, 0.1, gate.Passed},
		{"exactly at limit", 10, 11, 0.1, gate.Passed},
		// 0.565 × 1.1 is 0.62149999… in binary: the limit must still pass.
		{"exactly at inexact limit", 0.565, 0.6215, 0.1, gate.Passed},
		{"exactly at limit 3 decimals", 135.640, 149.204, 0.1, gate.Passed},
		{"just above limit", 10, 11.001, 0.1, gate.Failed},
		{"just above inexact limit", 148.989, 163.888, 0.1, gate.Failed},
		{"one unit above limit", 148.989, 163.889, 0.1, gate.Failed},
		{"zero threshold equal", 7.486, 7.486, 0, gate.Passed},
		{"zero threshold above", 7.486, 7.487, 0, gate.Failed},
		{"zero reference", 0, 0.001, 0.5, gate.Failed},
		{"large threshold", 10, 29.9, 2, gate.Passed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref := exp("ref", sub("interprocess_reliable", row(16, tt.ref)))
			got := exp("got", sub("interprocess_reliable", row(16, tt.got)))
			cfg := Config{Metrics: []result.Metric{result.Median}, Threshold: tt.threshold}
			r, err := Compare(ref, got, cfg)
			if err != nil {
				t.Fatal(err)
			}
			c := r.Subs[0].Checks[0]
			if c.Status != tt.want {
				t.Fatalf("status %s, want %s (limit %v): %s", c.Status, tt.want, c.Limit, c.Message)
			}
			if c.Value != tt.got || c.Reference != tt.ref {
				t.Errorf("value %v reference %v, want %v %v", c.Value, c.Reference, tt.got, tt.ref)
			}
		})
	}
}

func TestPerColumnThresholds(t *testing.T) {
	// Every column 15 % over the reference.
	ref := exp("ref", sub("intraprocess_reliable", row(16, 100), row(64, 100)))
	got := exp("got", sub("intraprocess_reliable", row(16, 115), row(64, 115)))
	cfg := Config{
		Metrics:    []result.Metric{result.Median, result.P99, result.Max},
		Threshold:  0.1,
		Thresholds: map[string]float64{"99%": 0.2},
	}
	r, err := Compare(ref, got, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		metric    string
		payload   int
		threshold float64
		status    gate.Status
	}{
		{"Median", 16, 0.1, gate.Failed},
		{"Median", 64, 0.1, gate.Failed},
		{"99%", 16, 0.2, gate.Passed},
		{"99%", 64, 0.2, gate.Passed},
		{"Max", 16, 0.1, gate.Failed},
		{"Max", 64, 0.1, gate.Failed},
	}
	cs := r.Subs[0].Checks
	if len(cs) != len(want) {
		t.Fatalf("%d checks, want %d", len(cs), len(want))
	}
	for i, w := range want {
		c := cs[i]
		if c.Metric.Name != w.metric || c.Payload != w.payload || c.Threshold != w.threshold || c.Status != w.status {
			t.Errorf("check %d = %s %d B threshold %v %s, want %s %d B threshold %v %s",
				i, c.Metric.Name, c.Payload, c.Threshold, c.Status, w.metric, w.payload, w.threshold, w.status)
		}
	}
}

func TestColumnsSelectWhatIsGated(t *testing.T) {
	ref := exp("ref", sub("intraprocess_reliable", row(16, 100)))
	regressed := row(16, 100)
	regressed.Mean = 200 // only the mean regressed
	got := exp("got", sub("intraprocess_reliable", regressed))

	r, err := Compare(ref, got, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if !r.Subs[0].Passed(false) {
		t.Errorf("default columns gate the mean: %v", r.Subs[0].Failed())
	}
	if n := len(r.Subs[0].Checks); n != len(result.DefaultCompareMetrics) {
		t.Errorf("%d checks with the default columns, want %d", n, len(result.DefaultCompareMetrics))
	}

	cfg := DefaultConfig()
	cfg.Metrics = []result.Metric{result.Mean}
	r, err = Compare(ref, got, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r.Subs[0].Passed(false) {
		t.Error("--columns Mean does not catch the mean's regression")
	}
}

func TestHigherIsBetter(t *testing.T) {
	// No summary column is higher-is-better; evaluate is what Compare uses.
	m := result.MessageRate
	for _, tt := range []struct {
		got  float64
		want gate.Status
	}{{100, gate.Passed}, {90, gate.Passed}, {89.999, gate.Failed}, {200, gate.Passed}} {
		if c := gate.Evaluate("amqp_reliable", 16, m, referenceName, 100, 0.1, tt.got); c.Status != tt.want {
			t.Errorf("rate %v against 100 with 10%%: %s, want %s", tt.got, c.Status, tt.want)
		}
	}
}

func TestMissingFromResults(t *testing.T) {
	ref := exp("ref", sub("interprocess_reliable", row(16, 1)), sub("intraprocess_reliable", row(16, 1)))
	got := exp("got", sub("intraprocess_reliable", row(16, 1)))
	for _, allow := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.AllowMissing = allow
		r, err := Compare(ref, got, cfg)
		if err != nil {
			t.Fatal(err)
		}
		s := r.Subs[0]
		if s.Type != "interprocess_reliable" || !s.Missing() {
			t.Fatalf("first sub-experiment %s missing=%v, want interprocess_reliable missing", s.Type, s.Missing())
		}
		for _, c := range s.Checks {
			if c.Status != gate.Missing || !math.IsNaN(c.Value) {
				t.Errorf("check %s %d B: status %s value %v, want missing NaN", c.Metric.Name, c.Payload, c.Status, c.Value)
			}
		}
		v := r.Verdict()
		want := gate.Failed
		if allow {
			want = gate.Passed
		}
		if v.Status != want {
			t.Errorf("allow missing %v: verdict %s, want %s", allow, v.Status, want)
		}
	}
}

func TestInputErrors(t *testing.T) {
	ir := func(rows ...result.SummaryRow) experiment.Summary { return sub("interprocess_reliable", rows...) }
	tests := []struct {
		name     string
		ref, got *experiment.Experiment
		cfg      Config
		want     []string
	}{
		{
			name: "result without reference",
			ref:  exp("ref", ir(row(16, 1))),
			got:  exp("got", ir(row(16, 1)), sub("interprocess_best_effort", row(16, 1))),
			cfg:  DefaultConfig(),
			want: []string{"got/measurements_interprocess_best_effort_summary.csv", `"interprocess_best_effort" has no reference`},
		},
		{
			name: "payloads differ",
			ref:  exp("ref", ir(row(16, 1), row(32, 1), row(64, 1))),
			got:  exp("got", ir(row(16, 1), row(128, 1), row(256, 1))),
			cfg:  DefaultConfig(),
			want: []string{"payloads 32, 64 only in the reference", "payloads 128, 256 only in the results", `column "Bytes"`},
		},
		{
			name: "payloads only in the results",
			ref:  exp("ref", ir(row(16, 1))),
			got:  exp("got", ir(row(16, 1), row(32, 1))),
			cfg:  DefaultConfig(),
			want: []string{"payloads 32 only in the results"},
		},
		{
			name: "negative threshold",
			ref:  exp("ref", ir(row(16, 1))),
			got:  exp("got", ir(row(16, 1))),
			cfg:  Config{Threshold: -0.1},
			want: []string{"-0.1 is below 0"},
		},
		{
			name: "negative column threshold",
			ref:  exp("ref", ir(row(16, 1))),
			got:  exp("got", ir(row(16, 1))),
			cfg:  Config{Threshold: 0.1, Thresholds: map[string]float64{"Max": -1}},
			want: []string{`threshold for column "Max"`, "below 0"},
		},
		{
			name: "threshold for an ungated column",
			ref:  exp("ref", ir(row(16, 1))),
			got:  exp("got", ir(row(16, 1))),
			cfg:  Config{Threshold: 0.1, Thresholds: map[string]float64{"Mean": 0.2}},
			want: []string{`"Mean", which is not gated`},
		},
		{
			name: "NaN threshold",
			ref:  exp("ref", ir(row(16, 1))),
			got:  exp("got", ir(row(16, 1))),
			cfg:  Config{Threshold: math.NaN()},
			want: []string{"not a finite number"},
		},
		{
			name: "column compare cannot gate",
			ref:  exp("ref", ir(row(16, 1))),
			got:  exp("got", ir(row(16, 1))),
			cfg:  Config{Metrics: []result.Metric{result.Stdev}},
			want: []string{`"Stdev" cannot be compared`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Compare(tt.ref, tt.got, tt.cfg)
			if err == nil {
				t.Fatalf("no error; result %+v", r)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestTargetOrderDoesNotMatter(t *testing.T) {
	ref := exp("ref", sub("interprocess_reliable", row(16, 1), row(32, 2), row(64, 3)))
	got := exp("got", sub("interprocess_reliable", row(64, 3), row(16, 5), row(32, 2)))
	cfg := Config{Metrics: []result.Metric{result.Max}, Threshold: 0.1}
	r, err := Compare(ref, got, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := []gate.Status{gate.Failed, gate.Passed, gate.Passed}
	if got := statuses(t, r); !equalStatuses(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
}

func equalStatuses(a, b []gate.Status) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
