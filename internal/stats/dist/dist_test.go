package dist

import (
	"math"
	"testing"
)

// TestClopperPearson compares with scipy 1.10 (beta.ppf at 0.025/0.975).
func TestClopperPearson(t *testing.T) {
	for _, tt := range []struct {
		k, n   int
		lo, hi float64
	}{
		{2, 200, 0.001213349013736031, 0.035654668397239776},
		{0, 50, 0.0, 0.07112173646419764},
		{50, 50, 0.9288782635358024, 1.0},
		{7, 20, 0.15390920478454118, 0.5921885345328282},
		{1, 1000, 2.5317487491294045e-05, 0.005558924279826672},
	} {
		lo, hi := ClopperPearson(tt.k, tt.n, 0.05)
		if math.Abs(lo-tt.lo) > 1e-9*math.Max(tt.lo, 1e-6) || math.Abs(hi-tt.hi) > 1e-9 {
			t.Errorf("%d/%d: [%v, %v], scipy [%v, %v]", tt.k, tt.n, lo, hi, tt.lo, tt.hi)
		}
	}
}
