package session

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/meta"
)

// affinity sets and reads the CPUs a thread may run on (tid 0: the
// calling thread). sysAffinity is the OS's; tests put one in its place
// that does not do what it is asked.
type affinity interface {
	Set(tid int, cpus []int) error
	Get(tid int) ([]int, error)
}

var sysAffinity affinity = osAffinity{}

// PinError is a pin the OS refused or did not honour: it was asked for
// CPU Asked and either failed (Err) or left the thread on the CPUs Got.
type PinError struct {
	Asked int
	Got   []int
	Err   error
}

func (e *PinError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("cannot pin to CPU %d: %v", e.Asked, e.Err)
	}
	return fmt.Sprintf("asked for CPU %d, the OS gave CPUs %s", e.Asked, cpuList(e.Got))
}

func (e *PinError) Unwrap() error { return e.Err }

// pinThread locks the calling goroutine to its OS thread and that thread
// to cpu, and reads the thread's affinity back. The goroutine must not
// unlock: when it ends, the runtime discards the pinned thread instead of
// reusing it.
func pinThread(cpu int) error {
	if cpu < 0 {
		return nil
	}
	freezeGOMAXPROCS()
	runtime.LockOSThread()
	return pinTo(0, cpu)
}

// pinTo pins thread tid to cpu and checks that the OS did.
func pinTo(tid, cpu int) error {
	if err := sysAffinity.Set(tid, []int{cpu}); err != nil {
		return &PinError{Asked: cpu, Err: err}
	}
	return checkPinned(tid, cpu)
}

// checkPinned reads thread tid's affinity: it must be cpu alone.
func checkPinned(tid, cpu int) error {
	got, err := sysAffinity.Get(tid)
	if err != nil {
		return &PinError{Asked: cpu, Err: err}
	}
	if len(got) != 1 || got[0] != cpu {
		return &PinError{Asked: cpu, Got: got}
	}
	return nil
}

// checkProcessPinned reads back the affinity of every thread of the echo
// process pid, or, when pid only wraps the echo program (--echo-command
// starting it as a child), of the processes at the leaves of its tree.
func checkProcessPinned(pid, cpu int) error {
	for _, p := range leaves(pid) {
		tids, err := threads(p)
		if err != nil {
			return &PinError{Asked: cpu, Err: err}
		}
		for _, tid := range tids {
			if err := checkPinned(tid, cpu); err != nil && !vanished(err) {
				if p != pid {
					return fmt.Errorf("its child %d, thread %d: %w", p, tid, err)
				}
				return fmt.Errorf("thread %d: %w", tid, err)
			}
		}
	}
	return nil
}

// leaves returns the processes without children in the tree rooted at pid.
func leaves(pid int) []int {
	kids := children(pid)
	if len(kids) == 0 {
		return []int{pid}
	}
	var out []int
	for _, k := range kids {
		out = append(out, leaves(k)...)
	}
	return out
}

