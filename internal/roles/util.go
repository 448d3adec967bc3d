package roles

import (
	"context"
	"os"
	"sync"
)

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "unknown"
	}
	return h
}

// errBox holds an error set by one goroutine and read by another.
type errBox struct {
	mu  sync.Mutex
	err error
}

func (b *errBox) set(err error) {
	b.mu.Lock()
	if b.err == nil {
		b.err = err
	}
	b.mu.Unlock()
}

func (b *errBox) get() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// watchLost records in b the error of a connection reported lost on lost
// and then cancels the run; it stops watching when ctx is done first.
func (b *errBox) watchLost(ctx context.Context, lost <-chan error, cancel context.CancelFunc) {
	go func() {
		select {
		case e := <-lost:
			b.set(e)
			cancel()
		case <-ctx.Done():
		}
	}()
}
