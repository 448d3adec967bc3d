package pairing

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/meta"
)

// TestSameRun: two folders hold one run when their meta.json are the same
// file's bytes and name a start and a host (a copy); not the two sides of
// an interleaved run ab (one start and host, each side's own meta.json),
// nor two imported folders of one date (no host).
func TestSameRun(t *testing.T) {
	root := t.TempDir()
	exp := func(name, text string) *experiment.Experiment {
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, meta.FileName), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := meta.ReadFile(filepath.Join(dir, meta.FileName))
		if err != nil {
			t.Fatal(err)
		}
		return &experiment.Experiment{Name: name, Dir: dir, Meta: m}
	}
	const run = `{"schema": 1, "start": "2026-11-20T09:00:00.5Z", "completed": true, "host": {"hostname": "ci-1"}, "mode": "interleaved with candidate"}`
	a, copied := exp("a", run), exp("a (copy)", run)
	side := exp("side", `{"schema": 1, "start": "2026-11-20T09:00:00.5Z", "completed": true, "host": {"hostname": "ci-1"}, "mode": "interleaved with reference"}`)
	const imported = `{"schema": 1, "start": "2019-11-15T00:00:00Z", "completed": true}`
	i1, i2 := exp("v1.9.1", imported), exp("v1.9.2", imported)
	for _, tt := range []struct {
		a, b *experiment.Experiment
		want bool
	}{{a, copied, true}, {a, side, false}, {i1, i2, false}, {a, i1, false}} {
		if got := SameRun(tt.a, tt.b); got != tt.want {
			t.Errorf("SameRun(%s, %s) = %v, want %v", tt.a.Name, tt.b.Name, got, tt.want)
		}
	}
}
