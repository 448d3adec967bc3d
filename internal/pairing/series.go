package pairing

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/csvfile"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/stats/paired"
)

// SeriesSuffix ends the name of the series file `run ab` writes into its
// --out: NAME-series.csv (formats §12).
const SeriesSuffix = "-series.csv"

// SeriesHeader is the series file's header (formats §12).
var SeriesHeader = []string{"Unit", "Position", "Side", "Run", "Experiment", "Start", "Design", "Seed"}

// The sides and designs a series file names (formats §12).
const (
	SideReference = "reference"
	SideCandidate = "candidate"
	// DesignRandom: units are pairs, one run of each side in either order.
	DesignRandom = "random"
	// DesignABBA: units are blocks of four runs, reference, candidate,
	// candidate, reference, or the other way round.
	DesignABBA = "abba"
)

// abbaSides is the order of the sides in an ABBA block whose first run is
// the reference's; a block may also run the other way round, B A A B (run
// ab draws each block's orientation from its seed; series files written
// before it did so hold A B B A blocks only).
var abbaSides = []string{SideReference, SideCandidate, SideCandidate, SideReference}

// SeriesRun is one row of a series file: one run of the series.
type SeriesRun struct {
	Line       int // the row's line in the file
	Unit       int
	Position   int
	Side       string
	Run        int
	Experiment string // relative to the file's folder, with /
	Start      time.Time
}

// Series is a series file read and checked (ReadSeries): the runs of an
// A/B series in the order they started, grouped in units.
type Series struct {
	Path   string
	Design string // DesignRandom or DesignABBA
	Runs   []SeriesRun
	// Units is the number of complete units; Partial names the runs of a
	// last unit that is incomplete (the series was interrupted), which a
	// comparison leaves out.
	Units   int
	Partial []SeriesRun
}

// PairedDesign is the paired analysis' design of the series' units.
func (s *Series) PairedDesign() paired.Design {
	if s.Design == DesignABBA {
		return paired.ABBA
	}
	return paired.Pairs
}

// UnitWord names the series' units, plural: "pairs" or "blocks".
func (s *Series) UnitWord() string {
	if s.Design == DesignABBA {
		return "blocks"
	}
	return "pairs"
}

// unitSize is the number of runs of a unit of the design.
func unitSize(design string) int {
	if design == DesignABBA {
		return len(abbaSides)
	}
	return 2
}

// FindSeries returns the series files (NAME-series.csv) in dir, sorted.
func FindSeries(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*"+SeriesSuffix))
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	return files, nil
}

// ReadSeries reads and checks the series file at path (formats §12): the
// header; every row's unit (from 1, each unit's rows together, in order),
// position (1, 2, … in row order), side, run number (each once per side),
// experiment (once, relative to the file's folder), start time (never
// earlier than the row before), design and seed (the same in every row);
// each unit's sides as its design lays them out (random: one of each;
// abba: reference, candidate, candidate, reference). Only the last unit may
// be incomplete (an interrupted series): it becomes Partial. Every error
// names the file, the line, the column and what was expected.
func ReadSeries(path string) (*Series, error) {
	f, err := fileerr.OpenRegular(path, "the series file of run ab")
	if err != nil {
		if fe, ok := fileerr.As(err); ok {
			return nil, fe
		}
		return nil, fileerr.New(path, 0, "", "cannot read the series file: %v", err)
	}
	defer f.Close()
	cr := csvfile.NewReader(f)
	if err := csvfile.ReadHeader(cr, path, SeriesHeader); err != nil {
		return nil, err
	}
	sr := &seriesReader{s: &Series{Path: path}, path: path, experiments: map[string]int{}, runs: map[[2]string]int{}}
	s := sr.s
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvfile.Error(path, err)
		}
		r, err := sr.row(line, rec)
		if err != nil {
			return nil, err
		}
		s.Runs = append(s.Runs, r)
	}
	if len(s.Runs) == 0 {
		return nil, fileerr.New(path, 0, "", "no runs: expected a row per run after the header")
	}
	s.Units = s.Runs[len(s.Runs)-1].Unit
	s.dropLastUnit(unitSize(s.Design))
	return s, nil
}

// dropLastUnit makes the last unit Partial when it has fewer than least runs.
func (s *Series) dropLastUnit(least int) {
	last := s.Runs[len(s.Runs)-1].Unit
	if i := slices.IndexFunc(s.Runs, func(r SeriesRun) bool { return r.Unit == last }); len(s.Runs)-i < least {
		s.Partial = slices.Clone(s.Runs[i:])
		s.Runs = s.Runs[:i]
		s.Units--
	}
}

