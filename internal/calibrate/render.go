package calibrate

import (
	"bufio"
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/mqgate/mqgate/internal/plots"
)

// pct formats a rate as a percentage with one decimal, or two significant
// digits below 0.05 %.
func pct(x float64) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	if y := 100 * x; y > 0 && y < 0.05 {
		// A small bound rounded to 0.0% would read as none.
		return strconv.FormatFloat(y, 'g', 2, 64) + "%"
	}
	return strconv.FormatFloat(100*x, 'f', 1, 64) + "%"
}

func rateText(r Rate) string {
	return fmt.Sprintf("%d of %d = %s (95%% CI %s–%s)", r.Count, r.Trials, pct(r.Rate), pct(r.Low), pct(r.High))
}

func factorText(f float64) string {
	if math.IsNaN(f) {
		return "none of the factors tried"
	}
	return fmt.Sprintf("×%g (+%g%%)", f, math.Round((f-1)*1000)/10)
}

// sidesText says how many runs each side of a split has; perSide follows
// the runs per side of a symmetric split ("per side", "runs per side").
func sidesText(r *Result, perSide string) string {
	if r.PerSide != 0 {
		return fmt.Sprintf("%d %s", r.PerSide, perSide)
	}
	return fmt.Sprintf("%d reference and %d candidate runs", r.Reference, r.Candidate)
}

// atRuns says at how many runs the power was measured.
func atRuns(r *Result) string { return sidesText(r, "runs per side") }

// levelVerdict says whether false fails at rate are within the level
// asked, above it, or neither shown (the interval spans the level:
// "within" was written for 0 of 1 split, 95 % CI 0–97.5 %).
func levelVerdict(rate Rate, level float64) string {
	switch {
	case rate.Low > level:
		return "ABOVE the level asked"
	case rate.High <= level:
		return "within the level asked"
	}
	return "not shown above the level asked, nor within it (the interval spans it: more splits or runs narrow it)"
}

// WriteText writes r for people.
func WriteText(w io.Writer, r *Result) error {
	bw := bufio.NewWriter(w)
	how := fmt.Sprintf("%d random splits (seed %d)", r.FalseFails.Trials, r.Seed)
	switch r.Split {
	case SplitOrdered:
		how = fmt.Sprintf("%d ordered splits (consecutive blocks, reference first)", r.FalseFails.Trials)
	case SplitBlocked:
		how = fmt.Sprintf("%d blocked splits (windows of consecutive runs dealt in alternating blocks, reference first)", r.FalseFails.Trials)
	}
	if r.Gate == "" || r.Gate == "compare" {
		fmt.Fprintf(bw, "calibration: %d unchanged runs, %s, %s, %d checks, gate at family-wise false-fail level %s (Holm)\n",
			r.Runs, sidesText(r, "per side"), how, r.Checks, pct(r.FalseFail))
	} else {
		fmt.Fprintf(bw, "calibration of %s: %d unchanged runs, %s, %s, %d checks, family-wise false-fail level %s\n",
			r.Gate, r.Runs, sidesText(r, "per side"), how, r.Checks, pct(r.FalseFail))
		if r.Description != "" {
			fmt.Fprintf(bw, "gate: %s\n", r.Description)
		}
	}
	fmt.Fprintf(bw, "false fails:  %s: %s\n",
		rateText(r.FalseFails), levelVerdict(r.FalseFails, r.FalseFail))
	fmt.Fprintf(bw, "inconclusive: %s\n", rateText(r.Inconclusive))
	fmt.Fprintf(bw, "passed:       %s\n", rateText(r.Passed))
	fmt.Fprintln(bw, "power: every candidate value made worse by the factor (latency ×f, throughput ÷f)")
	fmt.Fprintf(bw, "  %-8s %-28s %-28s %-9s %s\n", "factor", "gate fails", "a single check fails", "passed", "inconclusive")
	for _, p := range r.Curve {
		fmt.Fprintf(bw, "  ×%-7g %-28s %-28s %-9s %s\n", p.Factor,
			fmt.Sprintf("%s [%s–%s]", pct(p.Gate.Rate), pct(p.Gate.Low), pct(p.Gate.High)),
			fmt.Sprintf("%s [%s–%s]", pct(p.Check.Rate), pct(p.Check.Low), pct(p.Check.High)),
			pct(p.Passed.Rate), pct(p.Inconclusive.Rate))
	}
	fmt.Fprintf(bw, "smallest regression detected with ≥ %s power at %s: gate %s; a single check %s\n",
		pct(r.Power), atRuns(r), factorText(r.Detect), factorText(r.DetectCheck))
	if len(r.Thresholds) > 0 {
		fmt.Fprintf(bw, "unchanged system by %s:\n  %-10s %-9s %-13s %s\n", r.ThresholdName, "threshold", "passed", "inconclusive", "failed")
		for _, t := range r.Thresholds {
			fmt.Fprintf(bw, "  %-10s %-9s %-13s %s\n", pct(t.Threshold), pct(t.Passed.Rate), pct(t.Inconclusive.Rate), pct(t.Failed.Rate))
		}
	}
	if h := r.HeldOut; h != nil {
		if h.Undecided {
			fmt.Fprintf(bw, "held-out validation: at every %s tried the gate decided none of the splits of the first %d runs (all inconclusive): none to choose\n", r.ThresholdName, h.ChooseRuns)
		} else if math.IsNaN(float64(h.Chosen)) {
			fmt.Fprintf(bw, "held-out validation: no %s tried keeps the false fails of the first %d runs within %s: none to choose\n", r.ThresholdName, h.ChooseRuns, pct(r.FalseFail))
		} else {
			fmt.Fprintf(bw, "held-out validation: %s %s chosen on the first %d runs (false fails %s); on the %d later runs alone: false fails %s: %s\n",
				r.ThresholdName, pct(float64(h.Chosen)), h.ChooseRuns, pct(h.Choose.Rate),
				h.HeldRuns, rateText(h.Held), levelVerdict(h.Held, r.FalseFail))
		}
	}
	if g := r.Regression; g != nil {
		fmt.Fprintf(bw, "real regression: %d regressed runs as candidates against unchanged reference runs, %d splits: detected (gate fails) %s; passed %s; inconclusive %s; a single check fails %s\n",
			r.Regressed, g.Gate.Trials, rateText(g.Gate), pct(g.Passed.Rate), pct(g.Inconclusive.Rate), pct(g.Check.Rate))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(bw, "note: %s\n", n)
	}
	fmt.Fprintf(bw, "split: %s\n", SplitNote(r.Split))
	fmt.Fprintln(bw, "note: the splits reuse the same runs, so they are not independent and the intervals are narrower than the truth")
	return bw.Flush()
}

