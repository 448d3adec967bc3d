package process

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/clobber"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/htmlreport"
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
	format, err := plots.ParseFormat(cfg.Format)
	if err != nil {
		return exit.Usagef("--format: %v", err)
	}
	if jobs := cfg.Jobs; cfg.JobsSet && (jobs < 1 || jobs > MaxJobs) {
		return exit.Usagef("--jobs %d: expected 1 to %d payloads processed at once (without --jobs: the number of CPUs, at most %d)",
			jobs, MaxJobs, MaxJobs)
	}
	htmlPath := cfg.HTML
	opt := Options{Plots: !cfg.NoPlots, Format: format, Workers: cfg.Jobs, Figures: htmlPath != "",
		LenientSamples: cfg.LenientSamples}

	var inputs, bursts []Input
	var loads []Load
	var tputs []Throughput
	var pms []PerMessage
	var labelled *metaPlan
	dirMode := false
	switch raw := cfg.RawCSV; {
	case raw != "" && len(cfg.Dirs) > 0:
		return exit.Usagef("give either EXPERIMENT_DIR or --raw-csv, not both")
	case raw == "" && len(cfg.Dirs) == 0:
		return exit.Usagef("EXPERIMENT_DIR (or --raw-csv FILE) is required (see 'process --help')")
	case len(cfg.Dirs) > 1:
		return exit.Usagef("one EXPERIMENT_DIR at a time, got %d: %s", len(cfg.Dirs), strings.Join(cfg.Dirs, " "))
	case raw != "" && cfg.Label.Given():
		return exit.Usagef("--sut-name, --sut-version and --start label an experiment folder (its meta.json): give EXPERIMENT_DIR instead of --raw-csv")
	case raw != "":
		if cfg.OutputCSVSet && cfg.OutputCSV == "" {
			return exit.Usagef("--output-csv is empty")
		}
		in := rawInput(raw, cfg.OutputCSV, cfg.PlotsDirectory)
		if sameFile(in.Raw, in.Summary) {
			return exit.Usagef("--output-csv %s is the raw file itself: give another summary file", in.Summary)
		}
		inputs = []Input{in}
		if isBurstFile(in.Raw) {
			inputs, bursts = nil, inputs
		} else if err := checkHeader(in.Raw); err != nil {
			return exit.With(exit.Usage, err)
		}
	case cfg.OutputCSVSet:
		return exit.Usagef("--output-csv %s is for --raw-csv FILE: with EXPERIMENT_DIR each summary is written "+
			"beside its raw file as measurements_<type>_summary.csv (drop --output-csv, or give --raw-csv)", cfg.OutputCSV)
	default:
		dirMode = true
		if cfg.Label.Given() {
			if labelled, err = planMeta(cfg.Dirs[0], cfg.Label, cfg.ToolVersion); err != nil {
				return exit.With(exit.Usage, err)
			}
			if summariesOnly(cfg.Dirs[0]) {
				return labelOnly(cfg, labelled, stdout)
			}
		}
		inputs, bursts, err = ExperimentInputs(cfg.Dirs[0], cfg.PlotsDirectory)
		if err != nil {
			return err
		}
	}
	var guard clobber.Guard
	if dirMode {
		guard.Experiment("EXPERIMENT_DIR", cfg.Dirs[0])
	} else {
		in := append(inputs, bursts...)[0]
		guard.File("--raw-csv", in.Raw)
		if ownSummary(in) {
			guard.OwnedOutput("--output-csv", in.Summary)
		} else {
			guard.Output("--output-csv", in.Summary)
		}
	}
	guard.Output("--html", htmlPath)
	if err := guard.Check(); err != nil {
		return err
	}
	// Outputs that cannot be written are found before anything is.
	summaryFlag, plotsFlag := "", ""
	if !dirMode {
		summaryFlag = "--output-csv"
	}
	if cfg.PlotsDirectory != "" {
		plotsFlag = "--plots-directory"
	}
	if err := checkOutputs(append(inputs, bursts...), htmlPath, opt.Plots, summaryFlag, plotsFlag); err != nil {
		return err
	}
	if dirMode {
		// A malformed load summary, and data meta.json does not list, are
		// refused before any summary or plot is written.
		if loads, err = readLoads(cfg.Dirs[0]); err != nil {
			return exit.With(exit.Usage, err)
		}
		if tputs, err = readThroughputs(cfg.Dirs[0]); err != nil {
			return exit.With(exit.Usage, err)
		}
		if pms, err = readPerMessages(cfg.Dirs[0]); err != nil {
			return exit.With(exit.Usage, err)
		}
		if opt.Listed, err = admitListed(cfg.Dirs[0], append(inputs, bursts...), loads); err != nil {
			return exit.With(exit.Usage, err)
		}
	}
	// A malformed burst file too is refused before anything is written.
	burstRows := make([][]result.BurstRow, len(bursts))
	for i, in := range bursts {
		if burstRows[i], err = readBurst(in); err != nil {
			return exit.With(exit.Usage, err)
		}
	}
	if !opt.Plots {
		for i := range inputs {
			inputs[i].PlotsDir = ""
		}
		for i := range bursts {
			bursts[i].PlotsDir = ""
		}
	}

	start := time.Now()
	results, err := Summarise(ctx, inputs, opt)
	if err != nil {
		if ctx.Err() != nil {
			return exit.With(exit.Interrupted, fmt.Errorf("interrupted; no summary written, the earlier ones are as they were"))
		}
		return err
	}
	out := stdout
	quiet := cfg.Quiet
	for _, r := range results {
		if !quiet {
			fmt.Fprintf(out, "%s: %d payloads, %s samples -> %s\n", r.Raw, len(r.Rows), result.Count(r.Samples), r.Summary)
		}
	}
	burstPlots := 0
	for i, in := range bursts {
		rows := burstRows[i]
		if err := writeBurst(in, rows, format); err != nil {
			return exit.With(exit.Usage, err)
		}
		payloads := map[int]bool{}
		for _, r := range rows {
			payloads[r.Payload] = true
		}
		burstPlots += 2 * len(payloads)
		if !quiet {
			if firstLine(in.Raw) == OldBurstHeader {
				fmt.Fprintln(out, oldHeaderNote(in.Raw))
			}
			fmt.Fprintf(out, "%s: %s test cases -> %s\n", in.Raw, result.Count(len(rows)), in.Summary)
		}
	}
	if dirMode {
		dir := ""
		if opt.Plots {
			if dir = cfg.PlotsDirectory; dir == "" {
				dir = experiment.PlotsDir(cfg.Dirs[0])
			}
		}
		n := 0
		if tputs, n, err = drawThroughputs(tputs, dir, format, opt.Figures); err != nil {
			return exit.With(exit.Usage, err)
		}
		burstPlots += n
		for _, t := range tputs {
			if !quiet {
				fmt.Fprintf(out, "%s: %s rows (%s search steps) -> plots\n", t.Path, result.Count(len(t.Rows)), result.Count(len(t.Search)))
			}
		}
		if loads, n, err = drawLoads(loads, dir, format, opt.Figures); err != nil {
			return exit.With(exit.Usage, err)
		}
		burstPlots += n
		if pms, n, err = drawPerMessages(pms, dir, format, opt.Figures); err != nil {
			return exit.With(exit.Usage, err)
		}
		burstPlots += n
		if !quiet {
			for _, l := range loads {
				fmt.Fprintf(out, "%s: %d payloads -> plots\n", l.Path, len(l.Payloads))
				printLoadNotes(out, l)
			}
			for _, pm := range pms {
				fmt.Fprintf(out, "%s: %d payloads -> plots\n", pm.Path, len(pm.payloads()))
			}
		}
	}
	if dirMode && opt.Plots && len(inputs) > 0 {
		dir := cfg.PlotsDirectory
		if dir == "" {
			dir = experiment.PlotsDir(cfg.Dirs[0])
		}
		if _, err := ComparisonPlots(dir, results, format); err != nil {
			return err
		}
	}
	if htmlPath != "" {
		expDir := ""
		if dirMode {
			expDir = cfg.Dirs[0]
		}
		page, err := Page(expDir, Folder{Results: results, Throughputs: tputs, Loads: loads, PerMessages: pms})
		if err != nil {
			return err
		}
		if err := htmlreport.WriteFile(htmlPath, page); err != nil {
			return err
		}
		if !quiet {
			fmt.Fprintf(out, "HTML report: %s\n", htmlPath)
		}
	}
	if labelled != nil {
		if err := labelled.write(); err != nil {
			return exit.With(exit.Usage, err)
		}
		if !quiet {
			fmt.Fprintf(out, "%s: %s\n", labelled.path, labelled.what)
		}
	}
	if !quiet {
		if opt.Plots {
			n := burstPlots
			for _, r := range results {
				n += 2 * len(r.Rows)
			}
			if dirMode && len(inputs) > 0 {
				n += len(Comparisons)
			}
			var dir string
			switch all := append(inputs, bursts...); {
			case len(all) > 0 && dirMode:
				dir = filepath.Dir(all[0].PlotsDir)
			case len(all) > 0:
				dir = all[0].PlotsDir
			case cfg.PlotsDirectory != "":
				dir = cfg.PlotsDirectory
			default:
				dir = experiment.PlotsDir(cfg.Dirs[0])
			}
			fmt.Fprintf(out, "%s plots in %s\n", result.Count(n), dir)
		}
		fmt.Fprintf(out, "processed %d file(s) in %.2fs\n", len(results)+len(bursts)+len(tputs)+len(loads)+len(pms), time.Since(start).Seconds())
	}
	return nil
}

