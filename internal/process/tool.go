package process

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/clobber"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/htmlreport"
	"github.com/mqgate/mqgate/internal/loadsummary"
	"github.com/mqgate/mqgate/internal/permessagefile"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/result"
)

// Config is one invocation of the process tool, as its command line gives
// it (internal/cliapp/processcmd). The zero value of a field is the flag's
// default.
type Config struct {
	Dirs           []string // EXPERIMENT_DIR: exactly one, or none with RawCSV
	RawCSV         string   // --raw-csv: one raw file, Fast-RTPS script style
	OutputCSV      string   // --output-csv: its summary file
	OutputCSVSet   bool     // --output-csv was given (even empty, which is refused)
	PlotsDirectory string   // --plots-directory: "" for the default
	NoPlots        bool     // --no-plots
	Format         string   // --format: png or svg
	FormatSet      bool     // --format was given (with NoPlots, refused)
	Jobs           int      // --jobs: payloads at once, 0 for the number of CPUs
	JobsSet        bool     // --jobs was given (then 0 is refused)
	HTML           string   // --html: the report file, "" for none
	LenientSamples bool     // --lenient-samples
	Quiet          bool     // --quiet: print nothing but errors
	// Label is what --sut-name, --sut-version and --start say of the
	// experiment folder, for its meta.json; ToolVersion is this program's
	// version, written in a new meta.json.
	Label       Label
	ToolVersion string
}

// Run does what the process command does for cfg: it checks cfg and every
// output path before writing anything, summarises (Summarise), plots, writes
// the HTML report, and prints its progress lines to stdout. Errors carry
// their exit code (package exit).
func Run(ctx context.Context, cfg Config, stdout io.Writer) error {
	j, err := newInvocation(cfg, stdout)
	if err != nil {
		return err
	}
	if done, err := j.findInputs(); err != nil || done {
		return err
	}
	if err := j.checkOutputs(); err != nil {
		return err
	}
	if err := j.readInputs(); err != nil {
		return err
	}
	start := time.Now()
	if err := j.summarise(ctx); err != nil {
		return err
	}
	for _, phase := range []func() error{j.writeBursts, j.drawFolder, j.writeComparisons, j.writeHTML, j.writeMeta} {
		if err := phase(); err != nil {
			return err
		}
	}
	j.printTotals(start)
	return nil
}

// invocation is one run of the process tool: its configuration, what it
// read and what it wrote, passed from phase to phase of Run.
type invocation struct {
	cfg     Config
	opt     Options
	format  plots.Format
	out     io.Writer
	dirMode bool // an experiment folder, not --raw-csv

	inputs, bursts []Input
	burstRows      [][]result.BurstRow // the rows of each of bursts
	loads          []Load
	tputs          []Throughput
	pms            []PerMessage
	labelled       *metaPlan
	results        []Result
	plots          int // the plots of bursts, throughputs, loads and permessage files
}

// newInvocation checks the flags of cfg that need no file.
func newInvocation(cfg Config, stdout io.Writer) (*invocation, error) {
	format, err := plots.ParseFormat(cfg.Format)
	if err != nil {
		return nil, exit.Usagef("--format: %v", err)
	}
	if cfg.NoPlots && cfg.PlotsDirectory != "" {
		// Honouring either flag would ignore the other in silence.
		return nil, exit.Usagef("--no-plots and --plots-directory %s contradict each other: --no-plots writes no plots, "+
			"so --plots-directory has nothing to hold; drop one of the two", cfg.PlotsDirectory)
	}
	if cfg.NoPlots && cfg.FormatSet {
		return nil, exit.Usagef("--no-plots and --format %s contradict each other: --no-plots writes no plots, "+
			"so --format has none to set; drop one of the two", cfg.Format)
	}
	if jobs := cfg.Jobs; cfg.JobsSet && (jobs < 1 || jobs > MaxJobs) {
		return nil, exit.Usagef("--jobs %d: expected 1 to %d payloads processed at once (without --jobs: the number of CPUs, at most %d)",
			jobs, MaxJobs, MaxJobs)
	}
	opt := Options{Plots: !cfg.NoPlots, Format: format, Workers: cfg.Jobs, Figures: cfg.HTML != "",
		LenientSamples: cfg.LenientSamples}
	return &invocation{cfg: cfg, opt: opt, format: format, out: stdout}, nil
}

