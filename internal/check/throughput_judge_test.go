package check

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/requirements"
	"github.com/mqgate/mqgate/internal/result"
)

// TestThroughputFigures: one plot per sub-experiment and offered load,
// payloads in order, the measured and required values as they were judged,
// the points below their requirement marked and the direction in the title
// and axis.
func TestThroughputFigures(t *testing.T) {
	win := result.Key{Mode: result.ModeWindow}
	rate := result.Key{Mode: result.ModeRate, Offered: 5000}
	at := func(k result.Key, payload int) result.Key { k.Payload = payload; return k }
	tc := func(typ string, k result.Key, req, value float64) rowCheck {
		c := gate.Evaluate(result.ThroughputLabel(typ, k), k.Payload, result.MessageRate, referenceName, req, 0, value)
		return rowCheck{Type: typ, Key: k, Check: c}
	}
	checks := []rowCheck{
		tc("nats_reliable", at(win, 1024), 500, 400),
		tc("nats_reliable", at(rate, 16), 900, 950),
		tc("nats_reliable", at(win, 16), 1000, 1100),
		tc("mqtt_best_effort", at(win, 16), 10, 9),
	}
	figs := append(throughputKind.figures("nats_reliable", checks, nil), throughputKind.figures("mqtt_best_effort", checks, nil)...)
	if len(figs) != 3 || figs[0].Path != "throughput_nats_reliable/check_window" || figs[0].Label != "throughput_nats_reliable (window)" ||
		figs[1].Path != "throughput_nats_reliable/check_rate_5000_msgs" || figs[2].Path != "throughput_mqtt_best_effort/check_window" {
		t.Fatalf("figures %+v", figs)
	}
	p := figs[0].Plot
	if !strings.Contains(p.Title.Text, "higher is better") || !strings.Contains(p.Y.Label.Text, "msg/s") || !strings.Contains(p.Y.Label.Text, "higher is better") {
		t.Errorf("title %q, y axis %q", p.Title.Text, p.Y.Label.Text)
	}
	b, err := plots.SVG(p)
	if err != nil {
		t.Fatal(err)
	}
	svg := string(b)
	for _, want := range []string{"experiment median", "requirement (lower limit)", "below requirement", ">16<", ">1024<"} {
		if !strings.Contains(svg, want) {
			t.Errorf("plot lacks %q", want)
		}
	}
	if strings.Index(svg, ">16<") > strings.Index(svg, ">1024<") {
		t.Errorf("payloads out of order")
	}
	if strings.Contains(string(must(plots.SVG(figs[1].Plot))), "below requirement") {
		t.Errorf("a plot with every point above its requirement marks some below")
	}
}

// TestThroughputOrderEvidence: a throughput check against a distribution-
// free (order) requirement counts the runs below its floor, says so in the
// interval column, and keeps the floor through JSON.
func TestThroughputOrderEvidence(t *testing.T) {
	k := result.Key{Mode: result.ModeWindow, Payload: 16}
	var obs []requirements.ThroughputObservation
	for i, v := range []float64{1000, 1010, 990, 1005, 995, 1002, 998, 1001, 999, 1003} {
		obs = append(obs, requirements.ThroughputObservation{Experiment: fmt.Sprint(i), Type: "nats_reliable", Key: k, Median: v})
	}
	reqs, _, err := requirements.DeriveThroughputStatistical(obs,
		requirements.StatConfig{FalseFail: 0.01, Method: gate.MethodOrder, NormalityLevel: 0.05}, 0.01)
	if err != nil || len(reqs) != 1 {
		t.Fatalf("derive: %v, %d requirements", err, len(reqs))
	}
	r := reqs[0].KeyedRow
	c := judgedCheck("nats_reliable (window)", 16, r.Key.String(), r.Limit(result.MessageRate), []float64{980, 1004, 985}, 0)
	if c.Stats == nil || c.Stats.Method != gate.MethodOrder || !c.Stats.Floor || c.Stats.Over != 2 {
		t.Fatalf("stats %+v: want the order method, a floor, 2 runs below 990", c.Stats)
	}
	if got := c.Stats.NoInterval(); got != "none (order method): 2 of 3 run(s) below the limit" {
		t.Errorf("interval column %q", got)
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back gate.Check
	if err := json.Unmarshal(b, &back); err != nil || back.Stats == nil || !back.Stats.Floor {
		t.Errorf("floor lost in JSON (%v): %s", err, b)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
