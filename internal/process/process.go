package process

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"gonum.org/v1/plot"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/measurements"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats"
	"github.com/mqgate/mqgate/internal/subexp"
)

// HistogramBins is the number of bins of each latency histogram.
const HistogramBins = 100

// MaxJobs is the most payloads processed at once (process --jobs 1 to
// MaxJobs): more workers than cores gain nothing, and a number far beyond
// them (--jobs 1000000000) only spends memory and time starting goroutines.
const MaxJobs = 256

// Options controls what Run produces.
type Options struct {
	// Plots enables the histogram, series and comparison plots.
	Plots bool
	// Format is the plot image format (PNG by default).
	Format plots.Format
	// Workers is the number of payloads processed at once (GOMAXPROCS if
	// 0), at most MaxJobs.
	Workers int
	// Figures keeps every payload's histogram and series as SVG in the
	// results, for the HTML report.
	Figures bool
	// LenientSamples accepts raw files whose Sample column fits neither of
	// formats §2's numberings (gaps, repeats, going back) and payloads
	// whose rows reappear later, which are then summarised together. By
	// default either is an input error.
	LenientSamples bool
	// Listed is what the experiment's meta.json lists (formats §6): a
	// payload of a raw file that it does not list for the file's
	// sub-experiment is an input error, and no summary is written. Nil
	// checks nothing.
	Listed *experiment.Listed
}

// LenientHint ends an error about the Sample column: how to process the
// file anyway.
const LenientHint = "to summarise its rows anyway, whatever their numbering, process it with --lenient-samples"

// Figures are one payload's plots as SVG documents.
type Figures struct {
	Histogram []byte
	Series    []byte
}

// Input is one raw file to process and where its results go.
type Input struct {
	Type     string // sub-experiment type, for labels
	Raw      string // measurements_<type>.csv
	Summary  string // where the summary is written
	PlotsDir string // where its histograms and series go ("" for none)
}

// Result is what was processed for one input.
type Result struct {
	Input
	Rows    []result.SummaryRow // one per payload, in order of first appearance
	Samples int
	Figures []Figures // with Options.Figures: one per row
}

// ExperimentInputs lists the inputs of experiment directory dir with plots
// under plotsDir (experiment.PlotsDir(dir) when empty): its latency raw
// files, then its burst measurements files (burst). It is an error for dir
// to hold neither.
func ExperimentInputs(dir, plotsDir string) (inputs, bursts []Input, err error) {
	files, err := experiment.RawFiles(dir)
	if err != nil {
		return nil, nil, err
	}
	burstFiles, err := experiment.BurstFiles(dir)
	if err != nil {
		return nil, nil, err
	}
	if len(files) == 0 && len(burstFiles) == 0 {
		if tputs, err := experiment.ThroughputFiles(dir); err == nil && len(tputs) > 0 {
			return nil, nil, nil // throughput only: see readThroughputs
		}
		if hint := experiment.RootHint(dir, `process takes one experiment (process PATH); process each: for d in `+dir+`/*/; do process "$d"; done`); hint != "" {
			return nil, nil, fileerr.New(dir, 0, "", "%s", hint)
		}
		return nil, nil, fileerr.New(dir, 0, "", "no measurements_<type>.csv files: expected raw files as written by run "+
			"or Fast-RTPS LatencyTest --export_raw_data (or burst_<type>.csv, written by run burst, or throughput_<type>.csv, "+
			"written by run throughput)%s", burstHint(dir))
	}
	for _, f := range files {
		if err := checkType(f.Type, "measurements_"); err != nil {
			return nil, nil, fileerr.New(f.Path, 0, "", "%v", err)
		}
	}
	for _, f := range burstFiles {
		if err := checkType(f.Type, "burst_"); err != nil {
			return nil, nil, fileerr.New(f.Path, 0, "", "%v", err)
		}
	}
	plotsDir = cmp.Or(plotsDir, experiment.PlotsDir(dir))
	for _, f := range files {
		if err := checkHeader(f.Path); err != nil {
			return nil, nil, err
		}
		inputs = append(inputs, Input{
			Type:     f.Type,
			Raw:      f.Path,
			Summary:  filepath.Join(dir, experiment.SummaryFileName(f.Type)),
			PlotsDir: filepath.Join(plotsDir, "measurements_"+f.Type),
		})
	}
	for _, f := range burstFiles {
		bursts = append(bursts, Input{Type: f.Type, Raw: f.Path, Summary: filepath.Join(dir, experiment.BurstSummaryFileName(f.Type)),
			PlotsDir: filepath.Join(plotsDir, "burst_"+f.Type)})
	}
	return inputs, bursts, nil
}

