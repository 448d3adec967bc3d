package experiment

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/measurements"
)

// DirTimeLayout is the default experiment directory name: the UTC start time.
const DirTimeLayout = "2006-01-02_15-04-05"

const (
	rawPrefix     = "measurements_"
	summarySuffix = "_summary.csv"
	csvSuffix     = ".csv"
	checksPrefix  = "checks_"
	tputPrefix    = "throughput_"
	searchSuffix  = "_search.csv"
	// Files of run load (load.SnapshotsFileName, load.SummaryFileName,
	// load.HistogramLogFileName) and run permessage
	// (permessagefile.FileName and its _cpu and _summary files),
	// formats §9.
	loadPrefix       = "load_"
	permessagePrefix = "permessage_"
	burstPrefix      = "burst_" // run burst and process, formats §9
	plotsDirName     = "plots"
	metaFileName     = "meta.json" // meta.FileName, formats §6
)

// RawFileName is the raw measurements file name of sub-experiment typ.
func RawFileName(typ string) string { return measurements.FileName(typ) }

// SummaryFileName is the summary file name of sub-experiment typ.
func SummaryFileName(typ string) string { return rawPrefix + typ + summarySuffix }

// CheckReportFileName is the check report file name of sub-experiment typ
// (formats §4), written by check into the experiment directory.
func CheckReportFileName(typ string) string { return checksPrefix + typ + csvSuffix }

// TypeOfCheckReport returns the sub-experiment type of a check report file
// name (checks_<type>.csv), or false if name is not one.
func TypeOfCheckReport(name string) (string, bool) { return typeOf(name, checksPrefix, csvSuffix, "") }

// typeOf returns the sub-experiment type of the file name (its base)
// prefix<type>suffix, or false if name is not one; a name ending in not
// (when given) is not one either.
func typeOf(name, prefix, suffix, not string) (string, bool) {
	name = filepath.Base(name)
	if !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, suffix) || not != "" && strings.HasSuffix(name, not) {
		return "", false
	}
	// The type lies between the two: where they overlap
	// (measurements_summary.csv), there is none.
	if len(name) <= len(prefix)+len(suffix) {
		return "", false
	}
	return name[len(prefix) : len(name)-len(suffix)], true
}

// is reports whether a TypeOf… function took the name.
func is(_ string, ok bool) bool { return ok }

// Owned reports whether rel, a slash- or separator-separated path relative
// to an experiment directory, names a file the pipeline owns there (formats
// §1): meta.json (run), a raw measurements file (run), a summary (process), a
// check report (check), or anything under plots/ (process and check). It
// returns what the file is, for messages. No tool may write anything else
// over such a file. Throughput summaries and searches (throughput_*.csv,
// written by run throughput and run load), run load's snapshots, summary and
// histogram log (load_<type>_snapshots.csv, load_<type>_summary.json,
// load_<type>.hlog), run permessage's files (permessage_*.csv) and the
// burst measurements and summaries (burst_*.csv) are the pipeline's too.
func Owned(rel string) (what string, ok bool) {
	rel = filepath.ToSlash(filepath.Clean(rel))
	if first, _, nested := strings.Cut(rel, "/"); nested {
		if first == plotsDirName {
			return "a plot (" + plotsDirName + "/ belongs to process and check)", true
		}
		return "", false
	}
	switch {
	case rel == metaFileName:
		return "the run's " + metaFileName, true
	case is(TypeOfSummary(rel)):
		return "a summary", true
	case is(TypeOfRaw(rel)):
		return "a raw measurements file", true
	case is(TypeOfCheckReport(rel)):
		return "a check report", true
	case is(typeOf(rel, tputPrefix, csvSuffix, "")):
		return "a throughput file (run throughput and run load write it)", true
	case isLoadFile(rel):
		return "a load file (run load writes it)", true
	case is(typeOf(rel, permessagePrefix, csvSuffix, "")):
		return "a per-message file (run permessage writes it)", true
	case is(typeOf(rel, burstPrefix, csvSuffix, "")):
		return "a burst file (run burst and process write it)", true
	}
	return "", false
}

// isLoadFile reports whether name is one of run load's files of some
// sub-experiment: load_<type>_snapshots.csv, load_<type>_summary.json or
// load_<type>.hlog.
func isLoadFile(name string) bool {
	rest, ok := strings.CutPrefix(name, loadPrefix)
	if !ok {
		return false
	}
	for _, suffix := range []string{"_snapshots.csv", "_summary.json", ".hlog"} {
		if t, ok := strings.CutSuffix(rest, suffix); ok && t != "" {
			return true
		}
	}
	return false
}

// TypeOfRaw returns the sub-experiment type of a raw measurements file name
// (measurements_<type>.csv), or false if name is not one. Summary files are
// not raw files.
func TypeOfRaw(name string) (string, bool) { return typeOf(name, rawPrefix, csvSuffix, summarySuffix) }

// TypeOfSummary returns the sub-experiment type of a summary file name
// (measurements_<type>_summary.csv), or false if name is not one.
func TypeOfSummary(name string) (string, bool) { return typeOf(name, rawPrefix, summarySuffix, "") }

// ThroughputFileName is the throughput summary file name of sub-experiment
// typ (formats §9), written by run throughput and run load.
func ThroughputFileName(typ string) string { return tputPrefix + typ + csvSuffix }

// SearchFileName is the file of every step of run throughput's search for
// the in-flight window (formats §9) of sub-experiment typ.
func SearchFileName(typ string) string { return tputPrefix + typ + searchSuffix }