// findInputs finds the raw and burst files to process: the one --raw-csv
// file, or those of the experiment folder. done reports that the folder
// holds only summaries and a label was given: then findInputs has written
// the folder's meta.json (labelOnly), and Run is done.
func (j *invocation) findInputs() (done bool, err error) {
	cfg := j.cfg
	switch raw := cfg.RawCSV; {
	case raw != "" && len(cfg.Dirs) > 0:
		return false, exit.Usagef("give either EXPERIMENT_DIR or --raw-csv, not both")
	case raw == "" && len(cfg.Dirs) == 0:
		return false, exit.Usagef("EXPERIMENT_DIR (or --raw-csv FILE) is required (see 'process --help')")
	case len(cfg.Dirs) > 1:
		return false, exit.Usagef("one EXPERIMENT_DIR at a time, got %d: %s", len(cfg.Dirs), strings.Join(cfg.Dirs, " "))
	case raw != "" && cfg.Label.Given():
		return false, exit.Usagef("--sut-name, --sut-version and --start label an experiment folder (its meta.json): give EXPERIMENT_DIR instead of --raw-csv")
	case raw != "":
		return false, j.takeRawFile(raw)
	case cfg.OutputCSVSet:
		return false, exit.Usagef("--output-csv %s is for --raw-csv FILE: with EXPERIMENT_DIR each summary is written "+
			"beside its raw file as measurements_<type>_summary.csv (drop --output-csv, or give --raw-csv)", cfg.OutputCSV)
	}
	j.dirMode = true
	if cfg.Label.Given() {
		if j.labelled, err = planMeta(cfg.Dirs[0], cfg.Label, cfg.ToolVersion); err != nil {
			return false, exit.With(exit.Usage, err)
		}
		if summariesOnly(cfg.Dirs[0]) {
			return true, labelOnly(cfg, j.labelled, j.out)
		}
	}
	j.inputs, j.bursts, err = ExperimentInputs(cfg.Dirs[0], cfg.PlotsDirectory)
	return false, err
}

// takeRawFile takes the --raw-csv file raw as the one input, a latency or
// a burst measurements file.
func (j *invocation) takeRawFile(raw string) error {
	cfg := j.cfg
	if cfg.OutputCSVSet && cfg.OutputCSV == "" {
		return exit.Usagef("--output-csv is empty")
	}
	in := rawInput(raw, cfg.OutputCSV, cfg.PlotsDirectory)
	if sameFile(in.Raw, in.Summary) {
		return exit.Usagef("--output-csv %s is the raw file itself: give another summary file", in.Summary)
	}
	j.inputs = []Input{in}
	if isBurstFile(in.Raw) {
		j.inputs, j.bursts = nil, j.inputs
	} else if err := checkHeader(in.Raw); err != nil {
		return exit.With(exit.Usage, err)
	}
	return nil
}

