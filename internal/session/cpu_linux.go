package session

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// echoCPU returns how long the echo process pid has been on a CPU so far,
// with the processes it started: an --echo-command that wraps the echo
// program without exec (a shell script, timeout, a profiler) is the
// process run starts, and the echo its child, whose time is the echo's
// (the wrapper, waiting, adds next to nothing). Read of pid alone, such a
// wrapper's time stood still while the echo served, and the gate stopped
// at its first round: "the echo processes' CPU time could not be read".
// A child that exits between the listing and its reading is left out.
func echoCPU(pid int) (time.Duration, error) {
	sum, err := processCPU(pid)
	if err != nil {
		return 0, err
	}
	for _, c := range children(pid) {
		t, err := echoCPU(c)
		if err != nil {
			continue // the child exited after the listing
		}
		sum += t
	}
	return sum, nil
}

// processCPU returns how long process pid's threads have been on a CPU
// so far: the first field of each /proc/<pid>/task/<tid>/schedstat, in
// ns, summed. A thread that exited after the listing is skipped; an
// exited thread's time leaves the sum (a Go echo process keeps its
// threads, so the sum rarely falls; the engine drops a reading that
// does).
func processCPU(pid int) (time.Duration, error) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	var sum int64
	read := 0
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, t.Name(), "schedstat"))
		if errors.Is(err, fs.ErrNotExist) || vanished(err) {
			continue // the thread exited after the listing
		}
		if err != nil {
			return 0, err
		}
		f, _, _ := bytes.Cut(b, []byte(" "))
		ns, err := strconv.ParseInt(string(f), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s/%s/schedstat: %q: %v", dir, t.Name(), b, err)
		}
		sum += ns
		read++
	}
	if read == 0 {
		return 0, fmt.Errorf("%s: no thread left", dir)
	}
	return time.Duration(sum), nil
}
