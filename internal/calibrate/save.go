package calibrate

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

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

// ParseFactors parses a comma-separated list of regression factors
// ("1.05,1.1,2"); Run checks that each is above 1.
func ParseFactors(s string) ([]float64, error) {
	var fs []float64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		x, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number: expected factors above 1 such as 1.1,1.2,1.5", f)
		}
		fs = append(fs, x)
	}
	return fs, nil
}