// checkOutputs refuses an output over an input or a file the pipeline
// owns, and an output path that cannot be written (a directory where a
// file goes, a file or looping link where a directory goes), before
// anything is removed or written. The errors name the flag that gave the
// path, if one did.
func (j *invocation) checkOutputs() error {
	cfg := j.cfg
	all := slices.Concat(j.inputs, j.bursts)
	var guard clobber.Guard
	summaryFlag, plotsFlag := "", ""
	if j.dirMode {
		guard.Experiment("EXPERIMENT_DIR", cfg.Dirs[0])
	} else {
		summaryFlag = "--output-csv"
		guard.File("--raw-csv", all[0].Raw)
		if ownSummary(all[0]) {
			guard.OwnedOutput("--output-csv", all[0].Summary)
		} else {
			guard.Output("--output-csv", all[0].Summary)
		}
	}
	guard.Output("--html", cfg.HTML)
	if cfg.PlotsDirectory != "" {
		plotsFlag = "--plots-directory"
	}
	if dir := j.plotsRoot(all); dir != "" {
		// Every image of the plots' format below it may be a plot: a
		// summary or report there would be replaced by one, or replace it.
		ext := j.opt.Format.Ext()
		guard.OutputDir(cmp.Or(plotsFlag, "the plots directory"), dir, "its plots, the "+ext+" files below it",
			func(rel string) bool { return strings.HasSuffix(rel, ext) })
	}
	if err := guard.Check(); err != nil {
		return err
	}
	named := func(flag string, err error) error {
		if flag != "" {
			return exit.Usagef("%s: %v", flag, err)
		}
		return exit.With(exit.Usage, err)
	}
	if cfg.HTML != "" {
		if err := atomicfile.CheckFile(cfg.HTML); err != nil {
			return named("--html", err)
		}
	}
	for _, in := range all {
		if err := atomicfile.CheckFile(in.Summary); err != nil {
			return named(summaryFlag, err)
		}
		if j.opt.Plots && in.PlotsDir != "" {
			if err := atomicfile.CheckDir(in.PlotsDir); err != nil {
				return named(plotsFlag, err)
			}
		}
	}
	return nil
}

// readInputs reads and checks every input but the raw latency files (which
// Summarise reads before it writes), so that a malformed one is refused
// before any summary or plot is written.
func (j *invocation) readInputs() (err error) {
	if j.dirMode {
		// A malformed load summary, and data meta.json does not list, are
		// refused before any summary or plot is written.
		dir := j.cfg.Dirs[0]
		if j.loads, err = readLoads(dir); err != nil {
			return exit.With(exit.Usage, err)
		}
		if j.tputs, err = readThroughputs(dir); err != nil {
			return exit.With(exit.Usage, err)
		}
		if j.pms, err = readPerMessages(dir); err != nil {
			return exit.With(exit.Usage, err)
		}
		ownThroughputs(j.tputs, j.loads, j.pms)
		if j.opt.Listed, err = admitListed(dir, slices.Concat(j.inputs, j.bursts), j.tputs, j.loads, j.pms); err != nil {
			return exit.With(exit.Usage, err)
		}
		if err := admitMeasured(dir, j.inputs); err != nil {
			return exit.With(exit.Usage, err)
		}
	}
	// A malformed burst file too is refused before anything is written.
	j.burstRows = make([][]result.BurstRow, len(j.bursts))
	for i, in := range j.bursts {
		if j.burstRows[i], err = readBurst(in); err != nil {
			return exit.With(exit.Usage, err)
		}
		// Its payloads are meta.json's, as a raw file's are (admitListed).
		for _, r := range j.burstRows[i] {
			if err := j.opt.Listed.Payload(in.Raw, 0, in.Type, r.Payload); err != nil {
				return exit.With(exit.Usage, err)
			}
		}
	}
	if !j.opt.Plots {
		for _, ins := range [][]Input{j.inputs, j.bursts} {
			for i := range ins {
				ins[i].PlotsDir = ""
			}
		}
	}
	return nil
}

// printf prints a progress line, unless --quiet.
func (j *invocation) printf(format string, args ...any) {
	if !j.cfg.Quiet {
		fmt.Fprintf(j.out, format, args...)
	}
}

// summarise writes the summaries and plots of the raw latency files.
func (j *invocation) summarise(ctx context.Context) (err error) {
	j.results, err = Summarise(ctx, j.inputs, j.opt)
	if err != nil {
		if ctx.Err() != nil {
			return exit.With(exit.Interrupted, fmt.Errorf("interrupted; no summary written, the earlier ones are as they were"))
		}
		return err
	}
	for _, r := range j.results {
		j.printf("%s: %d payloads, %s samples -> %s\n", r.Raw, len(r.Rows), result.Count(r.Samples), r.Summary)
	}
	return nil
}

// writeBursts writes the summaries and plots of the burst files.
func (j *invocation) writeBursts() error {
	for i, in := range j.bursts {
		rows := j.burstRows[i]
		if err := writeBurst(in, rows, j.format); err != nil {
			return exit.With(exit.Usage, err)
		}
		payloads := map[int]bool{}
		for _, r := range rows {
			payloads[r.Payload] = true
		}
		j.plots += 2 * len(payloads)
		if !j.cfg.Quiet && firstLine(in.Raw) == OldBurstHeader {
			j.printf("%s\n", oldHeaderNote(in.Raw))
		}
		j.printf("%s: %s test cases -> %s\n", in.Raw, result.Count(len(rows)), in.Summary)
	}
	return nil
}