// checkType checks that a raw file's type is a formats §1 sub-experiment
// name: its summary's name, and every tool after process, depend on it.
// prefix is the file's kind ("measurements_", "burst_"), which the error
// names (a burst file was told to be measurements_<type>.csv).
func checkType(t, prefix string) error {
	if subexp.Valid(t) {
		return nil
	}
	return fmt.Errorf("%q is not a sub-experiment name: expected %s<type>.csv with <type> "+
		subexp.Grammar+" (formats §1), e.g. %sinterprocess_reliable.csv; rename the file", t, prefix, prefix)
}

// job is one payload's samples on their way to a worker.
type job struct {
	file      int
	index     int // the payload's position in its file
	payload   int
	samples   []float64
	firstLine int   // the line of samples[0]; the others follow it
	lines     []int // the line of each sample, when they do not follow each other
	recycle   chan []float64
}

// line returns the line of sample i.
func (j *job) line(i int) int {
	if j.lines != nil {
		return j.lines[i]
	}
	return j.firstLine + i
}

// fileState collects one file's rows, and their figures, as workers finish
// them.
type fileState struct {
	mu      sync.Mutex
	rows    []result.SummaryRow
	figures []Figures  // one per row
	plots   []plotFile // rendered, saved once every input was read
	samples int
}

// plotFile is a plot rendered in its file's format, and the file.
type plotFile struct {
	path string
	data []byte
}

// Summarise processes inputs and writes their summaries (and plots when asked).
// It returns the results in input order. Every file is replaced only by
// the rename of a complete temporary file (atomicfile), so that an earlier
// summary stays as it was until its replacement is ready: a process killed
// at any point leaves each summary and plot either as it was or completely
// new. On the first error Run stops and writes no summary; when a raw file
// could not be read or summarised, its earlier summary, which no longer
// describes it, is then removed. An interruption (ctx cancelled) leaves
// every earlier summary as it was.
func Summarise(ctx context.Context, inputs []Input, opt Options) ([]Result, error) {
	opt.Format = cmp.Or(opt.Format, plots.FormatPNG)
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, MaxJobs)
	for _, in := range inputs {
		if fi, err := os.Stat(in.Summary); err == nil && fi.IsDir() {
			return nil, fileerr.New(in.Summary, 0, "", "is a directory; expected the summary file's name")
		}
	}
	parent := ctx
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	s := &summariser{ctx: ctx, cancel: cancel, inputs: inputs, opt: opt, states: make([]fileState, len(inputs)), jobs: make(chan job)}

	var wg sync.WaitGroup
	for range workers {
		wg.Go(s.work)
	}
	// Readers: one file at a time each, as many as workers but no more
	// than files.
	files := make(chan int, len(inputs))
	for i := range inputs {
		files <- i
	}
	close(files)
	var rwg sync.WaitGroup
	for range min(workers, len(inputs)) {
		rwg.Go(func() { s.read(files) })
	}
	rwg.Wait()
	close(s.jobs)
	wg.Wait()

	if err := context.Cause(ctx); err != nil {
		return nil, s.failed(parent, err)
	}
	// The plots too were held until every input was read: a bad row in a
	// later payload leaves no plot of an earlier one behind.
	for i := range s.states {
		for _, pf := range s.states[i].plots {
			if err := atomicfile.Write(pf.path, func(w io.Writer) error { _, err := w.Write(pf.data); return err }); err != nil {
				return nil, err
			}
		}
	}
	results := s.results()
	for _, r := range results {
		// Replacing a summary keeps its permissions (atomicfile).
		if err := result.WriteSummaryFile(r.Summary, r.Rows); err != nil {
			return nil, err
		}
	}
	return results, nil
}

// summariser is one Summarise: its readers hand payloads to its workers
// (jobs), which fill in states, one per input; the first error cancels
// ctx with its cause.
type summariser struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	inputs []Input
	opt    Options
	states []fileState
	jobs   chan job
}

