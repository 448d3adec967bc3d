package session

import (
	"fmt"
	"os"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// pinThread locks the calling goroutine to its OS thread and that thread
// to cpu. The goroutine must not unlock: when it ends, the runtime
// discards the pinned thread instead of reusing it.
func pinThread(cpu int) error {
	if cpu < 0 {
		return nil
	}
	freezeGOMAXPROCS()
	runtime.LockOSThread()
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("cannot pin to CPU %d: %w", cpu, err)
	}
	return nil
}

// pinProcess pins every thread of this process to cpu, as taskset does for
// a whole program: an echoer's transport may serve on goroutines of its
// own, on any thread. Threads created later inherit the affinity of the
// thread that creates them, which is pinned by then; the loop repeats until
// it finds no thread it has not pinned.
func pinProcess(cpu int) error {
	if cpu < 0 {
		return nil
	}
	// One CPU, one P, as Go chooses itself for a program started under
	// taskset: with more Ps than CPUs a goroutine woken from a blocking
	// read often resumes on another thread, which costs two context
	// switches per message (a 16-byte TCP echo took 18 µs instead of 14).
	runtime.GOMAXPROCS(1)
	var set unix.CPUSet
	set.Set(cpu)
	pinned := map[int]bool{}
	for {
		entries, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return fmt.Errorf("cannot list threads to pin to CPU %d: %w", cpu, err)
		}
		fresh := 0
		for _, e := range entries {
			tid, err := strconv.Atoi(e.Name())
			if err != nil || pinned[tid] {
				continue
			}
			// A thread may exit between listing and pinning.
			if err := unix.SchedSetaffinity(tid, &set); err != nil && err != unix.ESRCH {
				return fmt.Errorf("cannot pin to CPU %d: %w", cpu, err)
			}
			pinned[tid] = true
			fresh++
		}
		if fresh == 0 {
			return nil
		}
	}
}

// freezeGOMAXPROCS keeps GOMAXPROCS at its start value. The runtime lowers
// it to the number of CPUs a process may use when its affinity changes;
// with a single P, a goroutine blocked in a read for longer than a
// scheduler tick loses its P and resumes on another thread, which adds two
// context switches to every round trip. Setting it explicitly turns the
// automatic update off.
func freezeGOMAXPROCS() { runtime.GOMAXPROCS(runtime.GOMAXPROCS(0)) }
