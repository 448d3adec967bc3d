package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun measures tiny pools (3 pairs of 16-byte in-process runs per case,
// pinned with --cpus through -run-flags), resamples them and drives one
// real sequential gate: every case is printed in both designs, no rate
// leaves [0, 100] %, and the pinning reached every run of the pools.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the tools and runs them; skipped with -short")
	}
	bin := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", bin+"/", "github.com/mqgate/mqgate/cmd/run", "github.com/mqgate/mqgate/cmd/process").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	o := options{bin: bin, out: t.TempDir(), subs: []string{"intraprocess_reliable"}, payloads: "16", samples: 50, warmup: 10,
		pairs: 3, resamples: 40, fixedSamples: 10, maxRuns: 3, gates: 1, level: 0.01, passM: 0.05, failM: 0.05, reg: 0.10,
		drift: 0.20, seed: 1, runFlags: []string{"--cpus", "0,0"}}
	var w bytes.Buffer
	if err := run(context.Background(), o, &w); err != nil {
		t.Fatalf("%v\n%s", err, w.String())
	}
	out := w.String()
	for _, want := range []string{"run --cpus 0,0", "sequential gate", "fixed design", "real end-to-end sequential gates",
		"  unchanged ", "  slower ", "  drift "} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "NaN") || strings.Contains(out, "-0.") {
		t.Errorf("a rate is not a number in [0, 100]:\n%s", out)
	}
	metas, _ := filepath.Glob(filepath.Join(o.out, "pool", "*", "intraprocess_reliable", "*", "p-*", "meta.json"))
	if len(metas) != 3*2*3 {
		t.Fatalf("%d runs in the pools, want 18", len(metas))
	}
	for _, m := range metas {
		b, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		var meta struct {
			Config struct {
				CPUs *struct{ Pinger, Ponger int } `json:"cpus"`
			} `json:"config"`
		}
		if err := json.Unmarshal(b, &meta); err != nil || meta.Config.CPUs == nil {
			t.Fatalf("%s: no pinned CPUs recorded (%v)", m, err)
		}
	}
}
