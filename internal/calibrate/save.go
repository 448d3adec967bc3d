package calibrate

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/numflag"
	"github.com/mqgate/mqgate/internal/plots"
)

// SavePlots writes r's plots into dir: the power curve as
// <stem>_power.<ext> (PowerPlot), the verdicts per factor as
// <stem>_outcomes.<ext> (OutcomePlot) and, when r has them, the verdicts
// per threshold as <stem>_thresholds.<ext> (ThresholdPlot). It returns the
// paths written.
func SavePlots(r *Result, dir, stem string, f plots.Format) ([]string, error) {
	power := filepath.Join(dir, stem+"_power"+f.Ext())
	if err := plots.Save(PowerPlot(r), power, f); err != nil {
		return nil, err
	}
	op, err := OutcomePlot(r)
	if err != nil {
		return nil, err
	}
	outcomes := filepath.Join(dir, stem+"_outcomes"+f.Ext())
	if err := plots.Save(op, outcomes, f); err != nil {
		return nil, err
	}
	paths := []string{power, outcomes}
	if len(r.Thresholds) > 0 {
		tp, err := ThresholdPlot(r)
		if err != nil {
			return nil, err
		}
		thresholds := filepath.Join(dir, stem+"_thresholds"+f.Ext())
		if err := plots.Save(tp, thresholds, f); err != nil {
			return nil, err
		}
		paths = append(paths, thresholds)
	}
	return paths, nil
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
