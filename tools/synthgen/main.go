// Command synthgen writes a deterministic synthetic experiment (raw
// measurements files) for benchmarks and demos:
//
//	synthgen -out DIR [-types 10] [-samples 10000] [-seed 1] [-slowdown 1.0]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/synth"
)

func main() {
	builtin := driver.BuiltinTypes()
	out := flag.String("out", "", "experiment directory to write")
	types := flag.Int("types", len(builtin), "number of built-in sub-experiments (1-10)")
	samples := flag.Int("samples", 10000, "samples per payload")
	seed := flag.Int64("seed", 1, "random seed")
	slowdown := flag.Float64("slowdown", 1, "multiply every latency (fake a regression)")
	flag.Parse()
	if *out == "" || *types < 1 || *types > len(builtin) {
		fmt.Fprintln(os.Stderr, "synthgen: -out DIR is required and -types must be 1-10")
		os.Exit(2)
	}
	spec := synth.Spec{Types: builtin[:*types], Samples: *samples, Seed: *seed, Slowdown: *slowdown}
	if err := synth.WriteExperiment(*out, spec); err != nil {
		fmt.Fprintln(os.Stderr, "synthgen:", err)
		os.Exit(2)
	}
}
