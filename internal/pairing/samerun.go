package pairing

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/meta"
)

// SameRun reports whether a and b hold one run: a folder copied (a CI
// artifact downloaded twice, "run (copy)"), which counted as two runs is
// compared with itself, or weighs twice in a pool or a history. Both have
// a meta.json naming a start and a host, and the two files are the same,
// byte for byte: the two sides of run ab's interleaved design share their
// start and host, one pinger measuring both, and differ in what each
// side's meta.json says of it; a folder imported with 'process --start
// DATE' records a date and no host, and two of one date are two runs.
func SameRun(a, b *experiment.Experiment) bool {
	if a.Meta == nil || b.Meta == nil || a.Meta.Start.IsZero() || a.Meta.Host.Hostname == "" ||
		!a.Meta.Start.Equal(b.Meta.Start) || a.Meta.Host.Hostname != b.Meta.Host.Hostname {
		return false
	}
	ma, errA := os.ReadFile(filepath.Join(a.Dir, meta.FileName))
	mb, errB := os.ReadFile(filepath.Join(b.Dir, meta.FileName))
	return errA == nil && errB == nil && bytes.Equal(ma, mb)
}
