package experiment

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/parallel"
	"github.com/mqgate/mqgate/internal/result"
)

// StaleTolerance is how much later than its summary a raw file may have
// been modified before the summary counts as stale. Copies that do not keep
// modification times (cp -r, some CI artifact stores) write the two files
// milliseconds apart in either order; a raw file rewritten after process
// ran is typically seconds or more later.
const StaleTolerance = time.Second

// Experiment is one experiment directory (formats §1) as every tool reads
// it: where it is, what its meta.json says (when it has one) and its
// summaries.
type Experiment struct {
	// Name is the directory's base name (of its absolute path, so that "."
	// has a name too).
	Name string
	// Dir is the directory's path as given (joined to the root for
	// LoadRoot).
	Dir string
	// Meta is the experiment's meta.json; nil when it has none, as
	// experiments measured by the Fast-RTPS scripts.
	Meta *meta.Meta
	// Start is when the experiment started: meta.json's start, else the
	// directory name parsed as DirTimeLayout, else zero.
	Start time.Time
	// StartFrom says where Start comes from: "meta.json", "name" or "".
	StartFrom string
	// Version and Commit of the system under test, from meta.json.
	Version, Commit string
	// Latency is the latency definition of the experiment's files
	// (meta.LatencyHalfRTT, LatencyRTT or LatencyOneWay). Without meta.json,
	// or when meta.json does not say, it is half-rtt, the Fast-RTPS
	// LatencyTest definition, and LatencyStated is false.
	Latency       string
	LatencyStated bool
	// Summaries are the experiment's latency summaries, sorted by type.
	Summaries []Summary
	// Throughputs are the experiment's throughput summaries (formats §9),
	// sorted by type.
	Throughputs []Throughput
	// Bursts are the experiment's burst summaries (formats §9, the
	// Fast-RTPS throughput pipeline), sorted by type.
	Bursts []Burst
	// Warnings are worth reading but do not stop a tool: a raw file with
	// no summary.
	Warnings []string
}

// Table is one sub-experiment's result file and its rows, in file order;
// no two rows have the same key (result.Key).
type Table[R result.Row] struct {
	Type string
	Path string
	Rows []R
}

// Summary is one sub-experiment's latency summary, one row per payload.
type Summary = Table[result.SummaryRow]

// Throughput is one sub-experiment's throughput summary (formats §9).
type Throughput = Table[result.ThroughputRow]

// Burst is one sub-experiment's burst summary: per payload, the rows of
// greatest subscription throughput, in file order.
type Burst struct {
	Type string
	Path string
	Rows []result.BurstRow
}

// Keys lists the keys of t's rows in file order.
func (t *Table[R]) Keys() []result.Key {
	keys := make([]result.Key, len(t.Rows))
	for i, r := range t.Rows {
		keys[i] = r.Key()
	}
	return keys
}

// At returns the row of t with key k, or nil.
func (t *Table[R]) At(k result.Key) *R {
	for i := range t.Rows {
		if t.Rows[i].Key() == k {
			return &t.Rows[i]
		}
	}
	return nil
}

// Throughput returns the throughput summary of sub-experiment typ, or nil.
func (e *Experiment) Throughput(typ string) *Throughput { return tableOf(e.Throughputs, typ) }

// Summary returns the summary of sub-experiment typ, or nil.
func (e *Experiment) Summary(typ string) *Summary { return tableOf(e.Summaries, typ) }

func tableOf[R result.Row](tables []Table[R], typ string) *Table[R] {
	for i := range tables {
		if tables[i].Type == typ {
			return &tables[i]
		}
	}
	return nil
}

// Completed reports whether the run finished: meta.json says completed, or
// there is no meta.json (a Fast-RTPS experiment, complete by assumption).
func (e *Experiment) Completed() bool { return e.Meta == nil || e.Meta.Completed }

// Incompleteness says why the experiment is incomplete, "" when it is not.
func (e *Experiment) Incompleteness() string {
	switch {
	case e.Completed():
		return ""
	case e.Meta.Interrupted:
		return "meta.json says the run was interrupted"
	case e.Meta.Error != "":
		return "meta.json says the run stopped on an error: " + e.Meta.Error
	}
	return "meta.json says the run did not complete"
}

