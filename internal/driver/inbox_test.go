package driver

import (
	"errors"
	"testing"
	"time"
)

func TestInbox(t *testing.T) {
	q := NewInbox("test", 2, 8)
	at := time.Now()
	for i := range 2 {
		b, ok := q.Buffer()
		if !ok {
			t.Fatal("no buffer")
		}
		b[0] = byte(i)
		if !q.Put(b, 3, at.Add(time.Duration(i))) {
			t.Fatal("Put refused")
		}
	}
	// Both buffers are queued: a reader waits until Receive frees one.
	got := make(chan []byte, 1)
	go func() { b, _ := q.Buffer(); got <- b }()
	buf := make([]byte, 8)
	for i := range 2 {
		n, when, err := q.Receive(buf, time.Time{})
		if err != nil || n != 3 || buf[0] != byte(i) || !when.Equal(at.Add(time.Duration(i))) {
			t.Fatalf("message %d: %d B, first byte %d, at %v, %v", i, n, buf[0], when, err)
		}
	}
	if b := <-got; len(b) != 8 {
		t.Fatalf("freed buffer of %d bytes", len(b))
	}
	if _, _, err := q.Receive(buf, time.Now().Add(10*time.Millisecond)); !errors.Is(err, ErrTimeout) {
		t.Errorf("empty inbox: %v, want a timeout", err)
	}
	short, _ := q.Buffer()
	q.Put(short, 8, at)
	if _, _, err := q.Receive(make([]byte, 4), time.Time{}); err == nil || errors.Is(err, ErrTimeout) {
		t.Errorf("8 bytes into 4: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, _, err := q.Receive(buf, time.Time{}); done <- err }()
	q.Close()
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Errorf("Receive after Close: %v", err)
	}
	if _, ok := q.Buffer(); ok {
		t.Error("Buffer after Close")
	}
}
