package check

import (
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/plot"

	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/result"
)

// figureText is what names and titles one check plot: its folder below the
// plots folder, its file name without extension, its title, y axis and
// lines, and the legend entry of the points marked as failed ("": none).
type figureText struct {
	dir, file, title, y, experiment, requirement, below string
}

// Figure is one check plot.
type Figure struct {
	// Path is where it goes below the plots folder, without the format's
	// extension; Label is the sub-experiment of its checks.
	Path, Label string
	Plot        *plot.Plot
}

// figures builds the check plots of sub-experiment typ from checks, one
// per load (in the order of checks; one for a kind without loads) and
// metric: the experiment's values as a solid line with the failed points
// marked, the requirements dashed, payloads ascending as evenly spaced
// categories. columns restrict the metrics (nil: all of k.metrics). A
// kind without figure has no plots.
func (k *kind) figures(typ string, checks []rowCheck, columns []result.Metric) []Figure {
	if k.figure == nil {
		return nil
	}
	var loads []result.Key
	if !k.loads {
		loads = []result.Key{{}}
	}
	loadOf := func(c rowCheck) result.Key { return result.Key{Mode: c.Key.Mode, Offered: c.Key.Offered} }
	for _, c := range checks {
		if c.Type == typ && !slices.Contains(loads, loadOf(c)) {
			loads = append(loads, loadOf(c))
		}
	}
	var figs []Figure
	for _, load := range loads {
		var payloads []int
		for _, c := range checks {
			if c.Type == typ && loadOf(c) == load && !slices.Contains(payloads, c.Payload) {
				payloads = append(payloads, c.Payload)
			}
		}
		slices.Sort(payloads)
		cats := make([]string, len(payloads))
		for i, b := range payloads {
			cats[i] = strconv.Itoa(b)
		}
		for _, m := range k.metrics {
			if !checked(columns, m) {
				continue
			}
			exp, req, failed := slices.Repeat([]float64{math.NaN()}, len(payloads)), slices.Repeat([]float64{math.NaN()}, len(payloads)), make([]bool, len(payloads))
			for _, c := range checks {
				if c.Type == typ && loadOf(c) == load && c.Metric == m {
					i := slices.Index(payloads, c.Payload)
					exp[i], req[i], failed[i] = c.Value, c.Reference, c.Status == gate.Failed
				}
			}
			t := k.figure(typ, load, m)
			p := plots.CategoryLines(t.title, "Payload [Bytes]", t.y, cats, []plots.Line{
				{Name: t.experiment, Y: exp, Marked: failed},
				{Name: t.requirement, Y: req, Dashed: true},
			})
			if t.below != "" && slices.Contains(failed, true) {
				p.Legend.Add(t.below, plots.MarkThumbnail{})
			}
			figs = append(figs, Figure{Path: filepath.Join(t.dir, t.file), Label: k.label(typ, load), Plot: p})
		}
	}
	return figs
}