// work is a worker: it summarises (and plots) each payload it is handed.
func (s *summariser) work() {
	var scratch stats.Scratch
	for j := range s.jobs {
		sm := stats.Summarize(j.samples, &scratch)
		if err := stats.CheckRange(sm, j.samples); err != nil {
			s.cancel(&inputError{j.file, rangeError(s.inputs[j.file].Raw, &j, err)})
		}
		st := &s.states[j.file]
		st.mu.Lock()
		st.rows[j.index] = result.SummaryRow{Bytes: j.payload, Summary: sm}
		st.mu.Unlock()
		if (s.opt.Plots || s.opt.Figures) && s.ctx.Err() == nil {
			s.plot(&j, st)
		}
		j.recycle <- j.samples[:0]
	}
}

// plot draws the figures of payload j: rendered into st's plots when plots
// are asked for, and kept in st as SVG when figures are.
func (s *summariser) plot(j *job, st *fileState) {
	opt := s.opt
	var fig Figures
	var files []plotFile
	for k, np := range payloadPlots(s.inputs[j.file].Type, j.payload, j.samples) {
		if opt.Plots {
			path := filepath.Join(s.inputs[j.file].PlotsDir, np.name+opt.Format.Ext())
			var b bytes.Buffer
			if err := plots.Encode(&b, np.p, opt.Format); err != nil {
				s.cancel(fmt.Errorf("cannot render %s: %w", path, err))
				return
			}
			files = append(files, plotFile{path, b.Bytes()})
		}
		if opt.Figures {
			svg, err := plots.SVG(np.p)
			if err != nil {
				s.cancel(err)
				return
			}
			if k == 0 {
				fig.Histogram = svg
			} else {
				fig.Series = svg
			}
		}
	}
	st.mu.Lock()
	if opt.Figures {
		st.figures[j.index] = fig
	}
	st.plots = append(st.plots, files...)
	st.mu.Unlock()
}

// read is a reader: it streams each file of files to the workers.
func (s *summariser) read(files <-chan int) {
	// Two buffers per reader: one being filled, one at a worker.
	recycle := make(chan []float64, 2)
	recycle <- nil
	recycle <- nil
	for i := range files {
		if s.ctx.Err() != nil {
			return
		}
		in := s.inputs[i]
		admit := func(line, payload int) error {
			if err := s.opt.Listed.Payload(in.Raw, line, in.Type, payload); err != nil {
				return notListed{err}
			}
			return nil
		}
		if err := readFile(s.ctx, i, in.Raw, s.opt.LenientSamples, admit, &s.states[i], s.jobs, recycle); err != nil {
			if nl, ok := errors.AsType[notListed](err); ok {
				// The raw file is not of this run: its summary, if
				// any, is left as it was, like every other file.
				s.cancel(nl.error)
				return
			}
			s.cancel(&inputError{i, err})
			return
		}
	}
}

// failed returns the error err that stopped the summaries; unless parent
// was cancelled, the earlier summary of a raw file that could not be read
// is removed first.
func (s *summariser) failed(parent context.Context, err error) error {
	var ie *inputError
	if parent.Err() != nil || !errors.As(err, &ie) {
		return err
	}
	// Only now, with no replacement to come: the summary of a raw
	// file that could not be read does not describe it.
	summary := s.inputs[ie.file].Summary
	if fi, statErr := os.Lstat(summary); statErr == nil && !fi.IsDir() {
		if rmErr := os.Remove(summary); rmErr != nil && !errors.Is(rmErr, fs.ErrNotExist) {
			return fmt.Errorf("%w (and the earlier summary %s, which no longer describes it, could not be removed: %v)",
				ie.err, summary, rmErr)
		}
	}
	return ie.err
}

// results are the summaries of the inputs, in input order.
func (s *summariser) results() []Result {
	results := make([]Result, len(s.inputs))
	for i, in := range s.inputs {
		st := &s.states[i]
		results[i] = Result{Input: in, Rows: st.rows, Samples: st.samples}
		if s.opt.Figures {
			results[i].Figures = st.figures
		}
	}
	return results
}

// inputError is an error in reading or summarising the raw file
// inputs[file].
type inputError struct {
	file int
	err  error
}

func (e *inputError) Error() string { return e.err.Error() }
func (e *inputError) Unwrap() error { return e.err }