// partialNames lists the experiments of the Partial runs.
func (s *Series) partialNames() string {
	var names []string
	for _, r := range s.Partial {
		names = append(names, r.Experiment)
	}
	return strings.Join(names, ", ")
}

// seriesReader is ReadSeries reading the rows of one file into s.
type seriesReader struct {
	s          *Series
	path       string
	seed, stem string // line 2's seed, the experiments' NAME (checkExperiment)
	// experiments and runs are the line of each experiment folder and of
	// each side's run number, which must not come twice.
	experiments map[string]int
	runs        map[[2]string]int
}

// badCell is the error for a cell of a series file's row: the file, the
// line, the column (CSV header name) and what was expected.
type badCell func(col, format string, args ...any) error

// row reads the row at line after the rows before it.
func (sr *seriesReader) row(line int, rec []string) (SeriesRun, error) {
	bad := badCell(func(col, format string, args ...any) error {
		return fileerr.New(sr.path, line, col, format, args...)
	})
	if len(rec) != len(SeriesHeader) {
		return SeriesRun{}, bad("", "%d fields, expected %d (%s)", len(rec), len(SeriesHeader), strings.Join(SeriesHeader, ","))
	}
	s := sr.s
	r := SeriesRun{Line: line, Side: rec[2], Experiment: rec[4]}
	var err error
	for _, n := range []struct {
		col string
		v   string
		to  *int
	}{{"Unit", rec[0], &r.Unit}, {"Position", rec[1], &r.Position}, {"Run", rec[3], &r.Run}} {
		if *n.to, err = strconv.Atoi(n.v); err != nil || *n.to < 1 {
			return SeriesRun{}, bad(n.col, "%q: expected a whole number from 1", n.v)
		}
	}
	if r.Position != len(s.Runs)+1 {
		return SeriesRun{}, bad("Position", "%d: expected %d (the rows are the runs in the order they started)", r.Position, len(s.Runs)+1)
	}
	if r.Side != SideReference && r.Side != SideCandidate {
		return SeriesRun{}, bad("Side", "%q: expected %s or %s", r.Side, SideReference, SideCandidate)
	}
	if prev, dup := sr.runs[[2]string{r.Side, rec[3]}]; dup {
		return SeriesRun{}, bad("Run", "%s run %d is listed twice (also on line %d)", r.Side, r.Run, prev)
	}
	sr.runs[[2]string{r.Side, rec[3]}] = line
	if err := sr.experiment(r, bad); err != nil {
		return SeriesRun{}, err
	}
	if err := sr.startAndDesign(&r, rec, bad); err != nil {
		return SeriesRun{}, err
	}
	if err := s.checkUnit(r, rec[0]); err != nil {
		return SeriesRun{}, err
	}
	return r, nil
}

// experiment checks run r's experiment folder: relative, the one run ab
// gives the run, and listed once.
func (sr *seriesReader) experiment(r SeriesRun, bad badCell) error {
	if r.Experiment == "" || filepath.IsAbs(filepath.FromSlash(r.Experiment)) {
		return bad("Experiment", "%q: expected the experiment folder relative to the series file's folder, e.g. %s/NAME-01", r.Experiment, r.Side)
	}
	if err := sr.s.checkExperiment(r, &sr.stem); err != nil {
		return bad("Experiment", "%v", err)
	}
	key := filepath.Clean(filepath.FromSlash(r.Experiment))
	if prev, dup := sr.experiments[key]; dup {
		return bad("Experiment", "%s is listed twice (also on line %d)", r.Experiment, prev)
	}
	sr.experiments[key] = r.Line
	return nil
}