// plotsRoot is the folder below which process draws: the experiment
// folder's plots folder, or the one raw file's; "" with --no-plots.
func (j *invocation) plotsRoot(all []Input) string {
	switch {
	case !j.opt.Plots:
		return ""
	case j.dirMode:
		return j.folderPlotsDir()
	case len(all) > 0:
		return all[0].PlotsDir
	}
	return ""
}

// folderPlotsDir is where the plots of the experiment folder's own files
// (not of one raw file) go.
func (j *invocation) folderPlotsDir() string {
	return cmp.Or(j.cfg.PlotsDirectory, experiment.PlotsDir(j.cfg.Dirs[0]))
}

// drawFolder draws the figures of the folder's throughput, load and
// permessage summaries.
func (j *invocation) drawFolder() error {
	if !j.dirMode {
		return nil
	}
	dir := ""
	if j.opt.Plots {
		dir = j.folderPlotsDir()
	}
	svg := j.opt.Figures
	if err := drawEach(&j.plots, j.tputs, throughputPlots, (*Throughput).figures, dir, j.format, svg); err != nil {
		return exit.With(exit.Usage, err)
	}
	for _, t := range j.tputs {
		j.printf("%s: %s rows (%s search steps) -> plots\n", t.Path, result.Count(len(t.Rows)), result.Count(len(t.Search)))
	}
	if err := drawEach(&j.plots, j.loads, loadPlots, (*Load).figures, dir, j.format, svg); err != nil {
		return exit.With(exit.Usage, err)
	}
	if err := drawEach(&j.plots, j.pms, perMessagePlots, (*PerMessage).figures, dir, j.format, svg); err != nil {
		return exit.With(exit.Usage, err)
	}
	for _, l := range j.loads {
		j.printf("%s: %d payloads -> plots\n", l.Path, len(l.Payloads))
		j.printLoadNotes(l)
	}
	for _, pm := range j.pms {
		j.printf("%s: %d payloads -> plots\n", pm.Path, len(pm.payloads()))
	}
	return nil
}

// writeComparisons draws the folder's comparison plots of its raw files.
func (j *invocation) writeComparisons() error {
	if !j.dirMode || !j.opt.Plots || len(j.inputs) == 0 {
		return nil
	}
	return ComparisonPlots(j.folderPlotsDir(), j.results, j.format)
}

// writeHTML writes the --html report, if asked for.
func (j *invocation) writeHTML() error {
	htmlPath := j.cfg.HTML
	if htmlPath == "" {
		return nil
	}
	expDir := ""
	if j.dirMode {
		expDir = j.cfg.Dirs[0]
	}
	page, err := Page(expDir, Folder{Results: j.results, Throughputs: j.tputs, Loads: j.loads, PerMessages: j.pms})
	if err != nil {
		return err
	}
	if err := htmlreport.WriteFile(htmlPath, page); err != nil {
		return err
	}
	j.printf("HTML report: %s\n", htmlPath)
	return nil
}

// writeMeta writes the folder's labelled meta.json, if a label was given.
func (j *invocation) writeMeta() error {
	if j.labelled == nil {
		return nil
	}
	if err := j.labelled.write(); err != nil {
		return exit.With(exit.Usage, err)
	}
	j.printf("%s: %s\n", j.labelled.path, j.labelled.what)
	return nil
}

