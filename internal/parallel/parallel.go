// Package parallel runs independent jobs on a bounded pool of goroutines:
// the one worker pool of change-point detection, plot drawing and
// calibration.
package parallel

import (
	"context"
	"runtime"
	"sync"
)

// Each calls f(i) for i = 0 … n−1 on min(workers, n) goroutines
// (GOMAXPROCS when workers ≤ 0), handing the indices out in order, and
// returns once every call made has returned. When ctx is done it hands out
// no more and returns ctx.Err(); f reports its own errors.
func Each(ctx context.Context, workers, n int, f func(i int)) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return ctx.Err()
}