// startAndDesign reads run r's start time, never earlier than the run
// before, and checks its design and seed are line 2's (line 2 sets them).
func (sr *seriesReader) startAndDesign(r *SeriesRun, rec []string, bad badCell) error {
	s := sr.s
	var err error
	if r.Start, err = time.Parse(time.RFC3339Nano, rec[5]); err != nil {
		return bad("Start", "%q: expected a time in RFC 3339, e.g. 2026-11-27T13:03:07.97873606Z", rec[5])
	}
	if n := len(s.Runs); n > 0 && r.Start.Before(s.Runs[n-1].Start) {
		return bad("Start", "%s is earlier than the run before (line %d, %s): expected the runs in the order they started",
			rec[5], s.Runs[n-1].Line, s.Runs[n-1].Start.Format(time.RFC3339Nano))
	}
	if len(s.Runs) == 0 {
		s.Design, sr.seed = rec[6], rec[7]
		if s.Design != DesignRandom && s.Design != DesignABBA {
			return bad("Design", "%q: expected %s or %s", s.Design, DesignRandom, DesignABBA)
		}
	}
	if rec[6] != s.Design {
		return bad("Design", "%q, but line 2 says %q: expected one design for the whole series", rec[6], s.Design)
	}
	if rec[7] != sr.seed {
		return bad("Seed", "%q, but line 2 says %q: expected one seed for the whole series", rec[7], sr.seed)
	}
	return nil
}

// checkExperiment checks that run r's experiment is the folder run ab
// gives the side's run r.Run: SIDE/NAME-NN, with NN the run number and
// NAME the same in every row (stem, "" until the first row sets it). A
// row whose Experiment cell was swapped with another's would otherwise
// pair other runs without a word.
func (s *Series) checkExperiment(r SeriesRun, stem *string) error {
	folder, base, _ := strings.Cut(r.Experiment, "/")
	name, num, ok := cutLast(base, "-")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || num == "" || num[0] == '+' || num[0] == '-' || name == "" || strings.Contains(base, "/") {
		return fmt.Errorf("%q: expected %s/NAME-%02d, the folder of %s run %d", r.Experiment, r.Side, r.Run, r.Side, r.Run)
	}
	if n != r.Run {
		return fmt.Errorf("%s is run %d of its side, but column \"Run\" says %d: expected %s/%s-%02d (the rows are the runs as run ab made them)",
			r.Experiment, n, r.Run, r.Side, name, r.Run)
	}
	if folder != r.Side {
		return fmt.Errorf("%s lies in %s/, but column \"Side\" says %s: expected %s/%s", r.Experiment, folder, r.Side, r.Side, base)
	}
	if *stem == "" {
		*stem = name
	} else if name != *stem {
		return fmt.Errorf("%s is named %s-NN, but line 2 says %s-NN: expected one series name in every row", r.Experiment, name, *stem)
	}
	return nil
}

// cutLast slices s around the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// checkUnit checks that run r (whose Unit field reads unit) continues the
// series' units: the same unit as the row before or the next one, and the
// side its place in the unit calls for.
func (s *Series) checkUnit(r SeriesRun, unit string) error {
	size := unitSize(s.Design)
	var same []SeriesRun
	prevUnit := 0
	if n := len(s.Runs); n > 0 {
		prevUnit = s.Runs[n-1].Unit
		for i := n - 1; i >= 0 && s.Runs[i].Unit == prevUnit; i-- {
			same = append(same, s.Runs[i])
		}
	}
	switch {
	case r.Unit == prevUnit && len(same) < size:
	case r.Unit == prevUnit+1 && (prevUnit == 0 || len(same) == size):
		same = nil
	default:
		want := fmt.Sprintf("%d", prevUnit+1)
		if prevUnit > 0 && len(same) < size {
			want = fmt.Sprintf("%d (unit %d has %d of its %d runs)", prevUnit, prevUnit, len(same), size)
		}
		return fileerr.New(s.Path, r.Line, "Unit", "%s: expected %s", unit, want)
	}
	if s.Design == DesignABBA {
		// same holds the block's runs so far, the latest first: the
		// block's first run sets its orientation.
		if len(same) > 0 {
			want := abbaSides[len(same)]
			if same[len(same)-1].Side != SideReference {
				want = other(want)
			}
			if r.Side != want {
				return fileerr.New(s.Path, r.Line, "Side", "%s: expected %s, run %d of block %d, which began with %s on line %d (blocks run reference, candidate, candidate, reference or candidate, reference, reference, candidate)",
					r.Side, want, len(same)+1, r.Unit, same[len(same)-1].Side, same[len(same)-1].Line)
			}
		}
	} else if len(same) == 1 && same[0].Side == r.Side {
		return fileerr.New(s.Path, r.Line, "Side", "%s: expected %s (pair %d has its %s run on line %d; a pair is one run of each side)",
			r.Side, other(r.Side), r.Unit, r.Side, same[0].Line)
	}
	return nil
}

func other(side string) string {
	if side == SideReference {
		return SideCandidate
	}
	return SideReference
}

