package history

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"

	"github.com/mqgate/mqgate/internal/parallel"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/result"
)

// Axis labels of every history plot.
const (
	xLabel = "Experiment (oldest to newest)"
	yLabel = "Latency [µs]"
)

// Kinds of plot.
const (
	KindMagnitude = "magnitude" // one magnitude, one series per payload
	KindPayload   = "payload"   // one payload and check, with its requirement
)

// Job is one plot to draw.
type Job struct {
	Kind string
	// Type is the sub-experiment; Magnitude a Magnitudes entry (a Checks
	// entry for payload plots); Payload is set for payload plots only.
	Type      string
	Magnitude string
	Payload   int
	// Name is the file name without extension, relative to the plots
	// directory: <type>/history_<magnitude> or <type>/<bytes>_bytes_<check>
	// with "%" dropped, as the Fast-RTPS script names them.
	Name string
	// Over counts the experiments over the requirement (payload plots).
	Over int
	// Build draws the plot.
	Build func() *plot.Plot
}

// fileMagnitude is a column name as used in file names ("99%" → "99"; a
// burst column as the Fast-RTPS throughput script names it:
// "Lost [samples]" → "lost_samples").
func fileMagnitude(m string) string {
	switch m {
	case result.MessageRate.Name:
		return "msgs" // Messages/s: a slash would make a folder
	case result.BurstLost, result.BurstThroughput:
		return strings.NewReplacer(" ", "_", "/", "", "[", "", "]", "").Replace(strings.ToLower(m))
	}
	return strings.ReplaceAll(m, "%", "")
}

// Labels returns the x-axis category labels of h's experiments.
func (h *History) Labels() []string {
	labels := make([]string, len(h.Experiments))
	for i, e := range h.Experiments {
		labels[i] = e.Label()
	}
	return labels
}

// Jobs returns every plot of h: for each sub-experiment, the magnitude
// history plots (Magnitudes order) then the payload history plots (payloads
// ascending, Checks order).
func (h *History) Jobs() []Job {
	labels := h.Labels()
	var jobs []Job
	for _, s := range h.SubExperiments {
		for m, mag := range s.Mags() {
			jobs = append(jobs, Job{
				Kind: KindMagnitude, Type: s.Type, Magnitude: mag,
				Name:  filepath.Join(s.Type, "history_"+fileMagnitude(mag)),
				Build: magnitudePlot(s, m, labels, h.ChangeFrom),
			})
		}
		for p, b := range s.Payloads {
			for _, chk := range s.ChecksOf() {
				y := s.Series(chk, p)
				req := s.Requirement(chk, p)
				marked, over := overRequirement(chk, y, req)
				var sc *SeriesChanges
				if s.Changes != nil {
					sc = &s.Changes[slices.Index(s.Mags(), chk)][p]
				}
				jobs = append(jobs, Job{
					Kind: KindPayload, Type: s.Type, Magnitude: chk, Payload: b,
					Name:  filepath.Join(s.Type, fmt.Sprintf("%d_bytes_%s", b, fileMagnitude(chk))),
					Over:  over,
					Build: payloadPlot(s, b, chk, y, req, marked, over, labels, sc),
				})
			}
		}
	}
	return jobs
}

// overRequirement marks the values of y worse than req for magnitude mag.
func overRequirement(mag string, y []float64, req float64) (marked []bool, over int) {
	if math.IsNaN(req) {
		return nil, 0
	}
	marked = make([]bool, len(y))
	for i, v := range y {
		if worseThan(mag, v, req) { // false for NaN
			marked[i] = true
			over++
		}
	}
	return marked, over
}

func magnitudePlot(s *SubExperiment, m int, labels []string, from int) func() *plot.Plot {
	return func() *plot.Plot {
		lines := make([]plots.Line, len(s.Payloads))
		for p, b := range s.Payloads {
			lines[p] = plots.Line{Name: fmt.Sprintf("%d B", b), Y: s.Values[m][p]}
		}
		title := fmt.Sprintf("%s: %s %s", s.Type, s.Mags()[m], s.kind().word)
		p := plots.CategoryLines(title, xLabel, yLabelOf(s, s.Mags()[m]), labels, lines)
		experimentAxis(p, labels)
		if s.Changes != nil {
			addChangeMarks(p, s.Mags()[m], s.Values[m], s.Changes[m], from)
		}
		return p
	}
}

// yLabelOf is the value axis label of s's plots of magnitude mag.
func yLabelOf(s *SubExperiment, mag string) string {
	if l := s.kind().yLabel; l != "" {
		return l
	}
	return mag
}

func payloadPlot(s *SubExperiment, b int, chk string, y []float64, req float64, marked []bool, over int, labels []string, sc *SeriesChanges) func() *plot.Plot {
	return func() *plot.Plot {
		lines := []plots.Line{{Name: chk, Y: y, Marked: marked}}
		title := fmt.Sprintf("%s, %d bytes: %s %s", s.Type, b, chk, s.kind().word)
		p := plots.CategoryLines(title, xLabel, yLabelOf(s, chk), labels, lines)
		experimentAxis(p, labels)
		if !math.IsNaN(req) {
			l := newRequirementLine(req)
			p.Add(l)
			p.Legend.Add(fmt.Sprintf("requirement (%s)", result.Format3(req)), l)
		}
		if over > 0 {
			p.Legend.Add(fmt.Sprintf("%s requirement (%d)", worseWord(chk), over), plots.MarkThumbnail{})
		}
		addChanges(p, chk, y, labels, sc)
		return p
	}
}

// RenderOptions say where and how RenderPlots draws.
type RenderOptions struct {
	// Dir is the plots directory.
	Dir string
	// Format of the image files.
	Format plots.Format
	// SVG, when set, also receives every plot as SVG, by job index, e.g. for
	// an HTML report; its length must be that of the jobs.
	SVG [][]byte
	// Workers is the number of plots drawn at once; GOMAXPROCS when ≤ 0.
	Workers int
}

// RenderPlots draws jobs into files under opt.Dir, on a pool of workers. It
// stops at the first error or when ctx is cancelled.
func RenderPlots(ctx context.Context, jobs []Job, opt RenderOptions) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var errs firstError
	fail := func(err error) {
		errs.set(err)
		cancel()
	}
	// Magnitude plots, with a line per payload, take longest: start them
	// first so that the pool does not end waiting on one of them.
	order := make([]int, 0, len(jobs))
	for _, kind := range []string{KindMagnitude, KindPayload} {
		for i, j := range jobs {
			if j.Kind == kind {
				order = append(order, i)
			}
		}
	}
	err := parallel.Each(ctx, opt.Workers, len(order), func(k int) {
		i := order[k]
		j := jobs[i]
		p := j.Build()
		if opt.Dir != "" {
			if err := plots.Save(p, filepath.Join(opt.Dir, j.Name+opt.Format.Ext()), opt.Format); err != nil {
				fail(err)
				return
			}
		}
		if opt.SVG != nil {
			svg, err := plots.SVG(p)
			if err != nil {
				fail(fmt.Errorf("%s: %w", j.Name, err))
				return
			}
			opt.SVG[i] = svg
		}
	})
	return cmp.Or(errs.err, err)
}
