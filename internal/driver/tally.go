package driver

import (
	"sync"
	"time"
)

// Tally counts answers that arrive in order (returns, acknowledgements),
// so that a client can wait for the answer to the Nth request of its own.
// The zero Tally is ready.
type Tally struct {
	mu   sync.Mutex
	n    uint64
	next chan struct{} // closed at the next Add; nil while none waits
}

// Add counts an answer.
func (t *Tally) Add() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n++
	if t.next != nil {
		close(t.next)
		t.next = nil
	}
}

// reached returns nil once n answers were counted, else a channel closed
// at the next one.
func (t *Tally) reached(n uint64) <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n >= n {
		return nil
	}
	if t.next == nil {
		t.next = make(chan struct{})
	}
	return t.next
}

// Wait waits within timeout until n answers were counted. It returns nil
// then, ErrClosed once lost is closed (no answer can come any more) before
// they were, and ErrTimeout when timeout passed.
func (t *Tally) Wait(n uint64, timeout time.Duration, lost <-chan struct{}) error {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		next := t.reached(n)
		if next == nil {
			return nil
		}
		select {
		case <-next:
		case <-lost:
			if t.reached(n) == nil {
				return nil
			}
			return ErrClosed
		case <-timer.C:
			return ErrTimeout
		}
	}
}