// TypeOfThroughput returns the sub-experiment type of a throughput summary
// file name (throughput_<type>.csv), or false if name is not one. The
// search file of run throughput (throughput_<type>_search.csv) is not a
// summary: it holds every step of the search, not the result.
func TypeOfThroughput(name string) (string, bool) {
	return typeOf(name, tputPrefix, csvSuffix, searchSuffix)
}

// BurstFileName is the burst measurements file name of sub-experiment typ
// (formats §9), written by run burst.
func BurstFileName(typ string) string { return burstPrefix + typ + csvSuffix }

// BurstSummaryFileName is the summary of BurstFileName(typ).
func BurstSummaryFileName(typ string) string { return burstPrefix + typ + summarySuffix }

// TypeOfBurst returns the sub-experiment type of a burst measurements file
// name (burst_<type>.csv, not its summary), or false if name is not one.
func TypeOfBurst(name string) (string, bool) {
	return typeOf(name, burstPrefix, csvSuffix, summarySuffix)
}

// BurstFiles lists the burst measurements files in dir, sorted by type.
func BurstFiles(dir string) ([]File, error) { return list(dir, TypeOfBurst) }

// BurstSummaryFiles lists the burst summaries in dir
// (burst_<type>_summary.csv), sorted by type.
func BurstSummaryFiles(dir string) ([]File, error) {
	return list(dir, func(name string) (string, bool) {
		t, ok := strings.CutSuffix(strings.TrimPrefix(name, burstPrefix), summarySuffix)
		return t, ok && t != "" && strings.HasPrefix(name, burstPrefix)
	})
}

// BurstPlotsDir is where the scatter plots of sub-experiment typ's burst
// measurements go.
func BurstPlotsDir(expDir, typ string) string {
	return filepath.Join(expDir, plotsDirName, strings.TrimSuffix(BurstFileName(typ), csvSuffix))
}

// ValidateType checks that t is a sub-experiment name: lower-case letters,
// digits and '_', not starting or ending with '_'.
func ValidateType(t string) error {
	if t == "" {
		return fmt.Errorf("empty sub-experiment name")
	}
	for _, r := range t {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return fmt.Errorf("sub-experiment name %q: only lower-case letters, digits and '_' are allowed", t)
		}
	}
	if t[0] == '_' || t[len(t)-1] == '_' {
		return fmt.Errorf("sub-experiment name %q must not start or end with '_'", t)
	}
	return nil
}

// File is one sub-experiment's file in an experiment directory.
type File struct {
	Type string
	Path string
}

// PlotsDir is where process and check put an experiment's plots.
func PlotsDir(expDir string) string { return filepath.Join(expDir, plotsDirName) }

// RawFiles lists the raw measurements files in dir, sorted by type. It is an
// error if dir cannot be read; an empty list is not (the caller decides).
func RawFiles(dir string) ([]File, error) { return list(dir, TypeOfRaw) }

// SummaryFiles lists the summary files in dir, sorted by type.
func SummaryFiles(dir string) ([]File, error) { return list(dir, TypeOfSummary) }

// ThroughputFiles lists the throughput summary files in dir, sorted by type.
func ThroughputFiles(dir string) ([]File, error) { return list(dir, TypeOfThroughput) }

// ResultFiles lists what makes dir an experiment: its latency summaries and
// its throughput summaries.
func ResultFiles(dir string) (summaries, throughputs []File, err error) {
	if summaries, err = SummaryFiles(dir); err != nil {
		return nil, nil, err
	}
	if throughputs, err = ThroughputFiles(dir); err != nil {
		return nil, nil, err
	}
	return summaries, throughputs, nil
}

// list lists the files in dir whose name typeOf takes, sorted by type. An
// entry so named that is not a regular file (a directory, a named pipe, …)
// is an error naming it: it would be skipped silently, or block its reader.
func list(dir string, typeOf func(string) (string, bool)) ([]File, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fileerr.New(dir, 0, "", "no such directory (expected an experiment directory)")
		}
		return nil, fileerr.New(dir, 0, "", "cannot read directory: %v", err)
	}
	var files []File
	for _, e := range entries {
		t, ok := typeOf(e.Name())
		if !ok {
			continue
		}
		path := filepath.Join(dir, e.Name())
		mode := e.Type()
		if mode&fs.ModeSymlink != 0 {
			mode = 0 // dangling or looping: listed, and its reader says why it cannot read it
			if st, err := os.Stat(path); err == nil {
				mode = st.Mode()
			}
		}
		if !mode.IsRegular() {
			return nil, fileerr.NotRegular(path, mode, describe(e.Name()))
		}
		files = append(files, File{Type: t, Path: path})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Type < files[j].Type })
	return files, nil
}

// describe says what a file the pipeline owns named name is, for messages:
// "a summary (measurements_<type>_summary.csv)".
func describe(name string) string {
	what, ok := Owned(name)
	if !ok {
		return name
	}
	return what + " (" + name + ")"
}

// RemoveStale removes the files of earlier that are not among written: the
// outputs of an earlier call that this one did not write again, which a
// later step could take for this call's. what names them in the error.
func RemoveStale(earlier, written []string, what string) error {
	for _, f := range earlier {
		if slices.Contains(written, f) {
			continue
		}
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("cannot remove the earlier %s %s: %w", what, f, err)
		}
	}
	return nil
}
