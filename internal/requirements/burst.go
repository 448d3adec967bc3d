package requirements

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/clobber"
	"github.com/mqgate/mqgate/internal/csvfile"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats"
)

// BurstColumns are the columns of a burst requirements CSV, the Fast-RTPS
// throughput pipeline's (formats §9).
var BurstColumns = []string{"Experiment type", "Payload [Bytes]", result.BurstLost, result.BurstThroughput}

// BurstPercentile is the percentile of the runs each burst requirement is
// set at, for both columns, as the Fast-RTPS script sets them.
const BurstPercentile = 99

// BurstMetrics are what a burst requirement limits, in the order of its
// columns: at most the lost samples, at least the subscription throughput.
var BurstMetrics = []result.Metric{result.BurstLostMetric, result.BurstThroughputMetric}

// IsBurstFile reports whether the file at path starts with the burst
// requirements header: check takes such a --requirements file as burst
// requirements, as the Fast-RTPS throughput check script does.
func IsBurstFile(path string) bool {
	f, err := fileerr.OpenRegular(path, "a requirements file")
	if err != nil {
		return false // the requirements reader says why
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	return strings.TrimPrefix(strings.TrimRight(line, "\r\n"), "\ufeff") == strings.Join(BurstColumns, ",")
}

// ReadBurstFile reads a burst requirements CSV; errors name file, line and
// column.
func ReadBurstFile(path string) ([]KeyedRow, error) {
	f, err := fileerr.OpenRegular(path, "a requirements file")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csvfile.NewReader(f)
	if err := csvfile.ReadHeader(cr, path, BurstColumns); err != nil {
		return nil, err
	}
	var out []KeyedRow
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvfile.Error(path, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(BurstColumns) {
			return nil, fileerr.New(path, line, "", "%d columns, expected %d (%s)", len(rec), len(BurstColumns), strings.Join(BurstColumns, ","))
		}
		p, err := strconv.ParseFloat(rec[1], 64)
		if err != nil || p < 1 || p != math.Trunc(p) || p > math.MaxInt32 {
			return nil, fileerr.New(path, line, BurstColumns[1], "%q is not a positive byte count", rec[1])
		}
		r := KeyedRow{Type: rec[0], Key: result.Key{Payload: int(p)}, Limits: map[string]float64{}}
		for i, m := range BurstMetrics {
			v, err := strconv.ParseFloat(rec[2+i], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return nil, fileerr.New(path, line, BurstColumns[2+i], "%q is not a finite number ≥ 0", rec[2+i])
			}
			r.Limits[m.Name] = v
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, fileerr.New(path, 0, "", "no requirement after the header")
	}
	return out, nil
}

// WriteBurst writes rows under BurstColumns, values with 3 decimals.
func WriteBurst(w io.Writer, rows []KeyedRow) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(strings.Join(BurstColumns, ",") + "\n")
	for _, r := range rows {
		bw.WriteString(r.Type + "," + strconv.Itoa(r.Key.Payload))
		for _, m := range BurstMetrics {
			bw.WriteString("," + f3(r.Limits[m.Name]))
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}

// BurstSummary is one experiment's burst summary of one sub-experiment.
type BurstSummary struct {
	Type string
	Rows []result.BurstRow
}

// DeriveBurst sets, per sub-experiment (in order of first appearance) and
// payload, each requirement at the BurstPercentile-th percentile (numpy's)
// of the runs' values, as the Fast-RTPS script does.
func DeriveBurst(runs []BurstSummary) []KeyedRow {
	type key struct {
		typ     string
		payload int
	}
	var keys []key
	lost, mbps := map[key][]float64{}, map[key][]float64{}
	for _, s := range runs {
		for _, r := range s.Rows {
			k := key{s.Type, r.Payload}
			if _, seen := lost[k]; !seen {
				keys = append(keys, k)
			}
			lost[k] = append(lost[k], float64(r.Lost))
			mbps[k] = append(mbps[k], r.SubMbps)
		}
	}
	// Sub-experiments stay together, in order of first appearance.
	var types []string
	for _, k := range keys {
		if !slices.Contains(types, k.typ) {
			types = append(types, k.typ)
		}
	}
	var out []KeyedRow
	for _, t := range types {
		for _, k := range keys {
			if k.typ == t {
				out = append(out, KeyedRow{Type: t, Key: result.Key{Payload: k.payload}, Limits: map[string]float64{
					result.BurstLost: stats.PercentileOf(lost[k], BurstPercentile), result.BurstThroughput: stats.PercentileOf(mbps[k], BurstPercentile)}})
			}
		}
	}
	return out
}

// ReadBurstSummary reads one burst summary file.
func ReadBurstSummary(typ, path string) (BurstSummary, error) {
	f, err := fileerr.OpenRegular(path, "a burst summary")
	if err != nil {
		return BurstSummary{}, err
	}
	defer f.Close()
	rows, err := result.ReadBurst(f, path)
	return BurstSummary{Type: typ, Rows: rows}, err
}

// deriveBurstFile is requirements --burst-output-file: the burst
// requirements of the burst summaries of every experiment folder in
// cfg.ExperimentsResults, as the Fast-RTPS throughput script derives them.
func deriveBurstFile(cfg Config, stdout, stderr io.Writer) error {
	if cfg.ExperimentsResults == "" {
		return exit.Usagef("--burst-output-file needs --experiments-results ROOT")
	}
	if cfg.Set["runs"] || cfg.Calibrate {
		return exit.Usagef("--burst-output-file derives from the experiments as they are: it excludes --runs and --calibrate")
	}
	for _, f := range burstExcludes {
		if cfg.Set[f] {
			return exit.Usagef("--%s does not go with --burst-output-file, which derives burst requirements only, at their %s percentile", f, ordinal(BurstPercentile))
		}
	}
	var g clobber.Guard
	g.Experiments("--experiments-results", cfg.ExperimentsResults)
	g.OutputOutside("--burst-output-file", cfg.BurstOutputFile)
	if err := g.Check(); err != nil {
		return err
	}
	if err := checkOutputFile("--burst-output-file", cfg.BurstOutputFile); err != nil {
		return err
	}
	dirs, err := burstDirs(cfg.ExperimentsResults, stderr)
	if err != nil {
		return err
	}
	var runs []BurstSummary
	for _, dir := range dirs {
		files, err := experiment.BurstSummaryFiles(dir)
		if err != nil {
			return exit.With(exit.Usage, err)
		}
		for _, f := range files {
			s, err := ReadBurstSummary(f.Type, f.Path)
			if err != nil {
				return exit.With(exit.Usage, err)
			}
			runs = append(runs, s)
		}
	}
	if len(runs) == 0 {
		return exit.With(exit.Usage, fileerr.New(cfg.ExperimentsResults, 0, "", "no experiment folder in it holds a burst summary (%s): run process on them first",
			experiment.BurstSummaryFileName("<type>")))
	}
	reqs := DeriveBurst(runs)
	if err := atomicfile.Write(cfg.BurstOutputFile, func(w io.Writer) error { return WriteBurst(w, reqs) }); err != nil {
		return exit.Usagef("--burst-output-file: %v", err)
	}
	fmt.Fprintf(stdout, "%d burst requirements from %d summaries -> %s\n", len(reqs), len(runs), cfg.BurstOutputFile)
	return nil
}

// burstExcludes are the flags of the latency and throughput requirements,
// which mean nothing to burst requirements.
var burstExcludes = append([]string{"output-file", "throughput-output-file", "out", "false-fail", "method", "order-rank", "normality-level", "percentile"}, calibrateOnly...)

// burstDirs lists the experiment folders in root in name order: its
// directories and symbolic links to directories, each directory once. The
// entries skipped (hidden, not a directory, a second link to a directory
// already listed, a link that cannot be followed) are warned about on
// stderr.
func burstDirs(root string, stderr io.Writer) ([]string, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, exit.With(exit.Usage, fileerr.New(root, 0, "", "cannot read the experiments directory: %v", fileerr.Cause(err)))
	}
	skip := func(path, why string) { fmt.Fprintf(stderr, "requirements: warning: skipped %s: %s\n", path, why) }
	var dirs []string
	var seen []os.FileInfo
next:
	for _, e := range entries {
		path := filepath.Join(root, e.Name())
		if strings.HasPrefix(e.Name(), ".") {
			skip(path, "hidden")
			continue
		}
		st, err := os.Stat(path)
		switch {
		case err != nil:
			skip(path, fmt.Sprintf("cannot be followed (%v)", fileerr.Cause(err)))
			continue
		case !st.IsDir():
			continue // a file beside the experiments
		}
		for i, s := range seen {
			if os.SameFile(s, st) {
				skip(path, fmt.Sprintf("the same directory as %s, read once", dirs[i]))
				continue next
			}
		}
		seen = append(seen, st)
		dirs = append(dirs, path)
	}
	return dirs, nil
}