// Host is the fingerprint of the machine the experiment ran on; nil without
// meta.json.
func (e *Experiment) Host() *meta.Host {
	if e.Meta == nil {
		return nil
	}
	return &e.Meta.Host
}

// System returns the version of the system under test, else its commit
// abbreviated to 8 characters, else "".
func (e *Experiment) System() string {
	if e.Version != "" {
		return e.Version
	}
	return e.Commit[:min(8, len(e.Commit))]
}

// Label names the experiment for people: its name, followed by the version
// of the system under test, else its commit, when known, and marked when
// the run is incomplete.
func (e *Experiment) Label() string {
	l := e.Name
	if s := e.System(); s != "" {
		l += " " + s
	}
	if !e.Completed() {
		l += " (incomplete)"
	}
	return l
}

// Load reads the experiment directory dir: its meta.json, if any, every
// summary, every throughput summary and every burst summary. It is an error
// when dir does not exist or is not a directory, when meta.json is malformed
// or names an unknown latency definition, when dir holds none of these
// summaries, when one of them is malformed (a throughput file
// with two rows of the same payload, mode and offered load is), when a
// summary is older than its raw file (stale: the raw file changed after
// process ran), and when a file holds a sub-experiment or payload that
// meta.json does not list (Listed).
func Load(dir string) (*Experiment, error) {
	if err := checkDir(dir, "an experiment directory", "the experiment directory"); err != nil {
		return nil, err
	}
	files, err := allResultFiles(dir)
	if err != nil {
		return nil, err
	}
	if files.empty() {
		if hint := RootHint(dir, "name one (PATH), or give the root where a folder of experiments is expected (check --experiments-results, compare --reference and --results, requirements --experiments-results)"); hint != "" {
			return nil, fileerr.New(dir, 0, "", "%s", hint)
		}
		return nil, fileerr.New(dir, 0, "", "no summary (%s): run process on the experiment first (it holds no throughput summary %s either)",
			SummaryFileName("<type>"), ThroughputFileName("<type>"))
	}
	return load(dir, files)
}

// checkDir returns an error when dir is not a directory it can read:
// expected says what dir should be, what names it in other errors.
func checkDir(dir, expected, what string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fileerr.New(dir, 0, "", "no such directory (expected %s)", expected)
	case err != nil:
		return fileerr.New(dir, 0, "", "cannot read %s: %v", what, fileerr.Cause(err))
	case !st.IsDir():
		return fileerr.New(dir, 0, "", "not a directory (expected %s)", expected)
	}
	return nil
}

// resultFiles are an experiment's summaries, throughput summaries and
// burst summaries.
type resultFiles struct{ sums, tputs, bursts []File }

func (f resultFiles) empty() bool { return len(f.sums)+len(f.tputs)+len(f.bursts) == 0 }

// allResultFiles lists dir's summaries, throughput summaries and burst
// summaries.
func allResultFiles(dir string) (f resultFiles, err error) {
	if f.sums, f.tputs, err = ResultFiles(dir); err != nil {
		return resultFiles{}, err
	}
	f.bursts, err = BurstSummaryFiles(dir)
	return f, err
}

