package changepoint

import (
	"math"
	"testing"
)

// TestLag1Upper: Upper is the bias-corrected estimate raised by z standard
// errors, without Estimate's threshold: 0 raised by z on a series whose
// estimate is below 0, Estimate's own value at z = 2 when Estimate pre-
// whitens, never above MaxAutocorrelation, and 0 for too few values.
func TestLag1Upper(t *testing.T) {
	alt := make([]float64, 30) // lag-1 autocorrelation near −1
	for i := range alt {
		alt[i] = float64(i % 2)
	}
	var a Lag1
	a.Add(alt, Result{})
	if got, want := a.Upper(1), math.Sqrt(1.0/30); math.Abs(got-want) > 1e-12 {
		t.Errorf("alternating: Upper(1) = %v, want %v", got, want)
	}
	if a.Estimate() != 0 {
		t.Errorf("alternating: Estimate %v", a.Estimate())
	}
	walk := make([]float64, 30) // strongly autocorrelated
	for i := range walk {
		walk[i] = math.Sin(float64(i) / 5)
	}
	var b Lag1
	b.Add(walk, Result{})
	if e := b.Estimate(); e == 0 || b.Upper(2) != e || b.Upper(1) > e || b.Upper(10) != MaxAutocorrelation {
		t.Errorf("walk: Estimate %v, Upper(1) %v, Upper(2) %v, Upper(10) %v", e, b.Upper(1), b.Upper(2), b.Upper(10))
	}
	var c Lag1
	c.Add([]float64{1, 2, 3}, Result{})
	if c.Upper(1) != 0 {
		t.Errorf("3 values: Upper(1) = %v", c.Upper(1))
	}
}
