package intraprocess

import (
	"context"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
)

func TestStreamConformance(t *testing.T) {
	for _, reliable := range []bool{false, true} {
		t.Run(map[bool]string{false: "BestEffort", true: "Reliable"}[reliable], func(t *testing.T) {
			opts := driver.Options{Reliable: reliable}
			drivertest.RunStream(t, drivertest.StreamConfig{Transport: Transport{}, Subscribe: opts, Publish: opts})
		})
	}
}

// TestStreamBestEffortDrops: a best-effort publisher drops what does not fit
// the subscriber's queue and counts it; a reliable one would wait.
func TestStreamBestEffortDrops(t *testing.T) {
	opts := driver.Options{QueueDepth: 4}
	s, p := drivertest.StartStream(t, drivertest.StreamConfig{Transport: Transport{}, Subscribe: opts, Publish: opts})
	for range 10 {
		if err := p.Send(make([]byte, 16)); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.(driver.CounterReader).Counters().Dropped; got != 6 {
		t.Errorf("subscriber counts %d dropped of 10 into a queue of 4, want 6", got)
	}
	// A drop is counted at one end only, so that the counts of a run's
	// ends add up (run load sums them).
	if _, counts := p.(driver.CounterReader); counts {
		t.Error("the publisher counts the subscriber's drops again")
	}
}

func TestStreamOnePublisher(t *testing.T) {
	s, _ := drivertest.StartStream(t, drivertest.StreamConfig{Transport: Transport{}})
	if _, err := (Transport{}).Publish(context.Background(), s.Addr(), driver.Options{}); err == nil || !strings.Contains(err.Error(), "already has a publisher") {
		t.Errorf("a second publisher: %v", err)
	}
	if _, err := (Transport{}).Publish(context.Background(), "nosuch", driver.Options{}); err == nil {
		t.Error("publishing to no subscriber succeeded")
	}
}
