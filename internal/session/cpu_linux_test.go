package session

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestEchoCPUCountsAWrappedEcho reads the CPU time of an --echo-command
// that wraps the echo program without exec (a shell script that starts it
// as a child): the time the child spends is the echo's. Read of the
// wrapper alone it stood still, and the interleaved gate stopped at its
// first round ("the echo processes' CPU time could not be read").
func TestEchoCPUCountsAWrappedEcho(t *testing.T) {
	// The shell waits for its busy child; "; exit" keeps it from exec'ing
	// it.
	cmd := exec.Command("/bin/sh", "-c", "sh -c 'while :; do :; done'; exit 0")
	setProcAttr(cmd)
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // its process group: the shell and its child
		cmd.Wait()
	})
	// Wait, however long the machine takes, until the child has spent
	// some CPU time (no time limit asserted: the test's own deadline is
	// the bound).
	var child int
	var spent time.Duration
	for spent < 20*time.Millisecond {
		time.Sleep(10 * time.Millisecond)
		if kids := children(cmd.Process.Pid); len(kids) == 1 {
			child = kids[0]
			spent, _ = processCPU(child)
		}
	}
	got, err := echoCPU(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if got < spent {
		t.Fatalf("echoCPU of the wrapper %d: %v, less than its child %d had spent before (%v)", cmd.Process.Pid, got, child, spent)
	}
}
