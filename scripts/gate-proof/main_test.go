package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSmallProof runs a small version of the proof through the command
// line a user would type, on the interleaved design at the default
// margins: two gates of an unchanged system (two files of one build as the
// two sides' echo programs) and two of the same system 10 % slower, in
// process and over TCP, on one payload (3 checks: the two latencies and the
// TCP echo's CPU per message; each round is then half as long as on two
// payloads, and the gates are as many). The unchanged system
// must never fail and pass at least once; the slower one must fail every
// time. The table must give every column.
func TestSmallProof(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real gates; skipped with -short")
	}
	out := t.TempDir()
	run := filepath.Join(out, "run")
	build := exec.Command("go", "build", "-o", run, "github.com/mqgate/mqgate/cmd/run")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building run: %v\n%s", err, b)
	}
	var stdout, stderr bytes.Buffer
	o := options{run: run, out: out, gates: 2, budget: 150, cases: []string{"unchanged", "slower"}, extra: []string{"--payloads", "64"}}
	if err := proof(o, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	t.Logf("\n%s\n%s", stdout.String(), stderr.String())
	rows := map[string][]string{}
	for _, line := range strings.Split(stdout.String(), "\n") {
		f := strings.Split(line, "|")
		if len(f) == 12 {
			rows[strings.TrimSpace(f[1])] = f[2:11]
		}
	}
	u, s := rows["unchanged"], rows["slower"]
	if u == nil || s == nil {
		t.Fatalf("no row of a case:\n%s", stdout.String())
	}
	// Columns: gates, PASS, FAIL, inconclusive, time, rounds, latency
	// spread, echo CPU spread, gates failed on echo CPU.
	if !strings.HasPrefix(strings.TrimSpace(u[2]), "0 (") || strings.HasPrefix(strings.TrimSpace(u[1]), "0 (") {
		t.Errorf("unchanged: PASS %s, FAIL %s: want never failed and passed at least once", u[1], u[2])
	}
	if !strings.HasPrefix(strings.TrimSpace(s[2]), "2 (") {
		t.Errorf("slower: FAIL %s of 2", s[2])
	}
	if !strings.Contains(u[6], " / ") || strings.Contains(u[6], "–") {
		t.Errorf("unchanged: no spread: %q", u[6])
	}
	// The TCP sub-experiment's echo ends are processes of their own:
	// its echo CPU check is gated by default, and never fails an
	// unchanged system.
	if !strings.Contains(u[7], " / ") || strings.TrimSpace(u[8]) != "0" {
		t.Errorf("unchanged: echo CPU spread %q, gates failed on it %q: want a spread and none failed", u[7], u[8])
	}
	if _, err := os.Stat(filepath.Join(out, "unchanged-01.json")); err != nil {
		t.Errorf("no report of the first gate: %v", err)
	}
}

// TestProofRefusesBadFlags: a case it does not know and a missing output
// folder are refused before any gate runs.
func TestProofRefusesBadFlags(t *testing.T) {
	for _, c := range []struct {
		o    options
		want string
	}{
		{options{gates: 1, budget: 10, cases: []string{"unchanged"}}, "-out"},
		{options{out: t.TempDir(), gates: 1, budget: 10, cases: []string{"faster"}}, `-cases: "faster"`},
		{options{out: t.TempDir(), gates: 0, budget: 10, cases: []string{"unchanged"}}, "-gates 0"},
	} {
		var stdout, stderr bytes.Buffer
		if err := proof(c.o, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want %q", c.o, err, c.want)
		}
	}
}