// jsonFactor is a factor that may be NaN (none found), null in JSON.
type jsonFactor float64

func (f jsonFactor) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(f)) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(f))
}

// WriteJSON writes r as an indented JSON document; a detection factor that
// was not reached is null.
func WriteJSON(w io.Writer, r *Result) error {
	type alias Result
	doc := struct {
		FormatVersion int `json:"format_version"`
		*alias
		Detect      jsonFactor `json:"detect"`
		DetectCheck jsonFactor `json:"detect_check"`
	}{1, (*alias)(r), jsonFactor(r.Detect), jsonFactor(r.DetectCheck)}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// PowerPlot draws the power curve: the rate at which the gate, and a
// single check, fail against the regression factor, from ×1 (no regression:
// the false-fail rate) up; the power sought and the false-fail level are
// dashed.
func PowerPlot(r *Result) *plot.Plot {
	cats := []string{"×1"}
	gateY := []float64{r.FalseFails.Rate}
	checkY := []float64{math.NaN()}
	for _, p := range r.Curve {
		cats = append(cats, "×"+strconv.FormatFloat(p.Factor, 'g', -1, 64))
		gateY = append(gateY, p.Gate.Rate)
		checkY = append(checkY, p.Check.Rate)
	}
	flat := func(v float64) []float64 { return slices.Repeat([]float64{v}, len(cats)) }
	title := fmt.Sprintf("%s power at %s (%d checks, false-fail level %s, %s splits)", gateTitle(r), atRuns(r), r.Checks, pct(r.FalseFail), r.Split)
	p := plots.CategoryLines(title, "Regression injected (candidate / reference)", "Detection rate", cats, []plots.Line{
		{Name: "gate fails", Y: gateY},
		{Name: "a single check fails", Y: checkY},
		{Name: pct(r.Power) + " power", Y: flat(r.Power), Dashed: true},
		{Name: "false-fail level", Y: flat(r.FalseFail), Dashed: true},
	})
	shareAxis(p, "Detection rate")
	return p
}

// shareAxis makes p's Y axis a linear one from 0 to 1, for rates and
// shares (CategoryLines goes logarithmic for values spanning decades).
func shareAxis(p *plot.Plot, label string) {
	p.Y.Scale = plot.LinearScale{}
	p.Y.Tick.Marker = plot.DefaultTicks{}
	p.Y.Label.Text = label
	p.Y.Min, p.Y.Max = 0, 1
}

// gateTitle names r's gate at the start of a plot title.
func gateTitle(r *Result) string {
	if r.Gate == "" {
		return "Gate"
	}
	return strings.ToUpper(r.Gate[:1]) + r.Gate[1:] + " gate"
}

// Colours of the outcome plot: the verdicts as reports colour them.
var (
	passedColor       = color.RGBA{0x2c, 0xa0, 0x2c, 0xff}
	inconclusiveColor = color.RGBA{0xff, 0xbf, 0x3f, 0xff}
	failedColor       = color.RGBA{0xd6, 0x27, 0x28, 0xff}
)

// OutcomePlot draws, per regression factor from ×1 (the unchanged system)
// up, and for the real regression when the pool has one, how often the
// whole gate passed, was inconclusive and failed, as stacked bars that fill
// the splits: what an unchanged system meets (×1) and how the verdicts
// move as the regression grows.
func OutcomePlot(r *Result) (*plot.Plot, error) {
	var v verdictShares
	v.add("×1", r.Passed, r.Inconclusive, r.FalseFails)
	for _, p := range r.Curve {
		v.add("×"+strconv.FormatFloat(p.Factor, 'g', -1, 64), p.Passed, p.Inconclusive, p.Gate)
	}
	if g := r.Regression; g != nil {
		v.add("real regression", g.Passed, g.Inconclusive, g.Gate)
	}
	title := fmt.Sprintf("%s verdicts at %s (%d %s splits, false-fail level %s)", gateTitle(r), atRuns(r), r.FalseFails.Trials, r.Split, pct(r.FalseFail))
	return verdictBars(title, "Regression injected (candidate / reference)", v)
}

// ThresholdPlot draws, per threshold of Result.Thresholds, how often the
// gate passed, was inconclusive and failed on the unchanged splits, as
// stacked bars: the threshold at which an unchanged system passes.
func ThresholdPlot(r *Result) (*plot.Plot, error) {
	var v verdictShares
	for _, t := range r.Thresholds {
		v.add(pct(t.Threshold), t.Passed, t.Inconclusive, t.Failed)
	}
	title := fmt.Sprintf("%s verdicts on an unchanged system at %s (%d %s splits)", gateTitle(r), atRuns(r), r.FalseFails.Trials, r.Split)
	return verdictBars(title, r.ThresholdName, v)
}

// verdictShares are the categories of a verdict plot and, per category,
// the shares of passed, inconclusive and failed splits.
type verdictShares struct {
	cats                         []string
	passed, inconclusive, failed plotter.Values
}

func (v *verdictShares) add(cat string, passed, inconclusive, failed Rate) {
	v.cats = append(v.cats, cat)
	v.passed = append(v.passed, passed.Rate)
	v.inconclusive = append(v.inconclusive, inconclusive.Rate)
	v.failed = append(v.failed, failed.Rate)
}

// verdictBars draws the shares of v as stacked bars on a 0–1 axis.
func verdictBars(title, xLabel string, v verdictShares) (*plot.Plot, error) {
	p := plots.CategoryLines(title, xLabel, "Share of splits", v.cats, nil)
	width := vg.Points(36)
	var prev *plotter.BarChart
	for _, b := range []struct {
		name string
		v    plotter.Values
		col  color.Color
	}{
		{"passed", v.passed, passedColor},
		{"inconclusive", v.inconclusive, inconclusiveColor},
		{"failed", v.failed, failedColor},
	} {
		bars, err := plotter.NewBarChart(b.v, width)
		if err != nil {
			return nil, err
		}
		bars.Color = b.col
		bars.LineStyle.Width = 0
		if prev != nil {
			bars.StackOn(prev)
		}
		p.Add(bars)
		p.Legend.Add(b.name, bars)
		prev = bars
	}
	shareAxis(p, "Share of splits")
	p.X.Min, p.X.Max = -0.5, float64(len(v.cats))-0.5
	return p, nil
}
