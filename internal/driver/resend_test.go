package driver

import (
	"bytes"
	"testing"
	"time"
)

const testRTO = 10 * time.Second

// sent calls r.Sent(msg) and returns the bounds of the time it recorded.
func sent(r *Resender, msg []byte) (earliest, latest time.Time) {
	earliest = time.Now()
	r.Sent(msg)
	return earliest, time.Now()
}

func checkResendAt(t *testing.T, got, earliest, latest time.Time) {
	t.Helper()
	if got.Before(earliest.Add(testRTO)) || got.After(latest.Add(testRTO)) {
		t.Fatalf("Wait = %v, want the resend time in [%v, %v]", got, earliest.Add(testRTO), latest.Add(testRTO))
	}
}

func TestResenderDisabled(t *testing.T) {
	var r Resender
	r.Sent([]byte("ping"))
	for _, deadline := range []time.Time{{}, time.Now().Add(time.Hour)} {
		if got := r.Wait(deadline); !got.Equal(deadline) || r.Due() {
			t.Fatalf("zero Resender: Wait(%v) = %v, Due %v; want the deadline, false", deadline, got, r.Due())
		}
	}
	if r.Count() != 0 {
		t.Fatalf("Count = %d, want 0", r.Count())
	}
}

func TestResenderWait(t *testing.T) {
	tests := []struct {
		name    string
		sent    bool
		resends int // resends already made
		after   time.Duration
		zero    bool // no deadline
		wantDue bool
	}{
		{name: "nothing sent", after: time.Hour},
		{name: "no deadline", sent: true, zero: true, wantDue: true},
		{name: "deadline after resend", sent: true, after: time.Hour, wantDue: true},
		{name: "deadline before resend", sent: true, after: time.Second},
		{name: "retries left", sent: true, resends: 2, zero: true, wantDue: true},
		{name: "retries used up", sent: true, resends: 3, zero: true},
		{name: "retries used up with deadline", sent: true, resends: 3, after: time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Resender
			r.Init(Options{RetransmitTimeout: testRTO, MaxRetries: 3}, time.Millisecond, 1, 64)
			var earliest, latest time.Time
			if tt.sent {
				earliest, latest = sent(&r, []byte("ping"))
			}
			for range tt.resends {
				earliest = time.Now()
				r.Resend()
				latest = time.Now()
			}
			var deadline time.Time
			if !tt.zero {
				deadline = time.Now().Add(tt.after)
			}
			got := r.Wait(deadline)
			if r.Due() != tt.wantDue {
				t.Fatalf("Due = %v, want %v", r.Due(), tt.wantDue)
			}
			if tt.wantDue {
				checkResendAt(t, got, earliest, latest)
			} else if !got.Equal(deadline) {
				t.Fatalf("Wait = %v, want the deadline %v", got, deadline)
			}
			if r.Count() != uint64(tt.resends) {
				t.Fatalf("Count = %d, want %d", r.Count(), tt.resends)
			}
		})
	}
}

func TestResenderDefaults(t *testing.T) {
	for _, opts := range []Options{{}, {RetransmitTimeout: -1, MaxRetries: -1}} {
		var r Resender
		r.Init(opts, testRTO, 2, 0)
		earliest, latest := sent(&r, []byte("ping"))
		checkResendAt(t, r.Wait(time.Time{}), earliest, latest)
		r.Resend()
		r.Resend()
		if r.Wait(time.Time{}); r.Due() {
			t.Fatalf("%+v: Due after 2 resends, want the default of 2 retries", opts)
		}
	}
}

// TestResenderMessage checks that the resent bytes are those sent, however
// the caller reuses its buffer, that a message larger than the size given
// to Init is kept whole, and that Sent starts the retries afresh.
func TestResenderMessage(t *testing.T) {
	var r Resender
	r.Init(Options{RetransmitTimeout: testRTO, MaxRetries: 1}, 0, 0, 4)
	for _, size := range []int{3, 4, 100, 2} {
		msg := bytes.Repeat([]byte{byte(size)}, size)
		want := bytes.Clone(msg)
		earliest, latest := sent(&r, msg)
		clear(msg)
		checkResendAt(t, r.Wait(time.Time{}), earliest, latest)
		if !r.Due() {
			t.Fatalf("%d bytes: not due after Sent", size)
		}
		if got := r.Resend(); !bytes.Equal(got, want) {
			t.Fatalf("Resend = %v, want %v", got, want)
		}
		if r.Wait(time.Time{}); r.Due() {
			t.Fatalf("%d bytes: due after the only retry", size)
		}
	}
	if r.Count() != 4 {
		t.Fatalf("Count = %d, want 4", r.Count())
	}
}

func TestResenderAllocs(t *testing.T) {
	var r Resender
	r.Init(Options{RetransmitTimeout: testRTO, MaxRetries: 1}, 0, 0, 64)
	msg := make([]byte, 64)
	allocs := testing.AllocsPerRun(100, func() {
		r.Sent(msg)
		r.Wait(time.Time{})
		if r.Due() {
			r.Resend()
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per message, want 0", allocs)
	}
}

func BenchmarkResender(b *testing.B) {
	var r Resender
	r.Init(Options{RetransmitTimeout: testRTO, MaxRetries: 1}, 0, 0, 16)
	msg := make([]byte, 16)
	deadline := time.Now().Add(time.Hour)
	for b.Loop() {
		r.Sent(msg)
		r.Wait(deadline)
	}
}
