package parallel

import (
	"context"
	"sync/atomic"
	"testing"
)

// TestEach: every index is handed out once, on at most the workers asked;
// a cancelled context hands out none and is reported.
func TestEach(t *testing.T) {
	var calls [100]atomic.Int32
	var running, most atomic.Int32
	if err := Each(context.Background(), 3, len(calls), func(i int) {
		n := running.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		calls[i].Add(1)
		running.Add(-1)
	}); err != nil {
		t.Fatal(err)
	}
	for i := range calls {
		if c := calls[i].Load(); c != 1 {
			t.Errorf("index %d called %d times", i, c)
		}
	}
	if most.Load() > 3 {
		t.Errorf("%d calls at once, want at most 3", most.Load())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var n atomic.Int32
	if err := Each(ctx, 0, 10, func(int) { n.Add(1) }); err != context.Canceled {
		t.Errorf("cancelled: %v after %d calls", err, n.Load())
	}
}
