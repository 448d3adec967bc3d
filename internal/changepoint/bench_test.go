package changepoint

import (
	"math/rand/v2"
	"testing"
)

// randomWalk is a drifting history like synth.Generate's: a slow random
// walk times noise.
func randomWalk(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 11))
	x := make([]float64, n)
	d := 1.0
	for i := range x {
		d = min(1.3, max(0.7, d*(1+0.02*rng.NormFloat64())))
		x[i] = 100 * d * (1 + 0.04*rng.NormFloat64())
	}
	return x
}

func benchDetect(b *testing.B, x []float64) {
	cps := 0
	for i := 0; i < b.N; i++ {
		res, err := Detect(x, Options{Seed: uint64(i)})
		if err != nil {
			b.Fatal(err)
		}
		cps = len(res.ChangePoints)
	}
	b.ReportMetric(float64(cps), "changepoints")
}

func BenchmarkDetectWalk40(b *testing.B)   { benchDetect(b, randomWalk(40, 1)) }
func BenchmarkDetectWalk100(b *testing.B)  { benchDetect(b, randomWalk(100, 1)) }
func BenchmarkDetectWalk1000(b *testing.B) { benchDetect(b, randomWalk(1000, 1)) }
func BenchmarkDetectFlat1000(b *testing.B) {
	benchDetect(b, series(rand.New(rand.NewPCG(1, 1)), 1000, []int{0}, []float64{100}))
}
