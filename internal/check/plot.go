package check

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"

	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/plots"
)

// Figure is one check plot: a metric of one sub-experiment, experiment and
// requirement against payload.
type Figure struct {
	Type   string
	Metric gate.Metric
	Plot   *plot.Plot
}

// PlotDir is where the check plots of sub-experiment typ go, as in the
// Fast-RTPS script: <plots>/measurements_<type>.
func PlotDir(plotsDir, typ string) string { return filepath.Join(plotsDir, "measurements_"+typ) }

// PlotFileName is the Fast-RTPS name of a check plot: comparison_median,
// comparison_99 or comparison_max, plus the format's extension.
func PlotFileName(m gate.Metric, f plots.Format) string {
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
	for _, m := range gate.RequirementMetrics {
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
		p := plots.CategoryLines(title, "Payload [Bytes]", "Latency [us]", cats, []plots.Line{
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
