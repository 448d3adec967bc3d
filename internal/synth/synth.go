package synth

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"math/rand"
	"path/filepath"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/measurements"
)

// DefaultPayloads are run's default payloads, the eleven Fast-RTPS latency
// payloads: 16 B to 16 KiB in powers of two.
var DefaultPayloads = []int{16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384}

// Spec describes an experiment to generate.
type Spec struct {
	Types    []string // sub-experiments (driver.BuiltinTypes() if empty)
	Payloads []int    // DefaultPayloads if empty
	Samples  int      // per payload
	Seed     int64
	// Slowdown multiplies every latency, to fake a regression (1 if 0).
	Slowdown float64
}

// orElse returns s, or def when s is empty.
func orElse[T any](s, def []T) []T {
	if len(s) == 0 {
		return def
	}
	return s
}

// WriteExperiment writes one measurements_<type>.csv per type into dir.
func WriteExperiment(dir string, s Spec) error {
	types, payloads := orElse(s.Types, driver.BuiltinTypes()), orElse(s.Payloads, DefaultPayloads)
	if s.Samples <= 0 {
		return fmt.Errorf("synth: samples must be positive, not %d", s.Samples)
	}
	slow := cmp.Or(s.Slowdown, 1)
	for ti, typ := range types {
		path := filepath.Join(dir, experiment.RawFileName(typ))
		err := atomicfile.Write(path, func(w io.Writer) error {
			mw := measurements.NewWriter(w)
			for pi, p := range payloads {
				rng := rand.New(rand.NewSource(s.Seed*1_000_003 + int64(ti)*1009 + int64(pi)))
				base := 8 + 2*float64(ti) + math.Log2(float64(p))*0.6
				for i := 1; i <= s.Samples; i++ {
					v := base * math.Exp(0.25*rng.NormFloat64())
					if rng.Intn(200) == 0 {
						v += 20 + 100*rng.Float64()
					}
					ns := math.Round(v * slow * 1000)
					if err := mw.Write(measurements.Sample{Sample: i, Payload: p, Latency: ns / 1000}); err != nil {
						return err
					}
				}
			}
			return mw.Flush()
		})
		if err != nil {
			return err
		}
	}
	return nil
}
