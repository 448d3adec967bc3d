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
	"strings"

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
	// Owner is what else wrote this sub-experiment's throughput file, so
	// that its figures say what the rates are (formats §9): "load" (run
	// load: the median of the intervals' receive rates, Offered the rate
	// per publisher), "permessage" (run permessage: the median of RT_n, or
	// the overall receive rate) or "" (run throughput, or a file without
	// its summary). Set by ownThroughputs.
	Owner string
	// Publishers and Interval are the load summary's (Owner "load"): the
	// publishers whose rates add up to the offered total, and the
	// interval of the rate samples in seconds (0: not known).
	Publishers int
	Interval   float64
}

// The owners of a throughput file (Throughput.Owner).
const (
	ownerLoad       = "load"
	ownerPerMessage = "permessage"
)

// ownThroughputs marks the throughput files that a load or per-message
// summary of the same sub-experiment owns, with what their figures need
// from it.
func ownThroughputs(ts []Throughput, loads []Load, pms []PerMessage) {
	for i := range ts {
		t := &ts[i]
		if slices.ContainsFunc(pms, func(pm PerMessage) bool { return pm.Type == t.Type }) {
			t.Owner = ownerPerMessage
		}
		for _, l := range loads {
			if l.Type == t.Type {
				t.Owner, t.Publishers, t.Interval = ownerLoad, l.Parameters.Publishers, l.Parameters.IntervalS
			}
		}
	}
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

// draw saves the figure into dir, unless dir is "", and returns it as SVG
// when svg is set.
func (fig namedPlot) draw(dir string, f plots.Format, svg bool) ([]byte, error) {
	if dir != "" {
		if err := plots.Save(fig.p, filepath.Join(dir, fig.name+f.Ext()), f); err != nil {
			return nil, err
		}
	}
	if !svg {
		return nil, nil
	}
	return plots.SVG(fig.p)
}

// throughputPlots are a sub-experiment's figures: its rate by payload
// (throughput_<type>), one line per load (the window search's F, or each
// offered rate), each named by what its Median column holds (formats §9):
// run throughput's delivered rate over the confirmation periods, run load's
// median of the intervals' receive rates (its offered rate the total of
// every publisher), run permessage's median RT_n; then each payload's
// search (throughput_<type>_search_<payload>: the median of the windows at
// every in-flight window F tried, which is not the delivered rate the
// search ranked the Fs by: the search file does not hold that).
func throughputPlots(t Throughput) []namedPlot {
	var payloads []int
	type load struct {
		mode    string
		offered float64
	}
	var loads []load
	for _, r := range t.Rows {
		payloads = append(payloads, r.Payload)
		l := load{r.Mode, r.Offered}
		if r.Mode == result.ModeWindow {
			l.offered = 0 // each payload has its own F: one line
		}
		if !slices.Contains(loads, l) {
			loads = append(loads, l)
		}
	}
	slices.Sort(payloads)
	payloads = slices.Compact(payloads)
	cats := make([]string, len(payloads))
	for i, p := range payloads {
		cats[i] = strconv.Itoa(p)
	}
	var lines []plots.Line
	var whats []string
	for _, l := range loads {
		y := slices.Repeat([]float64{math.NaN()}, len(payloads))
		for _, r := range t.Rows {
			if r.Mode == l.mode && (l.mode == result.ModeWindow || r.Offered == l.offered) {
				y[slices.Index(payloads, r.Payload)] = r.Median
			}
		}
		what, name := t.lineName(l.mode, l.offered)
		whats = append(whats, what)
		lines = append(lines, plots.Line{Name: name, Y: y})
	}
	// The title says what the lines are when they are one kind (the
	// rows of one run); otherwise each line's name does.
	title := t.Type + ": throughput by payload"
	switch {
	case len(whats) == 0: // no rows: an empty figure
	case !slices.ContainsFunc(whats, func(w string) bool { return w != whats[0] }):
		title = t.Type + ": " + whats[0] + ", by payload"
	default:
		for i := range lines {
			lines[i].Name = whats[i] + ", " + lines[i].Name
		}
	}
	out := []namedPlot{{"throughput_" + t.Type, plots.CategoryLines(title,
		"Payload [Bytes]", "Throughput [msg/s]", cats, lines)}}
	for _, p := range payloads {
		steps := slices.DeleteFunc(slices.Clone(t.Search), func(r result.ThroughputRow) bool { return r.Payload != p || r.Mode != result.ModeWindow })
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
		title := fmt.Sprintf("%s %d B: the search for the in-flight window, ranked by delivered rate (reported F = %s)",
			t.Type, p, strconv.FormatFloat(chosen, 'f', -1, 64))
		out = append(out, namedPlot{fmt.Sprintf("throughput_%s_search_%d", t.Type, p),
			plots.CategoryLines(title, "Messages in flight F (each window tried, ascending)", "Median of the step's windows [msg/s]", fcats,
				[]plots.Line{{Name: "median of the step's windows, not its delivered rate", Y: ys}})})
	}
	return out
}

// lineName is what the Median column of t's rows of a load (mode and
// offered rate) holds, and the load in words.
func (t Throughput) lineName(mode string, offered float64) (what, load string) {
	rate := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	switch {
	case mode == result.ModeWindow:
		return "rate delivered over the confirmation periods", "at the reported F"
	case t.Owner == ownerPerMessage:
		return "median RT_n (or, where it disagrees, the overall receive rate)", "receiver"
	case t.Owner == ownerLoad:
		what = "median receive rate of the intervals"
		if t.Interval > 0 {
			what = "median receive rate of the " + rate(t.Interval) + " s intervals"
		}
		if offered > 0 && t.Publishers > 0 {
			return what, fmt.Sprintf("offered %s msg/s in total (%s per publisher × %d)", rate(offered*float64(t.Publishers)), rate(offered), t.Publishers)
		}
	default:
		what = "median of the samples"
	}
	if offered == 0 {
		return what, "unpaced"
	}
	return what, "offered " + rate(offered) + " msg/s per publisher"
}

// ThroughputTable is the headline of throughput results: per sub-experiment,
// payload and load, the samples and the rate in msg/s and Mb/s: at an
// in-flight window F (run throughput), the delivered rate over the
// confirmation periods (formats §9: not the median of the windows); at a
// rate, the median of the samples. The caption says which the table holds.
func ThroughputTable(ts []Throughput) htmlreport.Table {
	var window, rate bool
	for _, th := range ts {
		for _, r := range th.Rows {
			window, rate = window || r.Mode == result.ModeWindow, rate || r.Mode == result.ModeRate
		}
	}
	var what []string
	if window {
		what = append(what, "at F in flight, the rate delivered over the confirmation periods: their messages over their measured time, not the median of the windows; Samples: the periods")
	}
	if rate {
		what = append(what, "at a rate, the median of the samples")
	}
	caption := "Throughput per sub-experiment and payload"
	if len(what) > 0 {
		caption += " (" + strings.Join(what, "; ") + ")"
	}
	t := htmlreport.Table{RowHeaders: true, Caption: caption,
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
	if err != nil {
		return nil, fileerr.Unreadable(path, "the throughput search", err)
	}
	defer f.Close()
	return result.ReadThroughput(f, path)
}
