package clobber

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
)

// Guard collects a tool's inputs and outputs, by the flag that names them,
// and Check refuses outputs that would overwrite an input or each other.
// Empty paths (flags not given) are ignored. The zero Guard is ready to use.
type Guard struct {
	inputs  []input
	outputs []output
	dirs    []outputDir
}

type inputKind int

const (
	inputFile inputKind = iota
	inputExperiment
	inputRoot
)

type input struct {
	flag, path string
	kind       inputKind
}

type outputKind int

const (
	// outputReport is a file the user asked for (a report): it must not be
	// a file the pipeline owns in any experiment folder.
	outputReport outputKind = iota
	// outputOwned is the pipeline's own file that the tool writes by its
	// role (process's summary beside the raw file it reads).
	outputOwned
	// outputOutside is a report that must not lie in an input experiment
	// at all (requirements' CSVs).
	outputOutside
)

type output struct {
	flag, path string
	kind       outputKind
}

type outputDir struct {
	flag, dir string
	owns      func(rel string) bool
	what      string
	report    bool // a directory of reports: not an experiment, nor a root being read
}

// File declares an input file read by the tool.
func (g *Guard) File(flag, path string) { add(&g.inputs, path, input{flag, path, inputFile}) }

// Experiment declares an input experiment directory: the directory and
// every file the pipeline owns in it (experiment.Owned) are protected.
func (g *Guard) Experiment(flag, dir string) { add(&g.inputs, dir, input{flag, dir, inputExperiment}) }

// Experiments declares a results root: the root and every experiment folder
// in it (followed through symbolic links) are protected as by Experiment.
func (g *Guard) Experiments(flag, root string) { add(&g.inputs, root, input{flag, root, inputRoot}) }

// Output declares a file the tool writes at the user's request (a report,
// a requirements CSV). Besides clashing with an input or another output, it
// is refused when it would be a file the pipeline owns (experiment.Owned)
// in any experiment folder it would land in, whether or not the tool reads
// that experiment: a folder holding meta.json or a raw, summary,
// throughput, load or per-message file.
func (g *Guard) Output(flag, path string) { add(&g.outputs, path, output{flag, path, outputReport}) }

// OwnedOutput declares a file the pipeline owns that the tool writes by its
// role, such as process's measurements_<type>_summary.csv beside the raw
// file it reads. It is refused only when it is an input or another output.
func (g *Guard) OwnedOutput(flag, path string) {
	add(&g.outputs, path, output{flag, path, outputOwned})
}

// OutputOutside declares a file the tool writes that must lie outside
// every input experiment (an experiment directory, or an experiment folder
// of a results root), whatever its name, as well as pass the checks of
// Output: requirements' CSVs, which would otherwise pass for a file of
// that experiment.
func (g *Guard) OutputOutside(flag, path string) {
	add(&g.outputs, path, output{flag, path, outputOutside})
}

// OutputDir declares a directory the tool writes files into by itself: the
// files whose path relative to dir satisfies owns, described by what (e.g.
// "its comparison CSVs and plots"). An input or another output there is
// refused.
func (g *Guard) OutputDir(flag, dir, what string, owns func(rel string) bool) {
	add(&g.dirs, dir, outputDir{flag, dir, owns, what, false})
}

// ReportDir declares a directory of reports (compare's and history's
// --plots-directory) as OutputDir does, and further refuses it when it is
// an experiment folder (any, read or not), lies under an experiment's
// plots/, or is a results root the tool reads or a folder directly in one
// (where the next reader would take it for an experiment).
func (g *Guard) ReportDir(flag, dir, what string, owns func(rel string) bool) {
	add(&g.dirs, dir, outputDir{flag, dir, owns, what, true})
}

// add appends v to list unless path is empty (its flag not given).
func add[T any](list *[]T, path string, v T) {
	if path != "" {
		*list = append(*list, v)
	}
}

