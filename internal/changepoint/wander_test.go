package changepoint

import (
	"math"
	"slices"
	"testing"
)

// wanderSeries is 30 values of AR(1) noise (φ = 0.6, sd 4 around 100,
// numpy's default_rng(2), rounded to 3 decimals), cut by
// TestWanderReference at 12 and 21 as a detector might. Reference values
// from numpy: the segments' residual sum of squares 327.1169486944445,
// the AR(1) fit's 298.0123901287296 with φ 0.29327406924051247, BIC
// 98.883 against 79.082 (the AR(1) fit wins), and the bound returned
// 0.7150815498484846.
var wanderSeries = []float64{100.756, 98.781, 97.947, 90.955, 100.332, 103.861, 101.275, 103.241, 102.845, 99.935,
	103.089, 100.86, 99.464, 97.143, 99.742, 99.528, 101.462, 98.934, 99.766, 97.004,
	100.895, 101.139, 101.741, 102.358, 98.181, 101.415, 107.43, 99.215, 93.995, 91.581}

func TestWanderReference(t *testing.T) {
	res := Result{ChangePoints: []ChangePoint{{Index: 12}, {Index: 21}}}
	if got := centredSquares(wanderSeries[:12]) + centredSquares(wanderSeries[12:21]) + centredSquares(wanderSeries[21:]); math.Abs(got-327.1169486944445) > 1e-9 {
		t.Errorf("segments' squares %v, want 327.1169486944445", got)
	}
	var a Lag1
	a.add(wanderSeries, []int{0, len(wanderSeries)})
	if phi := a.sum / float64(a.n); math.Abs(phi-0.29327406924051247) > 1e-12 {
		t.Errorf("φ %v, want 0.29327406924051247", phi)
	}
	if rss := ar1Squares(wanderSeries, 0.29327406924051247); math.Abs(rss-298.0123901287296) > 1e-9 {
		t.Errorf("AR(1) squares %v, want 298.0123901287296", rss)
	}
	if got := Wander(wanderSeries, res); math.Abs(got-0.7150815498484846) > 1e-12 {
		t.Errorf("Wander = %v, want 0.7150815498484846", got)
	}
	// Gaps are left out, as Detect leaves them.
	gapped := append(append(append([]float64{}, wanderSeries[:5]...), math.NaN()), wanderSeries[5:]...)
	gres := Result{ChangePoints: []ChangePoint{{Index: 13}, {Index: 22}}}
	if got := Wander(gapped, gres); math.Abs(got-0.7150815498484846) > 1e-12 {
		t.Errorf("Wander with a gap = %v, want 0.7150815498484846", got)
	}
}

// TestWanderStepKeepsItsLevels: a step of 2.5 standard deviations (10 in
// noise of 4, numpy's default_rng(3)) is explained by its two levels:
// BIC 106.03 against 119.79 (numpy), so Wander returns 0, as it does
// without change points.
func TestWanderStepKeepsItsLevels(t *testing.T) {
	step := []float64{108.164, 89.777, 101.672, 97.729, 98.189, 99.138, 91.92, 99.072, 96.539, 113.292,
		100.903, 98.589, 98.875, 97.328, 95.779, 98.437, 101.928, 99.046, 103.831, 99.201,
		110.097, 116.183, 112.18, 107.979, 109.269, 112.162, 117.74, 108.922, 109.026, 114.009}
	if got := Wander(step, Result{ChangePoints: []ChangePoint{{Index: 20}}}); got != 0 {
		t.Errorf("Wander of a step at its change point = %v, want 0", got)
	}
	if got := Wander(wanderSeries, Result{}); got != 0 {
		t.Errorf("Wander without change points = %v, want 0", got)
	}
	if got := Wander([]float64{1, 1, 1, 1, 2, 2, 2, 2}, Result{ChangePoints: []ChangePoint{{Index: 4}}}); got != 0 {
		t.Errorf("Wander of two constant levels = %v, want 0", got)
	}
}

// TestWanderStaircase: three steps of 4 in noise of 1 (at 15, 20 and 25
// of 30; numpy's default_rng(1)) with change points at 20 and 25 only.
// With the detector's segments alone the AR(1) fit wins (BIC 49.14
// against 53.75, numpy); with the cut at 15 that the steps model adds
// (24.49) the steps win, and Wander returns 0.
func TestWanderStaircase(t *testing.T) {
	stairs := []float64{100.346, 100.822, 100.33, 98.697, 100.905, 100.446, 99.463, 100.581, 100.365, 100.294,
		100.028, 100.547, 99.264, 99.837, 99.518, 104.599, 104.04, 103.708, 103.218, 103.743,
		108.008, 107.724, 109.294, 109.007, 105.289, 110.111, 111.825, 111.578, 112.214, 112.217}
	res := Result{ChangePoints: []ChangePoint{{Index: 20}, {Index: 25}}}
	if b, ok := bestSplit(stairs, []int{0, 20, 25, 30}); !ok || !slices.Equal(b, []int{0, 15, 20, 25, 30}) {
		t.Errorf("bestSplit = %v, %v; want [0 15 20 25 30]", b, ok)
	}
	if got, want := stepsBIC(stairs, []int{0, 15, 20, 25, 30}), 24.493515470793838; math.Abs(got-want) > 1e-9 {
		t.Errorf("stepsBIC = %v, want %v", got, want)
	}
	if got := Wander(stairs, res); got != 0 {
		t.Errorf("Wander of a staircase = %v, want 0", got)
	}
}
