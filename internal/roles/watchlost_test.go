package roles

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestWatchLostRecordsAndCancels: a connection reported lost is recorded
// and ends the run; a run that ends first records nothing, and a loss
// reported after it is not read.
func TestWatchLostRecordsAndCancels(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lost := make(chan error, 1)
	var box errBox
	box.watchLost(ctx, lost, cancel)
	gone := errors.New("connection reset")
	lost <- gone
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a lost connection did not cancel the run")
	}
	if got := box.get(); got != gone {
		t.Errorf("recorded %v, want %v", got, gone)
	}

	ctx2, cancel2 := context.WithCancel(context.Background())
	lost2 := make(chan error)
	var box2 errBox
	box2.watchLost(ctx2, lost2, func() { t.Error("cancel called after the run ended") })
	cancel2()
	select {
	case lost2 <- gone:
		t.Error("the watcher read a loss reported after the run ended")
	default: // nobody receives: the watcher has stopped (or never will read)
	}
	if got := box2.get(); got != nil {
		t.Errorf("recorded %v after the run ended, want nothing", got)
	}
}