// Check returns a usage error (exit code 2) naming both flags of the first
// conflict found: an output that is an input, lies in an input experiment
// as a file the pipeline owns, is one of the files an output directory
// gets, or is given twice; or an input file that an output directory would
// overwrite. It also refuses a report (Output) that would be a file the
// pipeline owns in any experiment folder, an OutputOutside file in an
// input experiment, and a ReportDir that is an experiment or a results
// root being read. Paths are compared made absolute and clean, with
// symbolic links resolved, and as files (os.SameFile) when both exist.
func (g *Guard) Check() error {
	for i, o := range g.outputs {
		for _, p := range g.outputs[:i] {
			if same(o.path, p.path) {
				return exit.Usagef("%s %s and %s %s are the same file: one output would replace the other; give each its own path",
					p.flag, p.path, o.flag, o.path)
			}
		}
		for _, in := range g.inputs {
			if err := clobbers(o, in); err != nil {
				return err
			}
		}
		for _, d := range g.dirs {
			if d.has(o.path) {
				return exit.Usagef("%s %s is one of the files written into %s %s (%s): one output would replace the other; choose another path",
					o.flag, o.path, d.flag, d.dir, d.what)
			}
		}
		if o.kind != outputOwned {
			if exp, what, ok := landsOwned(o.path); ok {
				return exit.Usagef("%s %s lies in the experiment %s, where it is %s (a file the pipeline owns): "+
					"a report must not replace a file of an experiment; choose another path",
					o.flag, o.path, exp, what)
			}
		}
	}
	for _, d := range g.dirs {
		if d.report {
			if err := g.checkReportDir(d); err != nil {
				return err
			}
		}
		for _, in := range g.inputs {
			if in.kind == inputFile && d.has(in.path) {
				return exit.Usagef("%s %s is one of the files written into %s %s (%s): writing them would replace the input; move it or choose another directory",
					in.flag, in.path, d.flag, d.dir, d.what)
			}
		}
	}
	return nil
}

// clobbers returns an error when writing o would overwrite input in.
func clobbers(o output, in input) error {
	refuse := func(format string, args ...any) error {
		return exit.Usagef("%s %s %s: an output must not replace the tool's input; choose another path",
			o.flag, o.path, fmt.Sprintf(format, args...))
	}
	if same(o.path, in.path) {
		what := "file"
		if in.kind != inputFile {
			what = "directory"
		}
		return refuse("is the %s %s %s", in.flag, what, in.path)
	}
	switch in.kind {
	case inputExperiment:
		if what, ok := ownedIn(in.path, o.path); ok {
			return refuse("lies in the %s %s, where it is %s (a file the pipeline owns)", in.flag, in.path, what)
		}
		if _, inside := within(in.path, o.path); inside && o.kind == outputOutside {
			return outside(o, fmt.Sprintf("the %s experiment %s", in.flag, in.path))
		}
	case inputRoot:
		for _, dir := range experimentDirs(in.path) {
			if what, ok := ownedIn(dir, o.path); ok {
				return refuse("lies in the experiment %s of %s %s, where it is %s (a file the pipeline owns)", dir, in.flag, in.path, what)
			}
			if _, inside := within(dir, o.path); inside && o.kind == outputOutside && isExperimentDir(dir) {
				return outside(o, fmt.Sprintf("the experiment %s of %s %s", dir, in.flag, in.path))
			}
		}
	}
	return nil
}

// outside is the error for an OutputOutside file o inside the input
// experiment exp.
func outside(o output, exp string) error {
	return exit.Usagef("%s %s lies in %s, where it would pass for a file of that experiment; write it outside the experiments read",
		o.flag, o.path, exp)
}

// checkReportDir refuses a directory of reports that is an experiment, lies
// under an experiment's plots/, or is, or is directly in, a results root or
// an experiment the tool reads.
func (g *Guard) checkReportDir(d outputDir) error {
	refuse := func(format string, args ...any) error {
		return exit.Usagef("%s %s %s: reports go in a directory of their own; choose another directory",
			d.flag, d.dir, fmt.Sprintf(format, args...))
	}
	dir := Canonical(d.dir)
	for _, in := range g.inputs {
		if in.kind == inputFile {
			continue
		}
		what := "the experiment"
		if in.kind == inputRoot {
			what = "the results root"
		}
		if dir == Canonical(in.path) {
			return refuse("is %s %s %s that the tool reads", what, in.flag, in.path)
		}
	}
	if isExperimentDir(dir) {
		return refuse("is an experiment folder (it holds %s)", experimentEvidence(dir))
	}
	for _, in := range g.inputs {
		if in.kind == inputRoot && filepath.Dir(dir) == Canonical(in.path) {
			return refuse("is a folder in the results root %s %s, where the next reader would take it for an experiment", in.flag, in.path)
		}
	}
	if exp, what, ok := landsOwned(filepath.Join(dir, "report")); ok {
		return refuse("lies in the experiment %s, where its files would be %s (files the pipeline owns)", exp, what)
	}
	return nil
}

