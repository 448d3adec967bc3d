package load

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

// TestInterruptedNoDrain: a run interrupted during its measured period has
// no drain: the messages still queued when it stopped are not "not
// delivered by the drain's end", and no note asks for a longer --drain
// (which would change nothing of an interrupted run).
func TestInterruptedNoDrain(t *testing.T) {
	cfg := quick(t, FanIn, 1, 0, 0)
	cfg.Payloads = []int{100}
	cfg.Duration = 10 * time.Second
	// The subscriber takes 10 ms a message against 500 sent a second: a
	// backlog is queued when the run is stopped.
	links := Links{Transport: slowSubTransport{delay: 10 * time.Millisecond}, Publish: driver.Options{Reliable: true}, Subscribe: driver.Options{Reliable: true, QueueDepth: 4096}}
	// Stopped at 3 s of the 10: at 1 s, a loaded machine had not yet sent
	// a measured message.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	res, err := Measure(ctx, "intraprocess_reliable", links, cfg)
	if !errors.Is(err, ErrInterrupted) || len(res) != 1 {
		t.Fatalf("err %v, %d results: want interrupted", err, len(res))
	}
	r := res[0]
	if r.Lost == 0 {
		t.Fatalf("nothing queued at the interruption: %+v", r.Counters)
	}
	if !r.Drained {
		t.Errorf("drained false: no drain ran, none timed out")
	}
	for _, n := range KneeNotes(&r, cfg) {
		if strings.Contains(n, "drain") {
			t.Errorf("note %q on an interrupted run", n)
		}
	}
}
