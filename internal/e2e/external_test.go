package e2e

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/testenv"
)

// TestREADMEExternalProgram runs the README's example of a program that
// measures on its own, sockperf, as a reader pastes it: the lines of its
// block up to the end of the sockperf run (the relay line after it needs a
// Kafka adapter), 1 s per payload rather than 10 and on a free port, so
// that it cannot meet another test's server. sockperf's far end is not
// started by run: the block must start it, or the run stops on a log
// saying no message came back.
func TestREADMEExternalProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("runs sockperf through run; skipped with -short")
	}
	testenv.Program(t, "sockperf", "install the Debian package sockperf")
	var block string
	for _, b := range fencedBlocks(t, "README.md", "") {
		if strings.Contains(b, "--external-format sockperf") {
			block = b
		}
	}
	var lines []string
	for line := range strings.Lines(block) {
		lines = append(lines, line)
		if strings.Contains(line, "--external-command") && !strings.HasSuffix(strings.TrimSpace(line), `\`) {
			break
		}
	}
	if len(lines) == 0 || !strings.Contains(lines[len(lines)-1], "--external-command") {
		t.Fatalf("README.md has no block with a sockperf run (--external-format sockperf, --external-command):\n%s", block)
	}
	port := freeUDPPort(t)
	script := strings.Join(lines, "")
	script = strings.ReplaceAll(script, "-i 127.0.0.1", fmt.Sprintf("-i 127.0.0.1 -p %d", port))
	script = strings.ReplaceAll(script, "-t 10 ", "-t 1 ")
	// The server the block starts in the background ends with the script.
	script = "trap 'kill $(jobs -p) 2>/dev/null' EXIT\nset -e\n" + script
	work, out, err := runREADME(t, script)
	if err != nil {
		t.Fatalf("README's sockperf example failed: %v\n%s\n--- output\n%s", err, script, tail(out, 2000))
	}
	raws, _ := filepath.Glob(filepath.Join(work, "results", "*", "measurements_sockperf_best_effort.csv"))
	if len(raws) != 1 {
		t.Fatalf("README's sockperf example wrote %d raw files (%q), want 1:\n%s", len(raws), raws, tail(out, 2000))
	}
	b, err := os.ReadFile(raws[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{",16,", ",1024,"} {
		if !strings.Contains(string(b), p) {
			t.Errorf("%s has no sample of payload %s:\n%.300s", raws[0], strings.Trim(p, ","), b)
		}
	}
}

// freeUDPPort returns a UDP port of 127.0.0.1 that nothing listens on.
func freeUDPPort(t *testing.T) int {
	t.Helper()
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}