// landsOwned reports whether path, once written, would be a file the
// pipeline owns (experiment.Owned) in an experiment folder: the folder, and
// what the file would be there. Only the folders where path's name relative
// to them is an owned one are looked at (its parent, and the parent of a
// plots/ on its way).
func landsOwned(path string) (exp, what string, ok bool) {
	p := Canonical(path)
	for d := filepath.Dir(p); ; d = filepath.Dir(d) {
		if rel, err := filepath.Rel(d, p); err == nil {
			if w, owned := experiment.Owned(rel); owned && isExperimentDir(d) {
				return d, w, true
			}
		}
		if filepath.Dir(d) == d {
			return "", "", false
		}
	}
}

// isExperimentDir reports whether dir is an experiment folder: a directory
// holding meta.json or a file run or process writes (raw measurements, a
// summary, a throughput, load or per-message file). Check reports alone do
// not make one (check --output-directory holds them), nor compare's
// throughput_<type>_comparison.csv (its --plots-directory holds them).
func isExperimentDir(dir string) bool { return experimentEvidence(dir) != "" }

// experimentEvidence returns the name of a file that makes dir an
// experiment folder, or "".
func experimentEvidence(dir string) string {
	if _, err := os.Lstat(filepath.Join(dir, "meta.json")); err == nil {
		return "meta.json"
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if _, ok := experiment.Owned(e.Name()); ok && !strings.HasSuffix(e.Name(), "_comparison.csv") {
			if _, report := experiment.TypeOfCheckReport(e.Name()); !report {
				return e.Name()
			}
		}
	}
	return ""
}

// has reports whether d writes path.
func (d outputDir) has(path string) bool {
	rel, ok := within(d.dir, path)
	return ok && d.owns(filepath.ToSlash(rel))
}

// ownedIn reports whether path is, inside the experiment directory dir, a
// file the pipeline owns, and what it is.
func ownedIn(dir, path string) (string, bool) {
	if rel, ok := within(dir, path); ok {
		if what, ok := experiment.Owned(rel); ok {
			return what, true
		}
	}
	// A hard link, or a path that resolves differently, to one of the
	// experiment's own files.
	st, err := os.Stat(path)
	if err != nil {
		return "", false
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", false
	}
	for _, e := range entries {
		what, ok := experiment.Owned(e.Name())
		if !ok {
			continue
		}
		if fst, err := os.Stat(filepath.Join(dir, e.Name())); err == nil && os.SameFile(st, fst) {
			return what + " (" + e.Name() + ")", true
		}
	}
	return "", false
}

// experimentDirs lists the directories in root, following symbolic links,
// as the experiment loader does; unreadable entries are left out (the loader
// reports them).
func experimentDirs(root string) []string {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var dirs []string
	for _, e := range entries {
		p := filepath.Join(root, e.Name())
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			dirs = append(dirs, p)
		}
	}
	return dirs
}

// within returns path relative to dir when path lies inside dir.
func within(dir, path string) (string, bool) {
	rel, err := filepath.Rel(Canonical(dir), Canonical(path))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// same reports whether a and b name the same file: equal canonical paths,
// or, when both exist, the same file.
func same(a, b string) bool {
	if Canonical(a) == Canonical(b) {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// Canonical returns path absolute and clean, with symbolic links resolved
// in its longest existing prefix (the rest may not exist yet).
func Canonical(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	var rest []string
	for p := abs; ; {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return abs
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p = parent
	}
}
