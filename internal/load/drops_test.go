package load

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/intraprocess"
)

// TestTransportDropsReported: an unpaced best-effort publisher into an
// in-process queue of 4 loses most of what it sends, and the queue counts
// each drop. The run reports those drops as the loss (not as messages the
// drain may have missed) and ends its drain once they account for every
// delivery missing, long before the drain's 10 s.
func TestTransportDropsReported(t *testing.T) {
	cfg := quick(t, FanIn, 1, 0, 0)
	cfg.Rate, cfg.Payloads = 0, []int{16}
	links := Links{Transport: intraprocess.Transport{}, Subscribe: driver.Options{QueueDepth: 4}}
	began := time.Now()
	res, err := Measure(context.Background(), "intraprocess_best_effort", links, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if r.Lost == 0 {
		t.Skip("nothing was lost: the subscriber kept up with an unpaced publisher")
	}
	if r.TransportDropped == nil {
		t.Fatal("the queue's drops were not read")
	}
	// The end marker (and at most a queue's depth of warm-up messages)
	// may be dropped beyond the measured messages.
	if d := *r.TransportDropped; d < r.Lost || d > r.Lost+8 {
		t.Errorf("the transport dropped %d, %d deliveries were lost", d, r.Lost)
	}
	if took := time.Since(began); took > cfg.Warmup+cfg.Duration+cfg.Drain/2 {
		t.Errorf("the run took %v: the drain waited for messages the transport had dropped", took)
	}
	notes := strings.Join(KneeNotes(&r, cfg), "\n")
	if !strings.Contains(notes, "the transport dropped") || strings.Contains(notes, "a longer --drain tells") {
		t.Errorf("notes:\n%s\nwant the transport's drops, not a longer drain", notes)
	}
	s := SummaryOf(&r, cfg)
	if s.TransportDropped == nil || *s.TransportDropped != *r.TransportDropped {
		t.Errorf("summary transport_dropped %v, want %d", s.TransportDropped, *r.TransportDropped)
	}
}

// TestNoDropsCountedIsNull: a reliable in-process run counts no drops (0,
// not nil: its queue counts), and ends none of which counts give no count
// (nil, the summary's null).
func TestNoDropsCountedIsNull(t *testing.T) {
	cfg := quick(t, FanIn, 1, 0, 0)
	cfg.Payloads = []int{16}
	links := Links{Transport: intraprocess.Transport{}, Publish: driver.Options{Reliable: true}, Subscribe: driver.Options{Reliable: true, QueueDepth: 1024}}
	res, err := Measure(context.Background(), "intraprocess_reliable", links, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if d := res[0].TransportDropped; d == nil || *d != 0 {
		t.Errorf("reliable in-process: transport dropped %v, want 0", d)
	}
	var e Ends
	if newDropCounts(&e) != nil {
		t.Error("ends that count nothing gave a count")
	}
}