// load reads the experiment dir whose result files are files.
func load(dir string, files resultFiles) (*Experiment, error) {
	e := &Experiment{Name: baseName(dir), Dir: dir, Latency: meta.LatencyHalfRTT}
	_, m, err := readMeta(dir)
	if err != nil {
		return nil, err
	}
	if m != nil {
		// meta.Decode refused any other definition, at its line and column.
		if m.Latency != "" {
			e.Latency, e.LatencyStated = m.Latency, true
		}
		e.Meta = m
		e.Start, e.StartFrom = m.Start, meta.FileName
		e.Version, e.Commit = m.System.Version, m.System.Commit
	}
	if e.Start.IsZero() {
		if t, err := time.Parse(DirTimeLayout, e.Name); err == nil {
			e.Start, e.StartFrom = t, "name"
		}
	}
	for _, f := range files.sums {
		if err := checkFresh(dir, f, RawFileName(f.Type)); err != nil {
			return nil, err
		}
		rows, err := result.ReadSummaryFile(f.Path)
		if err != nil {
			return nil, err
		}
		e.Summaries = append(e.Summaries, Summary{Type: f.Type, Path: f.Path, Rows: rows})
	}
	for _, f := range files.tputs {
		rows, err := ReadThroughputFile(f.Path)
		if err != nil {
			return nil, err
		}
		e.Throughputs = append(e.Throughputs, Throughput{Type: f.Type, Path: f.Path, Rows: rows})
	}
	for _, f := range files.bursts {
		// A stale burst summary was read without a word, and gated.
		if err := checkFresh(dir, f, BurstFileName(f.Type)); err != nil {
			return nil, err
		}
		rows, err := readBurst(f.Path)
		if err != nil {
			return nil, err
		}
		e.Bursts = append(e.Bursts, Burst{Type: f.Type, Path: f.Path, Rows: rows})
	}
	raws, err := RawFiles(dir)
	if err != nil {
		return nil, err
	}
	if e.Meta != nil {
		if err := listedOf(filepath.Join(dir, meta.FileName), e.Meta).check(e, raws); err != nil {
			return nil, err
		}
	}
	for _, r := range raws {
		if e.Summary(r.Type) == nil {
			e.Warnings = append(e.Warnings, fmt.Sprintf("%s has no summary %s, so sub-experiment %s is left out: run process on %s",
				r.Path, SummaryFileName(r.Type), r.Type, dir))
		}
	}
	return e, nil
}

// ReadThroughputFile reads a throughput summary (formats §9), refusing a file
// without rows and a row whose key (result.Key) repeats an earlier one's:
// a gate matches rows on it, so a repeat is ambiguous.
func ReadThroughputFile(path string) ([]result.ThroughputRow, error) {
	f, err := fileerr.OpenRegular(path, "a throughput summary")
	if err != nil {
		return nil, fileerr.Unreadable(path, "throughput summary", err)
	}
	defer f.Close()
	rows, err := result.ReadThroughput(f, path)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fileerr.New(path, 2, "", "no rows: expected one row per payload and offered load after the header (formats §9)")
	}
	for i, r := range rows {
		for j := range i {
			if rows[j].Key() != r.Key() {
				continue
			}
			if r.Mode == result.ModeWindow {
				return nil, fileerr.New(path, i+2, "", "a second window row for payload %d B (line %d): expected one per payload, the best F of the search (formats §9)",
					r.Payload, j+2)
			}
			return nil, fileerr.New(path, i+2, "", "payload %d B, mode %s, offered %s repeats line %d: expected one row per payload, mode and offered rate",
				r.Payload, r.Mode, result.FormatOffered(r.Offered), j+2)
		}
	}
	return rows, nil
}

// readBurst reads a burst summary (formats §9), refusing a file without
// rows.
func readBurst(path string) ([]result.BurstRow, error) {
	f, err := fileerr.OpenRegular(path, "a burst summary")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := result.ReadBurst(f, path)
	if err == nil && len(rows) == 0 {
		err = fileerr.New(path, 2, "", "no rows: expected one row per payload after the header (formats §9)")
	}
	return rows, err
}

// readMeta reads the meta.json of experiment dir, a regular file: its path,
// and nil when dir has none.
func readMeta(dir string) (path string, m *meta.Meta, err error) {
	path = filepath.Join(dir, meta.FileName)
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return path, nil, nil
	}
	f, err := fileerr.OpenRegular(path, "the run's "+meta.FileName)
	if err == nil {
		defer f.Close()
		m, err = meta.Decode(f, path)
	}
	if err != nil {
		return path, nil, fileerr.Unreadable(path, "meta.json", err)
	}
	return path, m, nil
}