// printTotals prints how many plots were written where, and how many files
// were processed since start.
func (j *invocation) printTotals(start time.Time) {
	if j.cfg.Quiet {
		return
	}
	if j.opt.Plots {
		n := j.plots
		for _, r := range j.results {
			n += 2 * len(r.Rows)
		}
		if j.dirMode && len(j.inputs) > 0 {
			n += len(Comparisons)
		}
		var dir string
		switch all := slices.Concat(j.inputs, j.bursts); {
		case len(all) > 0 && j.dirMode:
			dir = filepath.Dir(all[0].PlotsDir)
		case len(all) > 0:
			dir = all[0].PlotsDir
		default:
			dir = j.folderPlotsDir()
		}
		fmt.Fprintf(j.out, "%s plots in %s\n", result.Count(n), dir)
	}
	fmt.Fprintf(j.out, "processed %d file(s) in %.2fs\n",
		len(j.results)+len(j.bursts)+len(j.tputs)+len(j.loads)+len(j.pms), time.Since(start).Seconds())
}

// admitListed reads what the meta.json of experiment dir lists (formats
// §6) and refuses a raw file, throughput summary, load summary or
// per-message summary of a sub-experiment it does not list, or holding a
// payload it does not list: data of another run in the folder. The raw
// files' payloads are checked as they are read (Options.Listed).
func admitListed(dir string, inputs []Input, tputs []Throughput, loads []Load, pms []PerMessage) (*experiment.Listed, error) {
	listed, err := experiment.ReadListed(dir)
	if err != nil || listed == nil {
		return nil, err
	}
	for _, in := range inputs {
		if err := listed.Type(in.Raw, in.Type); err != nil {
			return nil, err
		}
	}
	for _, t := range tputs {
		if err := experiment.CheckRows(listed, t.Path, t.Type, t.Rows, func(r result.ThroughputRow) int { return r.Payload }, true); err != nil {
			return nil, err
		}
	}
	for _, l := range loads {
		if err := experiment.CheckRows(listed, l.Path, l.Type, l.Payloads, func(p loadsummary.PayloadSummary) int { return p.Payload }, false); err != nil {
			return nil, err
		}
	}
	for _, pm := range pms {
		if err := experiment.CheckRows(listed, pm.Path, pm.Type, pm.Rows, func(r permessagefile.Row) int { return r.Payload }, true); err != nil {
			return nil, err
		}
	}
	return listed, nil
}

// admitMeasured refuses a raw file of inputs holding fewer samples than the
// meta.json of experiment dir says its run measured (checkMeasured), before
// a summary or plot is written: its earlier summary, of the whole file
// perhaps, is left as it was.
func admitMeasured(dir string, inputs []Input) error {
	byType, err := readMeasured(dir)
	if err != nil || byType == nil {
		return err
	}
	for _, in := range inputs {
		if w, ok := byType[in.Type]; ok {
			if err := checkMeasured(in.Raw, w); err != nil {
				return err
			}
		}
	}
	return nil
}

// rawInput is the Fast-RTPS single-file mode: defaults follow that script's
// job layout (summary beside the raw file, plots in plots/<raw name>).
func rawInput(raw, output, plotsDir string) Input {
	stem := strings.TrimSuffix(filepath.Base(raw), filepath.Ext(raw))
	output = cmp.Or(output, filepath.Join(filepath.Dir(raw), stem+"_summary.csv"))
	plotsDir = cmp.Or(plotsDir, filepath.Join(filepath.Dir(raw), "plots", stem))
	typ, ok := experiment.TypeOfRaw(raw)
	if !ok {
		typ = stem
	}
	return Input{Type: typ, Raw: raw, Summary: output, PlotsDir: plotsDir}
}

// ownSummary reports whether in's summary is the one process writes beside
// its raw file measurements_<type>.csv, measurements_<type>_summary.csv: a
// file the pipeline owns that process writes by its role. Any other
// --output-csv is a report, refused over a file the pipeline owns in an
// experiment folder (formats §1).
func ownSummary(in Input) bool {
	own := func(name string) bool {
		return clobber.Canonical(in.Summary) == clobber.Canonical(filepath.Join(filepath.Dir(in.Raw), name))
	}
	if typ, ok := experiment.TypeOfBurst(in.Raw); ok {
		return own(experiment.BurstSummaryFileName(typ))
	}
	typ, ok := experiment.TypeOfRaw(in.Raw)
	return ok && own(experiment.SummaryFileName(typ))
}

// sameFile reports whether a and b name the same file, as paths or, when
// both exist, as files.
func sameFile(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}
