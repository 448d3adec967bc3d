package check

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"

	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/result"
)

// Figure is one check plot: a metric of one sub-experiment, experiment and
// requirement against payload.
type Figure struct {
	Type   string
	Metric result.Metric
	Plot   *plot.Plot
}

// PlotDir is where the check plots of sub-experiment typ go, as in the
// Fast-RTPS script: <plots>/measurements_<type>.
func PlotDir(plotsDir, typ string) string { return filepath.Join(plotsDir, "measurements_"+typ) }

// PlotFileName is the Fast-RTPS name of a check plot: comparison_median,
// comparison_99 or comparison_max, plus the format's extension.
func PlotFileName(m result.Metric, f plots.Format) string {
	return "comparison_" + strings.ReplaceAll(strings.ToLower(m.Name), "%", "") + f.Ext()
}

// Figures builds the three check plots of sub-experiment typ from its
// checks: the experiment's values as a solid line, the requirements dashed,
// payloads as evenly spaced categories, and points over their requirement
// marked.
func Figures(typ string, checks []gate.Check) []Figure {
	var payloads []int
	index := map[int]int{}
	for _, c := range checks {
		if c.SubExperiment != typ {
			continue
		}
		if _, ok := index[c.Payload]; !ok {
			index[c.Payload] = len(payloads)
			payloads = append(payloads, c.Payload)
		}
	}
	cats := make([]string, len(payloads))
	for i, b := range payloads {
		cats[i] = strconv.Itoa(b)
	}
	var figs []Figure
	for _, m := range result.RequirementMetrics {
		exp := nans(len(payloads))
		req := nans(len(payloads))
		over := make([]bool, len(payloads))
		for _, c := range checks {
			if c.SubExperiment != typ || c.Metric != m {
				continue
			}
			i := index[c.Payload]
			exp[i], req[i] = c.Value, c.Reference
			over[i] = c.Status == gate.Failed
		}
		title := "Check " + typ + ": " + strings.ToLower(m.Name)
		p := plots.CategoryLines(title, "Payload [Bytes]", "Latency [µs]", cats, []plots.Line{
			{Name: "experiment " + m.Name, Y: exp, Marked: over},
			{Name: "requirement " + m.Name, Y: req, Dashed: true},
		})
		figs = append(figs, Figure{Type: typ, Metric: m, Plot: p})
	}
	return figs
}

func nans(n int) []float64 {
	y := make([]float64, n)
	for i := range y {
		y[i] = math.NaN()
	}
	return y
}

// ThroughputFigure is the check plot of one sub-experiment's throughput at
// one offered load: measured and required Median [msg/s] against payload.
type ThroughputFigure struct {
	Type string
	// Load is the offered load shown (Payload 0).
	Load result.Key
	Plot *plot.Plot
}

// ThroughputPlotDir is where the throughput check plots of sub-experiment
// typ go: <plots>/throughput_<type>, beside the latency check plots.
func ThroughputPlotDir(plotsDir, typ string) string {
	return filepath.Join(plotsDir, "throughput_"+typ)
}

// ThroughputPlotFileName names the throughput check plot of an offered
// load: check_window, check_rate_5000_msgs or check_rate_unpaced, plus the
// format's extension.
func ThroughputPlotFileName(load result.Key, f plots.Format) string {
	return "check_" + strings.NewReplacer(" ", "_", "/", "").Replace(load.Load()) + f.Ext()
}

// ThroughputFigures builds the throughput check plots, one per
// sub-experiment and offered load in the order of checks: the measured
// Median [msg/s] (with several runs, the statistic judged) as a solid line
// with the points below their requirement marked, the requirement (a lower
// limit: higher is better) dashed, payloads as evenly spaced categories.
func ThroughputFigures(checks []ThroughputCheck) []ThroughputFigure {
	type fig struct {
		typ  string
		load result.Key
	}
	var order []fig
	byFig := map[fig][]gate.Check{}
	for _, tc := range checks {
		f := fig{tc.Type, result.Key{Mode: tc.Key.Mode, Offered: tc.Key.Offered}}
		if _, ok := byFig[f]; !ok {
			order = append(order, f)
		}
		byFig[f] = append(byFig[f], tc.Check)
	}
	var figs []ThroughputFigure
	for _, f := range order {
		cs := byFig[f]
		sort.SliceStable(cs, func(i, j int) bool { return cs[i].Payload < cs[j].Payload })
		cats := make([]string, len(cs))
		exp, req := nans(len(cs)), nans(len(cs))
		below := make([]bool, len(cs))
		marked := false
		for i, c := range cs {
			cats[i] = strconv.Itoa(c.Payload)
			exp[i], req[i] = c.Value, c.Reference
			below[i] = c.Status == gate.Failed
			marked = marked || below[i]
		}
		title := fmt.Sprintf("Check throughput_%s, %s: median msg/s (higher is better)", f.typ, f.load.Load())
		p := plots.CategoryLines(title, "Payload [Bytes]", "Throughput [msg/s], higher is better", cats, []plots.Line{
			{Name: "experiment median", Y: exp, Marked: below},
			{Name: "requirement (lower limit)", Y: req, Dashed: true},
		})
		if marked {
			p.Legend.Add("below requirement", plots.MarkThumbnail{})
		}
		figs = append(figs, ThroughputFigure{Type: f.typ, Load: f.load, Plot: p})
	}
	return figs
}
