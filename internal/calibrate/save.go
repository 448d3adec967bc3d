package calibrate

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/numflag"
	"github.com/mqgate/mqgate/internal/plots"
)

// Save writes r's JSON (WriteJSON) to jsonPath, unless it is "", and its
// plots into dir in format f: the power curve <stem>_power (PowerPlot),
// the verdicts per factor <stem>_outcomes (OutcomePlot) and, when r has
// them, the verdicts per threshold <stem>_thresholds (ThresholdPlot). They
// are one set (atomicfile.WriteAll, each error naming --json or
// --plots-directory): they land together or not at all. Save then removes
// the plots of an earlier call that this one did not write (RemoveStale),
// and returns the paths of the plots.
func Save(r *Result, jsonPath, dir, stem string, f plots.Format) ([]string, error) {
	var files []atomicfile.File
	if jsonPath != "" {
		files = append(files, atomicfile.File{Flag: "--json", Path: jsonPath, Write: func(w io.Writer) error { return WriteJSON(w, r) }})
	}
	var paths []string
	add := func(name string, p *plot.Plot) {
		path := filepath.Join(dir, stem+name+f.Ext())
		files = append(files, atomicfile.File{Flag: "--plots-directory", Path: path, Write: func(w io.Writer) error { return plots.Encode(w, p, f) }})
		paths = append(paths, path)
	}
	op, err := OutcomePlot(r)
	if err != nil {
		return nil, err
	}
	add("_power", PowerPlot(r))
	add("_outcomes", op)
	if len(r.Thresholds) > 0 {
		tp, err := ThresholdPlot(r)
		if err != nil {
			return nil, err
		}
		add("_thresholds", tp)
	}
	if err := atomicfile.WriteAll(files); err != nil {
		return nil, err
	}
	if err := RemoveStale(dir, stem, paths); err != nil {
		return nil, fmt.Errorf("--plots-directory: %w", err)
	}
	return paths, nil
}

// RemoveStale removes from dir the calibration plots named after stem
// (<stem>_power, <stem>_outcomes, <stem>_thresholds, either format) that
// are not among written, the files this call wrote: left, a thresholds
// plot of an earlier call given --thresholds, or a plot of the other
// format, was shown beside this call's as if it were of it.
func RemoveStale(dir, stem string, written []string) error {
	for _, name := range []string{"_power", "_outcomes", "_thresholds"} {
		for _, f := range []plots.Format{plots.FormatPNG, plots.FormatSVG} {
			path := filepath.Join(dir, stem+name+f.Ext())
			if slices.ContainsFunc(written, func(w string) bool { return filepath.Clean(w) == filepath.Clean(path) }) {
				continue
			}
			if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
				return fmt.Errorf("cannot remove the earlier plot %s: %w", path, err)
			}
		}
	}
	return nil
}

// MaxFactor is the largest regression factor --factors takes.
const MaxFactor = 1000

// The ranges of the calibration flags of compare and requirements: runs
// per side, reference and candidate runs (0: the default from the pool,
// whose size bounds them again), splits.
var (
	PerSideRange   = numflag.Int{Min: 2, Max: 10000, Zero: "half the pool"}
	ReferenceRange = numflag.Int{Min: 2, Max: 10000, Zero: "the pool less the candidate runs"}
	CandidateRange = numflag.Int{Min: 1, Max: 10000, Zero: "half the pool"}
	SplitsRange    = numflag.Int{Min: 1, Max: 100000}
)

// factorsText states the range of a regression factor.
var factorsText = fmt.Sprintf("expected factors above 1 and at most %d, such as 1.1,1.2,1.5", MaxFactor)

// ParseLists parses the --factors list (ParseFactors; nil when "") and
// the list of thresholds of the flag thresholdFlag (numflag.Tolerance). It
// refuses either flag given an empty value (an unset variable), which
// would read as not given: the default factors, no threshold or margin
// table. given tells which flags were given.
func ParseLists(given map[string]bool, factors, thresholdFlag, thresholds string) (fs, ts []float64, err error) {
	for _, l := range [][2]string{{"factors", factors}, {thresholdFlag, thresholds}} {
		if given[l[0]] && strings.TrimSpace(l[1]) == "" {
			return nil, nil, fmt.Errorf("--%s is empty: expected a comma-separated list (an unset variable?); leave the flag out for its default", l[0])
		}
	}
	if factors != "" {
		if fs, err = ParseFactors(factors); err != nil {
			return nil, nil, fmt.Errorf("--factors: %w", err)
		}
	}
	if ts, err = numflag.Tolerance.ParseList(thresholds); err != nil {
		return nil, nil, fmt.Errorf("--%s: %w", thresholdFlag, err)
	}
	return fs, ts, nil
}

// ParseFactors parses a comma-separated list of regression factors
// ("1.05,1.1,2"), each above 1 and at most MaxFactor.
func ParseFactors(s string) ([]float64, error) {
	var fs []float64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		x, err := strconv.ParseFloat(f, 64)
		switch {
		case err != nil && !errors.Is(err, strconv.ErrRange):
			return nil, fmt.Errorf("%q is not a number: %s", f, factorsText)
		case math.IsNaN(x) || math.IsInf(x, 0):
			return nil, fmt.Errorf("%q is not a finite number: %s", f, factorsText)
		case !(x > 1 && x <= MaxFactor):
			return nil, fmt.Errorf("%v is out of range: %s", x, factorsText)
		}
		fs = append(fs, x)
	}
	return fs, nil
}
