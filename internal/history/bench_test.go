package history

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/synth"
)

// benchDir generates n experiments and their requirements in a temporary
// directory: exps/ and reqs.csv.
func benchDir(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	opt := synth.GenerateOptions{Seed: 1, Meta: true}
	if _, err := synth.Generate(filepath.Join(dir, "exps"), n, opt); err != nil {
		b.Fatal(err)
	}
	reqs := filepath.Join(dir, "reqs.csv")
	if err := GenerateRequirements(reqs, opt); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkRun runs the whole command (read, plots, history.csv) over 40
// and 1,000 generated experiments; the targets are 2 s and 10 s per
// operation on two cores.
func BenchmarkRun(b *testing.B) {
	for _, n := range []int{40, 1000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			dir := benchDir(b, n)
			cfg := Options{
				Experiments:  filepath.Join(dir, "exps"),
				Requirements: filepath.Join(dir, "reqs.csv"),
				PlotsDir:     filepath.Join(dir, "plots"),
				Format:       plots.FormatPNG,
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := Plot(context.Background(), cfg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPlot draws one magnitude and one payload plot of 40 experiments
// to PNG, without writing files.
func BenchmarkPlot(b *testing.B) {
	dir := benchDir(b, 40)
	h, err := Load(context.Background(), filepath.Join(dir, "exps"), nil, false)
	if err != nil {
		b.Fatal(err)
	}
	jobs := h.Jobs()
	for _, j := range []Job{jobs[0], jobs[4]} {
		b.Run(j.Kind, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := plots.Encode(discard{}, j.Build(), plots.FormatPNG); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
