package trend

import (
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// simTrials is the number of series per case of the simulations:
// MQGATE_SIM_TRIALS, else def (kept small so that go test stays quick).
func simTrials(def int) int {
	if n, err := strconv.Atoi(os.Getenv("MQGATE_SIM_TRIALS")); err == nil && n > 0 {
		return n
	}
	return def
}

// ar1 fills x with AR(1) normal values of correlation phi and unit
// variance, plus drift per run.
func ar1(rng *rand.Rand, x []float64, phi, drift float64) {
	prev := rng.NormFloat64()
	for i := range x {
		if i > 0 {
			prev = phi*prev + math.Sqrt(1-phi*phi)*rng.NormFloat64()
		}
		x[i] = prev + drift*float64(i)
	}
}

// TestSerialAgreesWhenIndependent: a series with no lag-1 correlation left
// after Sen's line keeps the plain test's p-value, exact included; short
// and flat series are not tested for correlation.
func TestSerialAgreesWhenIndependent(t *testing.T) {
	x := []float64{1, 5, 2, 6, 3, 7, 4, 8}
	s, err := TestSerial(x)
	if err != nil {
		t.Fatal(err)
	}
	if s.Lag1 >= 0 || s.Phi != 0 || s.Factor != 1 || s.P != s.Test.P || !s.Test.Exact {
		t.Errorf("alternating series: %+v", s)
	}
	for _, x := range [][]float64{{1, 2, 3}, {2, 2, 2, 2, 2}} {
		s, err := TestSerial(x)
		if err != nil || !math.IsNaN(s.Lag1) || s.Lag1P != 1 || s.Factor != 1 || s.P != s.Test.P {
			t.Errorf("%v: %+v, %v", x, s, err)
		}
	}
	if _, err := TestSerial([]float64{1}); err == nil {
		t.Error("one run accepted")
	}
}

// TestSerialPhiGiven: TestSerialPhi corrects for the φ it is given, not for
// the upper bound of x's own: given TestSerial's Phi it agrees with it,
// given 0 it is the plain test, and on a steady drift of 0.5 standard
// deviations per run over 10 independent runs (where the runs' own φ
// estimate is inflated by the drift) it finds the drift at 5 % in at least
// 80 % of 200 series given φ = 0.2 (85 %), against 50 % by TestSerial. A φ
// outside [0, 1) is refused.
func TestSerialPhiGiven(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, 10)
	given, own := 0, 0
	for range 200 {
		ar1(rng, x, 0, 0.5)
		s, err := TestSerial(x)
		if err != nil {
			t.Fatal(err)
		}
		same, err := TestSerialPhi(x, s.Phi)
		if err != nil {
			t.Fatal(err)
		}
		if same.P != s.P || same.Factor != s.Factor || same.Lag1 != s.Lag1 {
			t.Fatalf("given its own Phi %v: %+v, TestSerial %+v", s.Phi, same, s)
		}
		plain, err := TestSerialPhi(x, 0)
		if err != nil {
			t.Fatal(err)
		}
		if plain.P != s.Test.P || plain.Factor != 1 {
			t.Fatalf("given 0: P %v, plain %v", plain.P, s.Test.P)
		}
		low, err := TestSerialPhi(x, 0.2)
		if err != nil {
			t.Fatal(err)
		}
		if low.Phi != 0.2 || low.Factor <= 1 {
			t.Fatalf("given 0.2: %+v", low)
		}
		given += btoi(low.P < 0.05)
		own += btoi(s.P < 0.05)
	}
	t.Logf("drift 0.5 sd per run, 10 runs: found %d of 200 given φ = 0.2, %d by TestSerial", given, own)
	if given < 160 || given < own+50 {
		t.Errorf("found %d of 200 given φ = 0.2, %d by TestSerial", given, own)
	}
	for _, phi := range []float64{-0.1, 1, math.NaN()} {
		if _, err := TestSerialPhi(x, phi); err == nil {
			t.Errorf("φ %v: no error", phi)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
