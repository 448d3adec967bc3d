package process

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/plot"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/htmlreport"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/result"
)

// Throughput is one sub-experiment's throughput summary (run throughput,
// run permessage) with the steps of its in-flight search, if it has them.
type Throughput struct {
	Type   string
	Path   string
	Rows   []result.ThroughputRow
	Search []result.ThroughputRow // throughput_<type>_search.csv; nil without one
	// Figures are the plots as SVG, when asked for (Options.Figures): the
	// rate by payload, then the search of each payload.
	Figures []htmlreport.Plot
}

func (t *Throughput) figures() *[]htmlreport.Plot { return &t.Figures }

// readThroughputs reads the throughput summaries of experiment dir and
// their search files, refusing a malformed one, so that process can check
// them all before it writes anything.
func readThroughputs(dir string) ([]Throughput, error) {
	files, err := experiment.ThroughputFiles(dir)
	if err != nil {
		return nil, err
	}
	var out []Throughput
	for _, file := range files {
		t := Throughput{Type: file.Type, Path: file.Path}
		if t.Rows, err = experiment.ReadThroughputFile(file.Path); err != nil {
			return nil, err
		}
		search := filepath.Join(dir, experiment.SearchFileName(file.Type))
		if _, err := os.Lstat(search); !errors.Is(err, fs.ErrNotExist) {
			if t.Search, err = readSearch(search); err != nil {
				return nil, err
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// namedPlot is a figure and its file name without extension.
type namedPlot struct {
	name string
	p    *plot.Plot
}

// throughputPlots are a sub-experiment's figures: its median rate by
// payload (throughput_<type>), one line per load (the window search's F, or
// each offered rate), then each payload's search
// (throughput_<type>_search_<payload>: the median rate at every in-flight
// window F tried).
func throughputPlots(t Throughput) []namedPlot {
	var payloads []int
	type load struct {
		mode    string
		offered float64
	}
	var loads []load
	for _, r := range t.Rows {
		if !slices.Contains(payloads, r.Payload) {
			payloads = append(payloads, r.Payload)
		}
		l := load{r.Mode, r.Offered}
		if r.Mode == result.ModeWindow {
			l.offered = 0 // each payload has its own F: one line
		}
		if !slices.Contains(loads, l) {
			loads = append(loads, l)
		}
	}
	slices.Sort(payloads)
	cats := make([]string, len(payloads))
	for i, p := range payloads {
		cats[i] = strconv.Itoa(p)
	}
	var lines []plots.Line
	for _, l := range loads {
		y := make([]float64, len(payloads))
		for i := range y {
			y[i] = math.NaN()
		}
		for _, r := range t.Rows {
			if r.Mode == l.mode && (l.mode == result.ModeWindow || r.Offered == l.offered) {
				y[slices.Index(payloads, r.Payload)] = r.Median
			}
		}
		name := "in-flight window F (searched)"
		switch {
		case l.mode == result.ModeRate && l.offered == 0:
			name = "unpaced"
		case l.mode == result.ModeRate:
			name = "offered " + strconv.FormatFloat(l.offered, 'f', -1, 64) + " msg/s"
		}
		lines = append(lines, plots.Line{Name: name, Y: y})
	}
	out := []namedPlot{{"throughput_" + t.Type, plots.CategoryLines(t.Type+": median throughput by payload",
		"Payload [Bytes]", "Throughput [msg/s]", cats, lines)}}
	for _, p := range payloads {
		var steps []result.ThroughputRow
		for _, r := range t.Search {
			if r.Payload == p && r.Mode == result.ModeWindow {
				steps = append(steps, r)
			}
		}
		if len(steps) == 0 {
			continue
		}
		slices.SortStableFunc(steps, func(a, b result.ThroughputRow) int { return cmp.Compare(a.Offered, b.Offered) })
		fcats := make([]string, len(steps))
		ys := make([]float64, len(steps))
		for i, r := range steps {
			fcats[i], ys[i] = strconv.FormatFloat(r.Offered, 'f', -1, 64), r.Median
		}
		chosen := math.NaN()
		for _, r := range t.Rows {
			if r.Payload == p && r.Mode == result.ModeWindow {
				chosen = r.Offered
			}
		}
		title := fmt.Sprintf("%s %d B: the search for the in-flight window (reported F = %s)", t.Type, p, strconv.FormatFloat(chosen, 'f', -1, 64))
		out = append(out, namedPlot{fmt.Sprintf("throughput_%s_search_%d", t.Type, p),
			plots.CategoryLines(title, "Messages in flight F (each window tried, ascending)", "Median throughput [msg/s]", fcats,
				[]plots.Line{{Name: "median of the step's windows", Y: ys}})})
	}
	return out
}

// ThroughputTable is the headline of throughput results: per sub-experiment,
// payload and load, the samples and the median rate in msg/s and Mb/s.
func ThroughputTable(ts []Throughput) htmlreport.Table {
	t := htmlreport.Table{RowHeaders: true, Caption: "Throughput per sub-experiment and payload (median of the windows)",
		Header: []string{"Sub-experiment", "Payload", "Load", "Samples", "msg/s", "Mb/s"}}
	for _, th := range ts {
		for _, r := range th.Rows {
			load := "F = " + strconv.FormatFloat(r.Offered, 'f', -1, 64)
			if r.Mode == result.ModeRate {
				load = "unpaced"
				if r.Offered > 0 {
					load = strconv.FormatFloat(r.Offered, 'f', -1, 64) + " msg/s offered"
				}
			}
			t.Rows = append(t.Rows, []htmlreport.Cell{{Text: th.Type}, htmlreport.Num(strconv.Itoa(r.Payload) + " B"), {Text: load},
				htmlreport.Num(strconv.Itoa(r.Samples)), htmlreport.Num(strconv.FormatFloat(r.Median, 'f', 0, 64)),
				htmlreport.Num(strconv.FormatFloat(result.Mbps(r.Median, r.Payload), 'f', 1, 64))})
		}
	}
	return t
}

// readSearch reads a search file: the throughput summary's format, a row
// per step (so a payload's window rows repeat, one per F tried).
func readSearch(path string) ([]result.ThroughputRow, error) {
	f, err := fileerr.OpenRegular(path, "a throughput search file")
	if _, ok := fileerr.As(err); ok {
		return nil, err
	}
	if err != nil {
		return nil, fileerr.New(path, 0, "", "cannot read the throughput search: %v", fileerr.Cause(err))
	}
	defer f.Close()
	return result.ReadThroughput(f, path)
}