// notListed is a payload of a raw file that meta.json does not list.
type notListed struct{ error }

// rangeError locates a *stats.RangeError of job j in file.
func rangeError(file string, j *job, err error) error {
	var re *stats.RangeError
	if !errors.As(err, &re) {
		return err
	}
	return fileerr.New(file, j.line(re.Index), measurements.ColLatency, "payload %d: %v", j.payload, re)
}

// errNotContiguous reports a payload that reappears after another one.
var errNotContiguous = errors.New("payload rows are not contiguous")

// readFile streams file i, sending each payload's samples to the workers.
// Payloads are contiguous (formats §2); when lenient allows one to reappear
// later, the file is read again once per payload, which keeps memory at one
// payload while giving the same result as grouping it all.
func readFile(ctx context.Context, i int, path string, lenient bool, admit func(line, payload int) error,
	st *fileState, jobs chan<- job, recycle chan []float64) error {
	payloads, err := streamGroups(ctx, i, path, lenient, admit, st, jobs, recycle, 0)
	if !errors.Is(err, errNotContiguous) {
		return err
	}
	// Take both buffers back, so that no worker still writes a row of the
	// discarded first pass, then start over.
	a, b := <-recycle, <-recycle
	st.mu.Lock()
	st.rows, st.figures, st.samples = nil, nil, 0
	st.mu.Unlock()
	recycle <- a
	recycle <- b
	for _, p := range payloads {
		// The first pass admitted every payload.
		if _, err := streamGroups(ctx, i, path, lenient, nil, st, jobs, recycle, p); err != nil {
			return err
		}
	}
	return nil
}

