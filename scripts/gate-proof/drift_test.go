package main

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user and system CPU time so far.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestDriftPhases: a spinning phase takes CPU time for its length and an
// idle one next to none; a drifter counts the phases it went through and
// stops when told.
func TestDriftPhases(t *testing.T) {
	d := &drifter{stop: make(chan struct{})}
	before := cpuTime(t)
	d.phase(driftOne, 400*time.Millisecond)
	spun := cpuTime(t) - before
	before = cpuTime(t)
	d.phase(driftIdle, 400*time.Millisecond)
	idle := cpuTime(t) - before
	// Loose bounds: on a machine shared by some 30 runnable threads a
	// spinning one still gets a few per cent of a CPU, and an idle phase
	// next to none.
	if spun < 10*time.Millisecond || spun < 4*idle || idle > 50*time.Millisecond {
		t.Errorf("CPU time: spinning phase %v, idle phase %v over 400 ms each", spun, idle)
	}
	g := startDrift(1)
	time.Sleep(50 * time.Millisecond)
	s := g.Stop()
	if !strings.HasPrefix(s, "drift phases: ") || g.phases[0].Load()+g.phases[1].Load()+g.phases[2].Load()+g.phases[3].Load() != 1 {
		t.Errorf("after one phase: %q", s)
	}
}
