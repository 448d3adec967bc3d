package main

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// drifter is a neighbour whose demand for the CPUs changes while a gate
// runs, as other jobs on a shared runner come and go: it moves through
// phases of 1 to 8 s, each drawn from a seeded generator, among idle, one
// thread spinning, two threads spinning and one thread busy 1 ms in every
// 2. A gate whose units are measured side by side should see the machine
// speed up and slow down under both sides alike; one that compared whole
// runs would read each phase as a difference between the systems.
type drifter struct {
	stop chan struct{}
	wg   sync.WaitGroup
	// phases counts the phases begun, by kind.
	phases [4]atomic.Int64
}

// drift kinds.
const (
	driftIdle = iota
	driftOne
	driftTwo
	driftBursty
)

// startDrift starts a drifter seeded with seed.
func startDrift(seed uint64) *drifter {
	d := &drifter{stop: make(chan struct{})}
	rng := rand.New(rand.NewPCG(seed, 0x6472696674))
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		for {
			kind := rng.IntN(4)
			d.phases[kind].Add(1)
			length := time.Second + time.Duration(rng.Int64N(int64(7*time.Second)))
			if !d.phase(kind, length) {
				return
			}
		}
	}()
	return d
}

// phase keeps kind's load for length; false once the drifter stops.
func (d *drifter) phase(kind int, length time.Duration) bool {
	end := make(chan struct{})
	var busy sync.WaitGroup
	spin := func(duty bool) {
		defer busy.Done()
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		x := uint64(1)
		for {
			select {
			case <-end:
				sink.Add(x)
				return
			default:
			}
			if duty {
				t := time.Now()
				for time.Since(t) < time.Millisecond {
					x = x*6364136223846793005 + 1442695040888963407
				}
				time.Sleep(time.Millisecond)
				continue
			}
			for range 1 << 12 {
				x = x*6364136223846793005 + 1442695040888963407
			}
		}
	}
	threads := map[int]int{driftOne: 1, driftTwo: 2, driftBursty: 1}[kind]
	for range threads {
		busy.Add(1)
		go spin(kind == driftBursty)
	}
	defer func() {
		close(end)
		busy.Wait()
	}()
	select {
	case <-d.stop:
		return false
	case <-time.After(length):
		return true
	}
}

// sink keeps the spinning loops' results alive.
var sink atomic.Uint64

// Stop ends the drift and says what it did.
func (d *drifter) Stop() string {
	close(d.stop)
	d.wg.Wait()
	return fmt.Sprintf("drift phases: %d idle, %d one thread spinning, %d two, %d bursty",
		d.phases[driftIdle].Load(), d.phases[driftOne].Load(), d.phases[driftTwo].Load(), d.phases[driftBursty].Load())
}
