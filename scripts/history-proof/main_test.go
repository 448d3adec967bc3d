package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestRun runs the simulation with 20 series per case: every rate is
// printed, the stale, acknowledged and below-minimum steps are never gated,
// and the fresh 20 % step is.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	rates, err := run(context.Background(), &out, 20, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(rates) != 54 {
		t.Fatalf("%d rates, want 54:\n%s", len(rates), out.String())
	}
	for _, r := range rates {
		if (r.N < 20 && !strings.Contains(r.Name, "among")) || !strings.Contains(out.String(), r.Name) {
			t.Errorf("%q: %d of %d, or not printed", r.Name, r.K, r.N)
		}
		switch {
		case strings.Contains(r.Name, "(expected 0)") && r.K != 0:
			t.Errorf("%s", r)
		case strings.Contains(r.Name, "20 % step: the gate fails") && r.K < r.N*9/10:
			t.Errorf("%s", r)
		}
	}
}
