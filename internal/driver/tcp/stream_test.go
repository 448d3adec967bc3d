package tcp

import (
	"time"

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

// TestStreamTwoPublishers: one subscriber takes the frames of several
// publishers, each intact.
func TestStreamTwoPublishers(t *testing.T) {
	c := drivertest.StreamConfig{Transport: Transport{}, Publish: driver.Options{Reliable: true}}
	s, p1 := drivertest.StartStream(t, c)
	p2, err := Transport{}.Publish(t.Context(), s.Addr(), c.Publish)
	if err != nil {
		t.Fatal(err)
	}
	defer p2.Close()
	got := map[byte]int{}
	for i := range 100 {
		p := p1
		if i%2 == 1 {
			p = p2
		}
		msg := make([]byte, 100+i)
		msg[0] = byte(i % 2)
		if err := p.Send(msg); err != nil {
			t.Fatal(err)
		}
	}
	buf := make([]byte, 512)
	for range 100 {
		n, _, err := s.Receive(buf, timeNow().Add(drivertest.ReceiveDeadline))
		if err != nil {
			t.Fatal(err)
		}
		if n < 100 || n >= 200 {
			t.Fatalf("a %d-byte frame", n)
		}
		got[buf[0]]++
	}
	if got[0] != 50 || got[1] != 50 {
		t.Errorf("frames per publisher %v, want 50 each", got)
	}
}

var timeNow = time.Now