// probePin pins a thread of its own to each CPU in turn and reads it back:
// whether the OS honours a placement, found before anything is written.
// The thread is discarded afterwards.
func probePin(cpus ...int) error {
	done := make(chan error, 1)
	go func() {
		// Never unlocked: the runtime discards the thread at the end.
		runtime.LockOSThread()
		for _, c := range cpus {
			if c < 0 {
				continue
			}
			if err := pinTo(0, c); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	return <-done
}

// defaultCPUs is the placement run chooses when --cpus is not given: the
// first two CPUs this process may use, the pinger on the first and the
// echo end on the second; nil with fewer than two.
func defaultCPUs(allowed []int) *meta.CPUs {
	if len(allowed) < 2 {
		return nil
	}
	return &meta.CPUs{Pinger: allowed[0], Ponger: allowed[1], Placement: meta.PlacementDefault}
}

// resolvePlacement decides where the two ends run, before anything is
// written: the CPUs given (each probed: a pin the OS does not honour is an
// error), none, or by default the first two usable CPUs (a default that
// cannot be honoured is a warning, and the run is not pinned). One-way
// runs are not pinned by this session.
func (s *Session) resolvePlacement() error {
	c := s.cfg.CPUs
	switch {
	case s.cfg.OneWay:
		s.cpus = c
	case c == nil:
		s.cpus = s.defaultPlacement()
	case c.Pinger < 0 && c.Ponger < 0:
		s.cpus = &meta.CPUs{Pinger: -1, Ponger: -1, Placement: meta.PlacementNone}
	default:
		if err := probePin(c.Pinger); err != nil {
			return fmt.Errorf("--cpus %d,%d: the pinger's CPU was not honoured: %w", c.Pinger, c.Ponger, err)
		}
		if err := probePin(c.Ponger); err != nil {
			return fmt.Errorf("--cpus %d,%d: the echo end's CPU was not honoured: %w", c.Pinger, c.Ponger, err)
		}
		s.cpus = &meta.CPUs{Pinger: c.Pinger, Ponger: c.Ponger}
	}
	return nil
}

// defaultPlacement is defaultCPUs of this process's affinity, probed.
func (s *Session) defaultPlacement() *meta.CPUs {
	allowed, err := sysAffinity.Get(0)
	if err != nil {
		return s.notPinned(fmt.Sprintf("cannot read the CPUs this process may use: %v", err))
	}
	cpus := defaultCPUs(allowed)
	if cpus == nil {
		return s.notPinned(fmt.Sprintf("this process may use CPU %s only: the two ends share it", cpuList(allowed)))
	}
	if err := probePin(cpus.Pinger, cpus.Ponger); err != nil {
		return s.notPinned(fmt.Sprintf("pinning the ends to CPUs %d and %d: %v", cpus.Pinger, cpus.Ponger, err))
	}
	return cpus
}

// notPinned is the record of a default placement that could not be
// applied, said as a warning.
func (s *Session) notPinned(why string) *meta.CPUs {
	s.warnf("not pinned: %s (--cpus none says that on purpose)", why)
	return &meta.CPUs{Pinger: -1, Ponger: -1, Placement: meta.PlacementNotPinned, Note: why}
}

// given reports whether the placement was given by --cpus, where a pin
// not honoured is an error rather than a warning.
func (s *Session) given() bool { return s.cpus != nil && s.cpus.Placement == "" }

// unpin records that the default placement could not be applied to one
// end (the pinger or the echo end of a sub-experiment), with a warning;
// the ends of later sub-experiments stay unpinned.
func (s *Session) unpin(end string, err error) {
	why := fmt.Sprintf("%s: %v", end, err)
	s.warnf("not pinned: %s", why)
	s.cpus.Placement, s.cpus.Note = meta.PlacementNotPinned, why
	if end == "pinger" {
		s.cpus.Pinger = -1
	} else {
		s.cpus.Ponger = -1
	}
}

// pingerCPU and pongerCPU are the CPUs to pin the ends to (-1: none).
func (s *Session) pingerCPU() int {
	if s.cpus == nil {
		return -1
	}
	return s.cpus.Pinger
}

func (s *Session) pongerCPU() int {
	if s.cpus == nil || s.cpus.Placement == meta.PlacementNotPinned {
		return -1
	}
	return s.cpus.Ponger
}

// warnf writes a warning to the run's standard error.
func (s *Session) warnf(format string, args ...any) {
	if s.cfg.EchoStderr != nil {
		fmt.Fprintf(s.cfg.EchoStderr, "warning: "+format+"\n", args...)
	}
}

// cpuList writes CPUs as the kernel does (Cpus_allowed_list): 0-3,6.
func cpuList(cpus []int) string {
	if len(cpus) == 0 {
		return "none"
	}
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		p := strconv.Itoa(cpus[i])
		if j > i {
			p += "-" + strconv.Itoa(cpus[j])
		}
		parts = append(parts, p)
		i = j + 1
	}
	return strings.Join(parts, ",")
}
