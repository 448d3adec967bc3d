package process

import (
	"context"
	"testing"

	"github.com/mqgate/mqgate/internal/synth"
)

// BenchmarkSummaries processes 10 sub-experiments × 11 payloads × 10,000
// samples (the make bench experiment) without plots.
func BenchmarkSummaries(b *testing.B) {
	dir := b.TempDir()
	if err := synth.WriteExperiment(dir, synth.Spec{Samples: 10000, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	inputs, _, err := ExperimentInputs(dir, "")
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Summarise(context.Background(), inputs, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