// admitListed reads what the meta.json of experiment dir lists (formats
// §6) and refuses a raw file, throughput summary or load summary of a
// sub-experiment it does not list: data of another run in the folder. The
// raw files' payloads are checked as they are read (Options.Listed).
func admitListed(dir string, inputs []Input, loads []Load) (*experiment.Listed, error) {
	listed, err := experiment.ReadListed(dir)
	if err != nil || listed == nil {
		return nil, err
	}
	for _, in := range inputs {
		if err := listed.Type(in.Raw, in.Type); err != nil {
			return nil, err
		}
	}
	tputs, err := experiment.ThroughputFiles(dir)
	if err != nil {
		return nil, err
	}
	for _, f := range tputs {
		rows, err := experiment.ReadThroughputFile(f.Path)
		if err == nil {
			err = listed.Type(f.Path, f.Type)
		}
		for i := 0; err == nil && i < len(rows); i++ {
			err = listed.Payload(f.Path, i+2, f.Type, rows[i].Payload)
		}
		if err != nil {
			return nil, err
		}
	}
	for _, l := range loads {
		if err := listed.Type(l.Path, l.Type); err != nil {
			return nil, err
		}
		for _, p := range l.Summary.Payloads {
			if err := listed.Payload(l.Path, 0, l.Type, p.Payload); err != nil {
				return nil, err
			}
		}
	}
	return listed, nil
}

