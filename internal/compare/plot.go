package compare

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"

	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/summary"
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
func plotPairs(gated []gate.Metric) [][]gate.Metric {
	pairs := [][]gate.Metric{{gate.Min, gate.Median}, {gate.Max, gate.P99}}
	var rest []gate.Metric
	for _, m := range gated {
		switch m.Name {
		case gate.Min.Name, gate.Median.Name, gate.Max.Name, gate.P99.Name:
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
	categories := make([]string, len(s.Reference.Rows))
	for i, row := range s.Reference.Rows {
		categories[i] = strconv.Itoa(row.Bytes)
	}
	var figs []Figure
	for _, pair := range plotPairs(r.Config.metrics()) {
		names := make([]string, len(pair))
		var lines []plots.Line
		anyMarked := false
		for i, m := range pair {
			names[i] = strings.ToLower(m.Name)
			ref := plots.Line{Name: "Reference " + m.Name, Y: make([]float64, len(categories)), Dashed: true}
			for j, row := range s.Reference.Rows {
				ref.Y[j] = value(row, m)
			}
			lines = append(lines, ref)
			if s.Target == nil {
				continue
			}
			tgt := plots.Line{Name: "Result " + m.Name, Y: make([]float64, len(categories)), Marked: make([]bool, len(categories))}
			for j, row := range s.Reference.Rows {
				tgt.Y[j] = math.NaN()
				for _, tr := range s.Target.Rows {
					if tr.Bytes == row.Bytes {
						tgt.Y[j] = value(tr, m)
					}
				}
			}
			for _, c := range s.Checks {
				if c.Metric.Name == m.Name && c.Status == gate.Failed {
					j := indexOf(s.Reference.Rows, c.Payload)
					tgt.Marked[j] = true
					anyMarked = true
				}
			}
			lines = append(lines, tgt)
		}
		name := s.Type + "_" + strings.Join(names, "_")
		title := fmt.Sprintf("Comparison %s: %s", s.Type, metricNames(pair))
		if s.Target == nil {
			title += " (missing from the results)"
		}
		p := plots.CategoryLines(title, "Payload [Bytes]", "Latency [us]", categories, lines)
		if anyMarked {
			p.Legend.Add("regression", plots.MarkThumbnail{})
		}
		figs = append(figs, Figure{Name: name, Plot: p})
	}
	return figs
}

func indexOf(rows []summary.Row, payload int) int {
	for i, r := range rows {
		if r.Bytes == payload {
			return i
		}
	}
	return -1
}
