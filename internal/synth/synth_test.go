package synth

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/mqgate/mqgate/internal/measurements"
)

func TestDeterministicAndReadable(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	spec := Spec{Types: []string{"x_reliable"}, Payloads: []int{16, 1024}, Samples: 500, Seed: 3}
	if err := WriteExperiment(a, spec); err != nil {
		t.Fatal(err)
	}
	if err := WriteExperiment(b, spec); err != nil {
		t.Fatal(err)
	}
	da, _ := os.ReadFile(filepath.Join(a, "measurements_x_reliable.csv"))
	db, _ := os.ReadFile(filepath.Join(b, "measurements_x_reliable.csv"))
	if !bytes.Equal(da, db) {
		t.Fatal("same seed, different bytes")
	}
	r := measurements.NewReader(bytes.NewReader(da), "x")
	n := 0
	for r.Next() {
		n++
	}
	if r.Err() != nil || n != 1000 {
		t.Fatalf("read %d samples: %v", n, r.Err())
	}
	if err := WriteExperiment(a, Spec{Samples: 0}); err == nil {
		t.Fatal("zero samples accepted")
	}
}
