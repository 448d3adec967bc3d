package compare

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"

	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/result"
)

// Figure is one comparison plot of a sub-experiment.
type Figure struct {
	// Name is the file name without extension, as the Fast-RTPS script
	// names it: "<type>_min_median", "<type>_max_99%".
	Name string
	Plot *plot.Plot
}

// plotPairs returns the column pairs plotted for the gated metrics: always
// Min–Median and Max–99% (the Fast-RTPS plots), then the other gated metrics
// two by two.
func plotPairs(gated []result.Metric) [][]result.Metric {
	pairs := [][]result.Metric{{result.Min, result.Median}, {result.Max, result.P99}}
	var rest []result.Metric
	for _, m := range gated {
		switch m.Name {
		case result.Min.Name, result.Median.Name, result.Max.Name, result.P99.Name:
		default:
			rest = append(rest, m)
		}
	}
	for i := 0; i < len(rest); i += 2 {
		pairs = append(pairs, rest[i:min(i+2, len(rest))])
	}
	return pairs
}

// Figures returns the comparison plots of s: per column a dashed reference
// line and a solid target line over the payloads, the target's failed
// checks marked. A sub-experiment missing from the results shows the
// reference alone.
func (r *Result) Figures(s *SubResult) []Figure {
	var figs []Figure
	for _, spec := range r.figureSpecs(s) {
		p := plots.CategoryLines(spec.title, "Payload [Bytes]", "Latency [µs]", spec.categories, spec.lines)
		if spec.marked {
			p.Legend.Add("regression", plots.MarkThumbnail{})
		}
		figs = append(figs, Figure{Name: spec.name, Plot: p})
	}
	return figs
}

// figureSpec is what a comparison plot shows, before it is drawn.
type figureSpec struct {
	name, title string
	categories  []string
	lines       []plots.Line
	// marked is set when a point is marked as a regression.
	marked bool
}

func (r *Result) figureSpecs(s *SubResult) []figureSpec {
	categories := make([]string, len(s.Reference.Rows))
	for i, row := range s.Reference.Rows {
		categories[i] = strconv.Itoa(row.Bytes)
	}
	var specs []figureSpec
	for _, pair := range plotPairs(r.Config.metrics()) {
		spec := figureSpec{categories: categories}
		names := make([]string, len(pair))
		for i, m := range pair {
			names[i] = strings.ToLower(m.Name)
			ref := plots.Line{Name: "Reference " + m.Name, Y: make([]float64, len(categories)), Dashed: true}
			for j, row := range s.Reference.Rows {
				ref.Y[j] = value(row, m)
			}
			spec.lines = append(spec.lines, ref)
			if s.Target == nil {
				continue
			}
			// Target values in reference payload order.
			tgt := plots.Line{Name: "Result " + m.Name, Y: make([]float64, len(categories)), Marked: make([]bool, len(categories))}
			for j, row := range s.Reference.Rows {
				tgt.Y[j] = math.NaN()
				if t := s.Target.At(row.Key()); t != nil {
					tgt.Y[j] = value(*t, m)
				}
				tgt.Marked[j] = slices.ContainsFunc(s.Checks, func(c gate.Check) bool {
					return c.Metric.Name == m.Name && c.Status == gate.Failed && c.Payload == row.Bytes
				})
				spec.marked = spec.marked || tgt.Marked[j]
			}
			spec.lines = append(spec.lines, tgt)
		}
		spec.name = s.Type + "_" + strings.Join(names, "_")
		spec.title = fmt.Sprintf("Comparison %s: %s", s.Type, result.Names(pair))
		if s.Target == nil {
			spec.title += " (missing from the results)"
		}
		specs = append(specs, spec)
	}
	return specs
}
