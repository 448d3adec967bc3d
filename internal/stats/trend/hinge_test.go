package trend

import (
	"math"
	"testing"
)

// TestHingeIsGLS: TestHinge's slope and standard error are those of
// generalised least squares with the AR(1) covariance written out (its
// inverse is tridiagonal), computed here independently, for φ = 0 (plain
// least squares) and φ = 0.5; values that are all positive are tested as
// logarithms, others as they are.
func TestHingeIsGLS(t *testing.T) {
	x := []float64{10.2, 9.8, 10.1, 10.4, 9.9, 10.0, 10.3, 10.6, 11.1, 11.0, 11.6, 11.9}
	const start = 7
	for _, phi := range []float64{0, 0.5} {
		for _, shift := range []float64{0, -10.5} {
			y := make([]float64, len(x))
			for i, v := range x {
				y[i] = v + shift
			}
			h, err := TestHinge(y, start, phi)
			if err != nil {
				t.Fatal(err)
			}
			if h.Log != (shift == 0) {
				t.Errorf("shift %v: Log %v", shift, h.Log)
			}
			if h.Log {
				for i := range y {
					y[i] = math.Log(y[i])
				}
			}
			slope, se := gls(y, start, phi)
			if math.Abs(h.Slope-slope) > 1e-12*math.Max(1, math.Abs(slope)) || math.Abs(h.SE-se) > 1e-12*math.Max(1, se) {
				t.Errorf("φ %v shift %v: slope %v SE %v, GLS %v %v", phi, shift, h.Slope, h.SE, slope, se)
			}
			if math.Abs(h.PUp+h.PDown-1) > 1e-12 || h.PUp > 0.01 {
				t.Errorf("φ %v shift %v: a clear rise: PUp %v PDown %v", phi, shift, h.PUp, h.PDown)
			}
		}
	}
	flat := []float64{5, 5, 5, 5, 5}
	if h, err := TestHinge(flat, 3, 0); err != nil || h.PUp != 1 || h.PDown != 1 {
		t.Errorf("flat: %+v, %v", h, err)
	}
	for _, c := range []struct {
		x     []float64
		start int
		phi   float64
	}{{x, 1, 0}, {x, len(x), 0}, {x, 5, 1}, {x, 5, -0.1}, {[]float64{1, 2, math.NaN(), 4}, 2, 0}} {
		if _, err := TestHinge(c.x, c.start, c.phi); err == nil {
			t.Errorf("start %d φ %v on %v: no error", c.start, c.phi, c.x)
		}
	}
}

// gls is the slope of the hinge max(0, i − start + 1) and its standard
// error by generalised least squares on y with a constant, for AR(1)
// errors of correlation phi: β = (X'Σ⁻¹X)⁻¹X'Σ⁻¹y, Σ⁻¹ ∝ the tridiagonal
// matrix with 1 at both ends of the diagonal, 1 + φ² inside it and −φ
// beside it; the error variance from the residuals' quadratic form over
// n − 2.
func gls(y []float64, start int, phi float64) (slope, se float64) {
	n := len(y)
	X := make([][2]float64, n)
	for i := range X {
		X[i] = [2]float64{1, float64(max(0, i-start+1))}
	}
	w := func(i, j int) float64 { // Σ⁻¹ times (1 − φ²)
		switch {
		case i == j && (i == 0 || i == n-1):
			return 1
		case i == j:
			return 1 + phi*phi
		case i-j == 1 || j-i == 1:
			return -phi
		}
		return 0
	}
	var A [2][2]float64
	var b [2]float64
	for i := range n {
		for j := range n {
			for r := range 2 {
				b[r] += X[i][r] * w(i, j) * y[j]
				for c := range 2 {
					A[r][c] += X[i][r] * w(i, j) * X[j][c]
				}
			}
		}
	}
	det := A[0][0]*A[1][1] - A[0][1]*A[1][0]
	beta := [2]float64{(A[1][1]*b[0] - A[0][1]*b[1]) / det, (A[0][0]*b[1] - A[1][0]*b[0]) / det}
	var q float64
	for i := range n {
		for j := range n {
			q += (y[i] - beta[0] - beta[1]*X[i][1]) * w(i, j) * (y[j] - beta[0] - beta[1]*X[j][1])
		}
	}
	return beta[1], math.Sqrt(q / float64(n-2) * A[0][0] / det)
}

// HingeResiduals is SegmentedHingeResiduals without cuts: the residuals
// about one level and a rise.
func HingeResiduals(x []float64, start int) ([]float64, error) {
	return SegmentedHingeResiduals(x, start, nil)
}

// TestHingeResiduals: values that are exactly a level and then a rise per
// run from start leave residuals of 0 (of their logarithms); noise added
// to them is what remains, less its own fit.
func TestHingeResiduals(t *testing.T) {
	x := make([]float64, 30)
	for i := range x {
		x[i] = 100 * math.Exp(0.02*float64(max(0, i-19)))
	}
	r, err := HingeResiduals(x, 20)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range r {
		if math.Abs(v) > 1e-12 {
			t.Fatalf("residual %d: %g, want 0", i, v)
		}
	}
	r, err = HingeResiduals(x, 10)
	if err != nil {
		t.Fatal(err)
	}
	if r[25] == 0 {
		t.Errorf("a hinge at the wrong run fits exactly: %v", r)
	}
	if _, err := HingeResiduals(x, 1); err == nil {
		t.Error("a rise from run 1 was accepted")
	}
}

// TestSegmentedHingeResiduals: values that are exactly levels that step at
// the cuts and then a rise from start leave residuals of 0 around those
// segments, not around one level; cuts out of order are refused.
func TestSegmentedHingeResiduals(t *testing.T) {
	x := make([]float64, 30)
	for i := range x {
		l := 0.0
		if i >= 10 {
			l += 0.04
		}
		if i >= 25 {
			l += 0.04
		}
		x[i] = 100 * math.Exp(l+0.02*float64(max(0, i-19)))
	}
	r, err := SegmentedHingeResiduals(x, 20, []int{10, 25})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range r {
		if math.Abs(v) > 1e-12 {
			t.Fatalf("residual %d: %g, want 0", i, v)
		}
	}
	if r, _ := HingeResiduals(x, 20); math.Abs(r[12]) < 1e-3 {
		t.Errorf("the steps fit without their segments: %v", r)
	}
	if _, err := SegmentedHingeResiduals(x, 20, []int{25, 10}); err == nil {
		t.Error("cuts out of order were accepted")
	}
}
