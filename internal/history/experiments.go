package history

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/meta"
)

// Experiment is one experiment folder under the results root.
type Experiment struct {
	// Name is the folder name.
	Name string
	// Dir is the folder path.
	Dir string
	// Start is when the experiment started; zero when unknown.
	Start time.Time
	// StartFrom says where Start comes from: "meta.json", "name" or "" when
	// unknown.
	StartFrom string
	// Version and Commit of the system under test, from meta.json; empty
	// when unknown.
	Version, Commit string
	// Summaries are the experiment's summary files, sorted by type.
	Summaries []experiment.File
}

// Label is the x-axis label of the experiment: its name, followed by the
// version of the system under test, else its commit (abbreviated), when known.
func (e Experiment) Label() string {
	if s := e.System(); s != "" {
		return e.Name + " " + s
	}
	return e.Name
}

// System returns the version of the system under test, else its commit
// abbreviated to 8 characters, else "".
func (e Experiment) System() string {
	switch {
	case e.Version != "":
		return e.Version
	case e.Commit != "":
		c := e.Commit
		if len(c) > 8 {
			c = c[:8]
		}
		return c
	}
	return ""
}

// Discover lists the experiments under root, in chronological order (see the
// package documentation). A sub-folder is an experiment when it holds at
// least one summary file; other sub-folders and hidden entries are skipped
// with a warning. It fails when root is missing or is not a directory, when a
// meta.json is malformed, and when there is no experiment at all.
func Discover(root string) (exps []Experiment, warnings []string, err error) {
	st, err := os.Stat(root)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("%s: experiments directory does not exist", root)
		}
		return nil, nil, err
	}
	if !st.IsDir() {
		return nil, nil, fmt.Errorf("%s: not a directory: expected a directory holding one folder per experiment", root)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, nil, err
	}
	var skipped []string
	for _, ent := range entries {
		name := ent.Name()
		if strings.HasPrefix(name, ".") || !isDir(root, ent) {
			continue
		}
		dir := filepath.Join(root, name)
		files, err := experiment.SummaryFiles(dir)
		if err != nil {
			return nil, nil, err
		}
		if len(files) == 0 {
			skipped = append(skipped, name)
			continue
		}
		e := Experiment{Name: name, Dir: dir, Summaries: files}
		if err := readMeta(&e); err != nil {
			return nil, nil, err
		}
		if e.Start.IsZero() {
			if t, err := time.Parse(experiment.DirTimeLayout, name); err == nil {
				e.Start, e.StartFrom = t, "name"
			}
		}
		exps = append(exps, e)
	}
	if len(skipped) > 0 {
		warnings = append(warnings, fmt.Sprintf("skipped %d folder(s) without measurements_<type>_summary.csv (run process first?): %s",
			len(skipped), list(skipped, 5)))
	}
	if len(exps) == 0 {
		return nil, warnings, fmt.Errorf("%s: no experiments: expected sub-folders holding measurements_<type>_summary.csv files (run process first?)", root)
	}
	SortExperiments(exps)
	var undated []string
	for _, e := range exps {
		if e.Start.IsZero() {
			undated = append(undated, e.Name)
		}
	}
	if len(undated) > 0 {
		warnings = append(warnings, fmt.Sprintf("%d experiment(s) have no start time (no %s, folder name not %s): ordered by name after the dated ones: %s",
			len(undated), meta.FileName, "YYYY-MM-DD_HH-MM-SS", list(undated, 5)))
	}
	return exps, warnings, nil
}

// isDir reports whether ent is a directory, following a symbolic link.
func isDir(root string, ent fs.DirEntry) bool {
	if ent.IsDir() {
		return true
	}
	if ent.Type()&fs.ModeSymlink == 0 {
		return false
	}
	st, err := os.Stat(filepath.Join(root, ent.Name()))
	return err == nil && st.IsDir()
}

// readMeta fills e's start time and system from its meta.json, if any.
func readMeta(e *Experiment) error {
	path := filepath.Join(e.Dir, meta.FileName)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	m, err := meta.ReadFile(path)
	if err != nil {
		return err
	}
	if !m.Start.IsZero() {
		e.Start, e.StartFrom = m.Start, meta.FileName
	}
	e.Version, e.Commit = m.System.Version, m.System.Commit
	return nil
}

// SortExperiments orders exps chronologically: dated experiments by start
// time, ties broken by name, then undated ones by name. Names compare in
// natural order, so that "build-9" comes before "build-10".
func SortExperiments(exps []Experiment) {
	sort.SliceStable(exps, func(i, j int) bool {
		a, b := exps[i], exps[j]
		if az, bz := a.Start.IsZero(), b.Start.IsZero(); az != bz {
			return bz
		}
		if !a.Start.Equal(b.Start) {
			return a.Start.Before(b.Start)
		}
		return naturalLess(a.Name, b.Name)
	})
}

// naturalLess compares a and b with runs of digits compared as numbers.
func naturalLess(a, b string) bool {
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

// list joins at most max names, saying how many more there are.
func list(names []string, max int) string {
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:max], ", "), len(names)-max)
}
