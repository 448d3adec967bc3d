package unpaired

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// WelchWorse is the one-sided p-value of Welch's t-test (Welch 1947, "The
// generalization of 'Student's' problem when several different population
// variances are involved", Biometrika 34: 28–35) of the log values of the
// reference and candidate runs, against "the candidate is worse": a higher
// log mean, or a lower one when higherIsBetter. It keeps its level, nearly,
// for log-normal runs whatever the two spreads. ok is false when it does
// not apply: a side with fewer than 2 runs, a value ≤ 0, or no spread at
// all.
func WelchWorse(reference, candidate []float64, higherIsBetter bool) (p float64, ok bool) {
	moments := func(v []float64) (mean, variance float64, ok bool) {
		if len(v) < 2 {
			return 0, 0, false
		}
		for _, e := range v {
			if !(e > 0) || math.IsInf(e, 1) {
				return 0, 0, false
			}
			mean += math.Log(e)
		}
		mean /= float64(len(v))
		for _, e := range v {
			d := math.Log(e) - mean
			variance += d * d
		}
		return mean, variance / float64(len(v)-1), true
	}
	mr, vr, okr := moments(reference)
	mc, vc, okc := moments(candidate)
	if !okr || !okc {
		return math.NaN(), false
	}
	a, b := vr/float64(len(reference)), vc/float64(len(candidate))
	if a+b == 0 {
		return math.NaN(), false
	}
	t := (mc - mr) / math.Sqrt(a+b)
	if higherIsBetter {
		t = -t
	}
	df := (a + b) * (a + b) / (a*a/float64(len(reference)-1) + b*b/float64(len(candidate)-1))
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(t), true
}
