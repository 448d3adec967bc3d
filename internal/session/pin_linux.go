package session

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// osAffinity is the kernel's: sched_setaffinity and sched_getaffinity.
type osAffinity struct{}

func (osAffinity) Set(tid int, cpus []int) error {
	var set unix.CPUSet
	for _, c := range cpus {
		set.Set(c)
	}
	return unix.SchedSetaffinity(tid, &set)
}

func (osAffinity) Get(tid int) ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(tid, &set); err != nil {
		return nil, err
	}
	var out []int
	for c := 0; c < len(set)*64; c++ {
		if set.IsSet(c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// vanished reports whether err says that the thread is gone: a thread may
// exit between listing and pinning.
func vanished(err error) bool { return errors.Is(err, unix.ESRCH) }

// threads lists the threads of process pid.
func threads(pid int) ([]int, error) {
	entries, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range entries {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, tid)
		}
	}
	return out, nil
}

// children lists the child processes of pid (empty when the kernel does
// not say).
func children(pid int) []int {
	tids, _ := threads(pid)
	var out []int
	for _, tid := range tids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, tid))
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// pinProcess pins every thread of this process to cpu, as taskset does for
// a whole program: an echoer's transport may serve on goroutines of its
// own, on any thread. Threads created later inherit the affinity of the
// thread that creates them, which is pinned by then; the loop repeats until
// it finds no thread it has not pinned. Each thread's affinity is read
// back: a pin the OS did not honour is an error.
func pinProcess(cpu int) error {
	if cpu < 0 {
		return nil
	}
	// One CPU, one P, as Go chooses itself for a program started under
	// taskset: with more Ps than CPUs a goroutine woken from a blocking
	// read often resumes on another thread, which costs two context
	// switches per message (a 16-byte TCP echo took 18 µs instead of 14).
	runtime.GOMAXPROCS(1)
	pinned := map[int]bool{}
	for {
		tids, err := threads(os.Getpid())
		if err != nil {
			return fmt.Errorf("cannot list threads to pin to CPU %d: %w", cpu, err)
		}
		fresh := 0
		for _, tid := range tids {
			if pinned[tid] {
				continue
			}
			if err := pinTo(tid, cpu); err != nil && !vanished(err) {
				return fmt.Errorf("thread %d: %w", tid, err)
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