// FreshBurstSummaryFiles is BurstSummaryFiles, refusing a summary whose
// raw burst file changed after it (checkFresh): the tools that read burst
// summaries alone (requirements --burst-output-file, check) used a stale
// one without a word.
func FreshBurstSummaryFiles(dir string) ([]File, error) {
	files, err := BurstSummaryFiles(dir)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if err := checkFresh(dir, f, BurstFileName(f.Type)); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// checkFresh returns an error when the summary f is stale: its raw file,
// rawName in dir, was modified more than StaleTolerance after it. Without a
// raw file (published Fast-RTPS summaries come alone) there is nothing to
// compare with.
func checkFresh(dir string, f File, rawName string) error {
	raw, err := os.Stat(filepath.Join(dir, rawName))
	if err != nil {
		return nil
	}
	sum, err := os.Stat(f.Path)
	if err != nil {
		return fileerr.Unreadable(f.Path, "summary file", err)
	}
	if d := raw.ModTime().Sub(sum.ModTime()); d > StaleTolerance {
		return fileerr.New(f.Path, 0, "", "stale: %s was modified %s after this summary was written, so the summary may not describe it; run process on %s again",
			rawName, d.Round(time.Second), dir)
	}
	return nil
}

// LoadRoot reads every experiment folder directly under root, on GOMAXPROCS
// goroutines, and returns them in name order with warnings about the entries
// it skipped. An entry is an experiment when it is a directory, or a
// symbolic link to one, holding at least one summary (latency, throughput
// or burst). Every other entry is
// skipped with a warning that names it and says why: a hidden entry, a
// file, a dangling or looping symbolic link, a folder without summaries, a
// second link to an experiment already read. It is an error when root is
// missing or not a directory, when it holds summaries itself (an experiment
// was given instead of a root), when it holds no experiment, and when
// Load fails on an experiment.
func LoadRoot(ctx context.Context, root string) ([]*Experiment, []string, error) {
	dirs, files, warnings, err := discover(root)
	if err != nil {
		return nil, warnings, err
	}
	exps, err := loadAll(ctx, dirs, files)
	return exps, warnings, err
}

// LoadDirs reads the experiment directories dirs (see Load) on GOMAXPROCS
// goroutines and returns them in the order given. When several fail, the
// error is that of the first in order.
func LoadDirs(ctx context.Context, dirs []string) ([]*Experiment, error) {
	return loadAll(ctx, dirs, nil)
}

// loadAll loads dirs in parallel; files[i], when given, are dirs[i]'s
// result files, already listed.
func loadAll(ctx context.Context, dirs []string, files []resultFiles) ([]*Experiment, error) {
	exps := make([]*Experiment, len(dirs))
	errs := make([]error, len(dirs))
	err := parallel.Each(ctx, 0, len(dirs), func(i int) {
		if files != nil {
			exps[i], errs[i] = load(dirs[i], files[i])
		} else {
			exps[i], errs[i] = Load(dirs[i])
		}
	})
	if err != nil {
		return nil, err
	}
	// The first bad experiment in order, whatever the goroutines' timing.
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return exps, nil
}

// discover lists the experiment folders under root in name order, with
// their summary, throughput and burst files, and a warning for every entry
// skipped.
func discover(root string) (dirs []string, files []resultFiles, warnings []string, err error) {
	if err := checkDir(root, "a directory holding one folder per experiment", "the experiments directory"); err != nil {
		return nil, nil, nil, err
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, nil, nil, fileerr.New(root, 0, "", "cannot read the experiments directory: %v", fileerr.Cause(err))
	}
	skip := func(path, why string) { warnings = append(warnings, fmt.Sprintf("skipped %s: %s", path, why)) }
	var seen []seenDir
	for _, ent := range entries { // os.ReadDir sorts by name
		name := ent.Name()
		path := filepath.Join(root, name)
		if strings.HasPrefix(name, ".") {
			skip(path, "hidden")
			continue
		}
		st, err := os.Stat(path)
		if err != nil {
			if ent.Type()&fs.ModeSymlink == 0 {
				return nil, nil, warnings, fileerr.New(path, 0, "", "cannot read: %v", fileerr.Cause(err))
			}
			if errors.Is(err, fs.ErrNotExist) {
				skip(path, "a symbolic link to nothing (dangling)")
			} else {
				skip(path, fmt.Sprintf("a symbolic link that cannot be followed (%v)", fileerr.Cause(err)))
			}
			continue
		}
		if !st.IsDir() {
			skip(path, "not a directory")
			continue
		}
		if i := slices.IndexFunc(seen, func(s seenDir) bool { return os.SameFile(s.info, st) }); i >= 0 {
			skip(path, fmt.Sprintf("the same directory as %s, read once", seen[i].path))
			continue
		}
		rf, err := allResultFiles(path)
		if err != nil {
			return nil, nil, warnings, err
		}
		if rf.empty() {
			skip(path, fmt.Sprintf("no %s in it (run process on it first?), nor %s", SummaryFileName("<type>"), ThroughputFileName("<type>")))
			continue
		}
		seen = append(seen, seenDir{path, st})
		dirs = append(dirs, path)
		files = append(files, rf)
	}
	if len(dirs) == 0 {
		if rf, _ := allResultFiles(root); !rf.empty() {
			return nil, nil, warnings, fileerr.New(root, 0, "", "holds summaries itself but no experiment folder: pass the directory that holds the experiment folders")
		}
		if len(entries) == 0 {
			return nil, nil, warnings, fileerr.New(root, 0, "", "holds nothing: expected one folder per experiment, each holding %s files", SummaryFileName("<type>"))
		}
		return nil, nil, warnings, fileerr.New(root, 0, "", "no experiment: no folder in it holds a summary (%s); run process on the experiments first (no folder holds a throughput summary %s either)", SummaryFileName("<type>"), ThroughputFileName("<type>"))
	}
	return dirs, files, warnings, nil
}

type seenDir struct {
	path string
	info fs.FileInfo
}

// SortChronological orders exps by start time, ties broken by name, then
// the undated ones by name. Names compare in natural order, so that
// "build-9" comes before "build-10".
func SortChronological(exps []*Experiment) {
	sort.SliceStable(exps, func(i, j int) bool {
		a, b := exps[i], exps[j]
		if az, bz := a.Start.IsZero(), b.Start.IsZero(); az != bz {
			return bz
		}
		if !a.Start.Equal(b.Start) {
			return a.Start.Before(b.Start)
		}
		return NaturalLess(a.Name, b.Name)
	})
}

// NaturalLess compares a and b with runs of digits compared as numbers.
func NaturalLess(a, b string) bool {
	for a != "" && b != "" {
		ra, rb := a[0], b[0]
		if isDigit(ra) && isDigit(rb) {
			na, nb := digitRun(a), digitRun(b)
			// Compare numerically: ignore leading zeros, longer is larger.
			ta, tb := strings.TrimLeft(a[:na], "0"), strings.TrimLeft(b[:nb], "0")
			if len(ta) != len(tb) {
				return len(ta) < len(tb)
			}
			if ta != tb {
				return ta < tb
			}
			if na != nb {
				return na < nb
			}
			a, b = a[na:], b[nb:]
			continue
		}
		if ra != rb {
			return ra < rb
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func digitRun(s string) int {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}

// baseName is the base name of dir, made absolute first so that "." and
// "results/" name the experiment too.
func baseName(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return filepath.Base(dir)
}

// Folders returns the names of dir's sub-folders that are experiments
// (holding meta.json, or raw or summary files), sorted: a tool given a
// results root where it expects one experiment says so with them.
func Folders(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, ent := range entries {
		path := filepath.Join(dir, ent.Name())
		if strings.HasPrefix(ent.Name(), ".") {
			continue
		}
		if st, err := os.Stat(path); err != nil || !st.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(path, meta.FileName)); err == nil {
			out = append(out, ent.Name())
			continue
		}
		raw, _ := RawFiles(path)
		if rf, _ := allResultFiles(path); len(raw) > 0 || !rf.empty() {
			out = append(out, ent.Name())
		}
	}
	return out
}

// RootHint is the clause that names the experiments of a results root
// given where one experiment was expected, and example, a command line with
// PATH standing for one of them; "" when dir holds no experiment folder.
func RootHint(dir, example string) string {
	names := Folders(dir)
	if len(names) == 0 {
		return ""
	}
	list := strings.Join(names[:min(3, len(names))], ", ")
	if len(names) > 3 {
		list += ", …"
	}
	plural := "s"
	if len(names) == 1 {
		plural = ""
	}
	return fmt.Sprintf("it is a results root holding %d experiment%s (%s), not an experiment: %s",
		len(names), plural, list, strings.ReplaceAll(example, "PATH", filepath.Join(dir, names[0])))
}
