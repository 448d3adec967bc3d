package permessage

import (
	"context"
	"testing"
	"time"
)

// TestCPUReadingRetaken: a CPU reading whose first and last clocks lie
// further apart than readSpan (the receiver preempted between them, while
// the process's other threads ran on) is taken again and stamped in the
// middle of the reading that was not; one preempted at every try is left
// unread, and the overall figure spans the readings that were read.
func TestCPUReadingRetaken(t *testing.T) {
	cfg := Config{Count: 4, CPUEvery: 1}.WithDefaults()
	src := CPUSource{What: InProcessWhat, Read: processCPU, Resolution: 1, InProcess: true}
	cfg.Broker = &src
	m := newPerMessageRun(context.Background(), nil, nil, 64, cfg)
	m.senderLast.Store(0)
	// Clock stamps of one reading come in pairs: the first pair 1 ms
	// apart, the second 10 µs.
	stamps := []int64{1_000_000, 2_000_000, 3_000_000, 3_010_000}
	m.clock = func() int64 { v := stamps[0]; stamps = stamps[1:]; return v }
	m.readAt(1)
	for name, s := range map[string]CPUSeries{"receiver": m.pm.Receiver, "client": m.pm.Client, "broker": m.pm.Broker} {
		if r := s.R[1]; r.T != 3_005_000 || r.U < 0 {
			t.Errorf("%s reading: %+v, want stamped 3005000 (the middle of the second try) and read", name, r)
		}
	}
	if b, c := m.pm.Broker.R[1].U, m.pm.Client.R[1].U; b > c {
		t.Errorf("in-process broker %d ns above the process's %d", b, c)
	}

	now := int64(10_000_000)
	m.clock = func() int64 { now += int64(time.Millisecond); return now }
	m.readAt(2)
	if r := m.pm.Client.R[2]; r.U >= 0 || r.T < 0 {
		t.Errorf("a reading preempted at every try: %+v, want unread (U < 0) with a time", r)
	}

	s := newCPUSeries(3, 1)
	s.read(0, -1, 0)
	s.read(1, 1_000_000, 10_000_000)
	s.read(2, 3_000_000, 20_000_000)
	s.read(3, -1, 30_000_000)
	if u := s.Overall(1); u.Percent != 20 || s.Note() != "" {
		t.Errorf("overall over the readings read: %+v (note %q), want 20 %%", u, s.Note())
	}
}

// TestStamped: a clock reading is stamped in the middle of the two times
// around it, read again when they lie further apart than readSpan, and
// left unread after readTries.
func TestStamped(t *testing.T) {
	times := []int64{0, 1_000_000, 2_000_000, 2_000_020}
	now := func() int64 { v := times[0]; times = times[1:]; return v }
	reads := 0
	if u, at := stamped(now, func() int64 { reads++; return 7 }); u != 7 || at != 2_000_010 || reads != 2 {
		t.Errorf("stamped: %d at %d after %d reads, want 7 at 2000010 after 2", u, at, reads)
	}
	late := int64(0)
	if u, _ := stamped(func() int64 { late += int64(time.Millisecond); return late }, func() int64 { return 7 }); u != -1 {
		t.Errorf("stamped, preempted at every try: %d, want -1", u)
	}
}