// checkOutputs reports an output path that cannot be written (a directory
// where a file goes, a file or looping link where a directory goes), so
// that process fails before it removes or writes anything.
// The errors name the flag that gave the path, if one did.
func checkOutputs(inputs []Input, htmlPath string, plots bool, summaryFlag, plotsFlag string) error {
	named := func(flag string, err error) error {
		if flag != "" {
			return exit.Usagef("%s: %v", flag, err)
		}
		return exit.With(exit.Usage, err)
	}
	if htmlPath != "" {
		if err := atomicfile.CheckFile(htmlPath); err != nil {
			return named("--html", err)
		}
	}
	for _, in := range inputs {
		if err := atomicfile.CheckFile(in.Summary); err != nil {
			return named(summaryFlag, err)
		}
		if plots && in.PlotsDir != "" {
			if err := atomicfile.CheckDir(in.PlotsDir); err != nil {
				return named(plotsFlag, err)
			}
		}
	}
	return nil
}

// rawInput is the Fast-RTPS single-file mode: defaults follow that script's
// job layout (summary beside the raw file, plots in plots/<raw name>).
func rawInput(raw, output, plotsDir string) Input {
	stem := strings.TrimSuffix(filepath.Base(raw), filepath.Ext(raw))
	if output == "" {
		output = filepath.Join(filepath.Dir(raw), stem+"_summary.csv")
	}
	if plotsDir == "" {
		plotsDir = filepath.Join(filepath.Dir(raw), "plots", stem)
	}
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