// Pairs returns the pairs of the series' complete units, in unit order,
// matching every run listed to the experiment of refs (the reference side)
// or cands (the candidate side) in its folder: with DesignABBA each block
// gives two pairs, its first reference and candidate runs then its second,
// which paired.ABBA takes as one unit. The series and the experiments must
// match: an experiment given that the series does not list (or lists on
// the other side), and a run of a complete unit whose experiment is not
// given, are errors naming the file, the line and what was expected. The
// runs of an incomplete last unit are left out, and a warning says which.
func (s *Series) Pairs(refs, cands []*experiment.Experiment) ([]Pair, []string, error) {
	root := filepath.Dir(s.Path)
	dir := func(r SeriesRun) string { return filepath.Join(root, filepath.FromSlash(r.Experiment)) }
	byPath := map[string]*SeriesRun{}
	for i := range s.Runs {
		byPath[absPath(dir(s.Runs[i]))] = &s.Runs[i]
	}
	partial := map[string]bool{}
	for _, r := range s.Partial {
		partial[absPath(dir(r))] = true
	}
	given := map[*SeriesRun]*experiment.Experiment{}
	flags := map[string]string{SideReference: "--reference", SideCandidate: "--results"}
	for _, side := range []struct {
		name string
		exps []*experiment.Experiment
	}{{SideReference, refs}, {SideCandidate, cands}} {
		for _, e := range side.exps {
			p := absPath(e.Dir)
			r, ok := byPath[p]
			switch {
			case ok && r.Side != side.name:
				return nil, nil, fileerr.New(s.Path, r.Line, "Side", "%s is a %s run here, but %s gives it: expected it among the %s runs",
					r.Experiment, r.Side, flags[side.name], r.Side)
			case ok:
				given[r] = e
			default:
				if partial[p] {
					continue // left out, with a warning
				}
				return nil, nil, fileerr.New(s.Path, 0, "", "%s (given by %s) is not listed: expected a row for every run compared, as run ab writes them",
					e.Dir, flags[side.name])
			}
		}
	}
	for i := range s.Runs {
		r := &s.Runs[i]
		if given[r] == nil {
			return nil, nil, fileerr.New(s.Path, r.Line, "Experiment", "%s, %s run %d of unit %d, is not among the runs of %s: expected its experiment folder %s",
				r.Experiment, r.Side, r.Run, r.Unit, flags[r.Side], dir(*r))
		}
	}
	var warnings []string
	if w := s.dropInterrupted(given); w != "" {
		warnings = append(warnings, w)
	}
	var pairs []Pair
	for u := 1; u <= s.Units; u++ {
		var ref, cand []*experiment.Experiment
		for i := range s.Runs {
			if r := &s.Runs[i]; r.Unit == u {
				if r.Side == SideReference {
					ref = append(ref, given[r])
				} else {
					cand = append(cand, given[r])
				}
			}
		}
		for k := range ref {
			pairs = append(pairs, Pair{Name: fmt.Sprintf("%s %d", strings.TrimSuffix(s.UnitWord(), "s"), u), Reference: ref[k], Candidate: cand[k]})
		}
	}
	if len(s.Partial) > 0 && len(warnings) == 0 {
		warnings = append(warnings, fmt.Sprintf("%s: unit %d has %d of its %d runs (the series was interrupted); left out: %s",
			s.Path, s.Partial[0].Unit, len(s.Partial), unitSize(s.Design), s.partialNames()))
	}
	return pairs, warnings, nil
}

// dropInterrupted leaves out the last unit when it lists all its runs but
// its last run, the series' last row, did not complete (meta.json says
// so): the series was interrupted, or stopped on an error, during that
// run, after the file had listed it. The unit becomes Partial, and the
// warning says why. given maps the listed runs to their experiments.
func (s *Series) dropInterrupted(given map[*SeriesRun]*experiment.Experiment) string {
	if len(s.Partial) > 0 || len(s.Runs) == 0 {
		return ""
	}
	last := &s.Runs[len(s.Runs)-1]
	e := given[last]
	if e == nil || e.Completed() {
		return ""
	}
	s.dropLastUnit(math.MaxInt)
	return fmt.Sprintf("%s: unit %d lists its %d runs, but its last, %s, did not complete (%s): the series stopped during it; left out: %s",
		s.Path, last.Unit, len(s.Partial), last.Experiment, e.Incompleteness(), s.partialNames())
}

// absPath returns p absolute and clean, or clean when it has no absolute
// form.
func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}