// streamGroups reads path. With only == 0 it sends every contiguous payload
// group and returns errNotContiguous (with every payload, in order) if a
// payload reappears; with only > 0 it collects and sends just that payload.
// admit, unless nil, is asked about each payload at the line where it
// first appears.
func streamGroups(ctx context.Context, i int, path string, lenient bool, admit func(line, payload int) error, st *fileState, jobs chan<- job,
	recycle chan []float64, only int) ([]int, error) {
	r, f, err := openRaw(path, lenient)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	g := &groupSender{ctx: ctx, file: i, st: st, jobs: jobs, recycle: recycle, buf: (<-recycle)[:0]}
	defer func() { recycle <- g.buf }()
	seen := map[int]bool{}
	var order []int
	split := false
	for r.Next() {
		s := r.Sample()
		if only > 0 {
			if s.Payload == only {
				g.buf = append(g.buf, s.Latency)
				g.lines = append(g.lines, r.Line())
			}
			continue
		}
		if s.Payload != g.cur {
			if seen[s.Payload] {
				split = true
			} else if admit != nil {
				if err := admit(r.Line(), s.Payload); err != nil {
					return nil, err
				}
			}
			if !split && g.cur != 0 {
				if err := g.send(); err != nil {
					return nil, err
				}
				g.buf = g.buf[:0]
			}
			g.cur = s.Payload
			g.first = r.Line()
			if !seen[g.cur] {
				seen[g.cur] = true
				order = append(order, g.cur)
			}
		}
		if !split {
			g.buf = append(g.buf, s.Latency)
		}
		if r.Line()&0xffff == 0 && ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	if split {
		return order, errNotContiguous
	}
	if only > 0 {
		g.cur = only
	}
	if len(g.buf) > 0 {
		if err := g.send(); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// openRaw opens the raw measurements file at path for reading.
func openRaw(path string, lenient bool) (*measurements.Reader, *os.File, error) {
	f, err := fileerr.OpenRegular(path, "a raw measurements file")
	if err != nil {
		return nil, nil, fileerr.Unreadable(path, "raw measurements", err)
	}
	r := measurements.NewReader(f, path)
	r.SetLenientSamples(lenient)
	r.SetSampleHint(LenientHint)
	return r, f, nil
}

// groupSender hands the samples of one payload group at a time, buf, of
// file to the workers, taking a buffer back from recycle for the next.
type groupSender struct {
	ctx     context.Context
	file    int
	st      *fileState
	jobs    chan<- job
	recycle chan []float64
	buf     []float64
	cur     int   // the payload of buf
	first   int   // the line of buf[0]
	lines   []int // with only > 0, the line of each sample
}

// send hands buf to a worker as the next row of the file; interrupted, it
// keeps buf, for streamGroups to give back.
func (g *groupSender) send() error {
	st := g.st
	st.mu.Lock()
	idx := len(st.rows)
	st.rows = append(st.rows, result.SummaryRow{})
	st.figures = append(st.figures, Figures{})
	st.samples += len(g.buf)
	st.mu.Unlock()
	select {
	case g.jobs <- job{file: g.file, index: idx, payload: g.cur, samples: g.buf, firstLine: g.first, lines: g.lines, recycle: g.recycle}:
	case <-g.ctx.Done():
		return context.Cause(g.ctx)
	}
	g.buf = (<-g.recycle)[:0]
	return nil
}

// payloadPlots are one payload's histogram and series, titled with the
// sub-experiment typ, in the order of Figures' fields.
func payloadPlots(typ string, payload int, samples []float64) [2]namedPlot {
	p := strconv.Itoa(payload)
	what := p + " Bytes"
	if typ != "" {
		what = typ + " - " + what
	}
	return [2]namedPlot{
		{"histogram_" + p, plots.Histogram(samples, HistogramBins, "Latency histogram - "+what)},
		{"series_" + p, plots.Series(samples, plots.SeriesPoints, "Latency series - "+what)},
	}
}

// Comparison is one of the sub-experiment comparison plots.
type Comparison struct {
	Column string // summary column: Min, Median, Max, 99%
	Name   string // file name stem: comparison_min, ...
	Title  string
}

// Comparisons are the four comparison plots, as the Fast-RTPS job names them.
var Comparisons = []Comparison{
	{"Min", "comparison_min", "Minimum latency by sub-experiment and payload"},
	{"Median", "comparison_median", "Median latency by sub-experiment and payload"},
	{"Max", "comparison_max", "Maximum latency by sub-experiment and payload"},
	{"99%", "comparison_99", "99th percentile latency by sub-experiment and payload"},
}

// ComparisonPlot draws comparison c of results as a heat map: a row per
// sub-experiment, in order, a column per payload, ascending, each cell the
// column c of that payload's summary, written in it, and the highest of
// each payload outlined when the sub-experiments differ there. Ten lines
// on one axis tangle (the maxima jump by decades from payload to payload);
// ten rows of cells stay apart.
func ComparisonPlot(results []Result, c Comparison) *plot.Plot {
	payloads := payloadsOf(results)
	cats := make([]string, len(payloads))
	for i, p := range payloads {
		cats[i] = strconv.Itoa(p)
	}
	rows := make([]plots.HeatRow, len(results))
	lo, hi := slices.Repeat([]float64{math.Inf(1)}, len(payloads)), slices.Repeat([]float64{math.Inf(-1)}, len(payloads))
	for i, r := range results {
		y := slices.Repeat([]float64{math.NaN()}, len(payloads))
		for _, row := range r.Rows {
			k := slices.Index(payloads, row.Bytes)
			y[k], _ = row.Get(c.Column)
			lo[k], hi[k] = min(lo[k], y[k]), max(hi[k], y[k])
		}
		rows[i] = plots.HeatRow{Name: r.Type, Values: y}
	}
	marked := false
	for i := range rows {
		rows[i].Marked = make([]bool, len(payloads))
		for k, v := range rows[i].Values {
			rows[i].Marked[k] = v == hi[k] && hi[k] > lo[k]
			marked = marked || rows[i].Marked[k]
		}
	}
	p := plots.HeatMap(c.Title, "Payload [Bytes]", cats, rows, result.Micros)
	if marked {
		p.Legend.Add("highest at its payload", plots.MarkedCellThumbnail{})
	}
	return p
}

// ComparisonPlots writes the four comparison plots of results into dir.
func ComparisonPlots(dir string, results []Result, f plots.Format) error {
	for _, c := range Comparisons {
		if err := plots.Save(ComparisonPlot(results, c), filepath.Join(dir, c.Name+f.Ext()), f); err != nil {
			return fmt.Errorf("comparison plot: %w", err)
		}
	}
	return nil
}

// payloadsOf lists, in increasing order, every payload a row of results
// holds.
func payloadsOf(results []Result) []int {
	var payloads []int
	for _, r := range results {
		for _, row := range r.Rows {
			payloads = append(payloads, row.Bytes)
		}
	}
	slices.Sort(payloads)
	return slices.Compact(payloads)
}
