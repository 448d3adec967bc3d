package permessage

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/intraprocess"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/permessagefile"
)

// TestInterruptedPayloadWritten: a run stopped (Ctrl-C) in the middle of a
// payload writes what it measured of it, as run's other modes do: the
// messages up to the last one delivered, every file, and the payload in
// meta.json marked incomplete with its samples; not a folder holding
// meta.json alone (the whole payload was dropped, the error saying "what
// was measured is in" the folder).
func TestInterruptedPayloadWritten(t *testing.T) {
	const count, every = 1_000_000, 500
	dir := t.TempDir()
	m := &meta.Meta{Start: time.Now().UTC(), System: meta.System{Name: "mqgate-builtin"}}
	r := &Runner{Config: Config{Count: count, Window: 100, CPUEvery: every, Rate: 20000, Timeout: 10 * time.Second},
		Payloads: []int{64, 128}, Dir: dir, Meta: m, NoPlots: true}
	links := load.Links{Transport: intraprocess.Transport{}, Publish: driver.Options{Reliable: true}, Subscribe: driver.Options{Reliable: true, QueueDepth: 4096}}
	sub := load.Sub{Type: "intraprocess_reliable", Transport: links.Transport.Name(), Links: links}
	// Interrupted within the first payload (1,000,000 messages at 20,000
	// msg/s take 50 s), late enough that a race build on a loaded machine
	// has set up its links and delivered some: at 500 ms it had not.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := r.Run(ctx, []load.Sub{sub}); !errors.Is(err, load.ErrInterrupted) {
		t.Fatalf("err %v, want interrupted", err)
	}
	msgs, err := ReadTable(mustOpen(t, filepath.Join(dir, permessagefile.FileName(sub.Type))), "f.csv", permessagefile.Header)
	if err != nil {
		t.Fatal(err)
	}
	n := len(msgs.Rows)
	if n < 2 || n >= count || msgs.Rows[n-1][3] == "" {
		t.Fatalf("%d messages written of %d, the last %q: want those up to the last delivered", n, count, msgs.Rows[n-1])
	}
	cpu, err := ReadTable(mustOpen(t, filepath.Join(dir, permessagefile.CPUFileName(sub.Type))), "f.csv", permessagefile.CPUHeader)
	if err != nil {
		t.Fatal(err)
	}
	if len(cpu.Rows) != n/every {
		t.Errorf("%d CPU windows for %d messages, want %d", len(cpu.Rows), n, n/every)
	}
	if _, err := os.Stat(filepath.Join(dir, experiment.ThroughputFileName(sub.Type))); err != nil {
		t.Error(err)
	}
	rec := m.SubExperiments[0]
	if len(rec.Payloads) != 1 || rec.Payloads[0].Completed || rec.Payloads[0].Bytes != 64 || rec.Payloads[0].Samples != n-int(rec.Payloads[0].Lost) {
		t.Errorf("meta.json payloads %+v, want 64 B incomplete with %d messages", rec.Payloads, n)
	}
}

func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
