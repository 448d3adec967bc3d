package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fencedBlocks returns the ```lang blocks of the repository file name
// (relative to the repository root), in order.
func fencedBlocks(t *testing.T, name, lang string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []string
	var cur *strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case cur == nil && line == "```"+lang:
			cur = &strings.Builder{}
		case cur != nil && line == "```":
			blocks = append(blocks, cur.String())
			cur = nil
		case cur != nil:
			cur.WriteString(line + "\n")
		}
	}
	return blocks
}

// gateTrap lets a gate's exit 1 or 3 (a verdict: failed, inconclusive)
// pass, saying so on a line of its own (gateExit), and stops the script at
// any other failure: exit 2 is an error in the documented command itself.
// TestREADMECommands asserts the verdicts that matter from the reports and
// those lines.
const gateTrap = `trap 'rc=$?; if [ $rc -ne 1 ] && [ $rc -ne 3 ]; then echo "README command failed with exit $rc: $BASH_COMMAND" >&2; exit $rc; fi; echo "` +
	gateExit + `$rc: $BASH_COMMAND"' ERR` + "\n"

// gateExit starts the line gateTrap writes for a gate's exit 1 or 3.
const gateExit = "README gate exited "

// gateExits returns, for every command of the output whose gate exited 1
// or 3, the exit code and the command.
func gateExits(out string) map[string]int {
	exits := map[string]int{}
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, gateExit); ok && len(rest) > 3 {
			exits[rest[3:]] = int(rest[0] - '0')
		}
	}
	return exits
}

// refusedCorrelated begins requirements' refusal of baseline runs that
// wander together (requirements.refuseCorrelated).
const refusedCorrelated = "the reference runs are serially correlated"

// baselineTries is how many baselines TestREADMECommands measures before
// it takes requirements' refusal as the walkthrough's failure: at the 1 in
// 2 refusals seen on a drifting machine, one test in 64.
const baselineTries = 6

// runREADME runs script in a fresh work folder holding the tools in bin/.
func runREADME(t *testing.T, script string) (work string, out []byte, err error) {
	t.Helper()
	work = t.TempDir()
	buildTools(t, filepath.Join(work, "bin"), "...")
	out, err = runIn(work, script)
	return work, out, err
}

// runIn runs script with bash in the folder work.
func runIn(work, script string) ([]byte, error) {
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = work
	return cmd.CombinedOutput()
}

// blocksScript is the README's sh blocks from index from on, each after a
// line naming it, as one script.
func blocksScript(blocks []string, from int) string {
	var script strings.Builder
	for i := from; i < len(blocks); i++ {
		fmt.Fprintf(&script, "echo '--- README sh block %d'\n%s", i+1, blocks[i])
	}
	return script.String()
}

// tail is the last n bytes of b.
func tail(b []byte, n int) []byte { return b[max(0, len(b)-n):] }

// TestREADMECommands runs every ```sh block of the README, in order, in one
// shell session in a fresh directory with the tools in bin/, as a reader
// would in one terminal, so that the documented commands cannot drift from
// the tools (executable documentation). The walkthrough must keep what it
// writes in its work folder: the repository root gets nothing but it.
//
// Its deciding gate must decide at the default 5 % margins: run ab
// --max-runs (the interleaved design, 22 latency checks: in process and
// over TCP, 11 payloads each, and the TCP echo's CPU per message) passes (exit 0, not 3) the unchanged build against
// itself started as an external echo, and fails (exit 1) the same system
// made slower by 4 µs per message, about a tenth of its TCP round trip
// here.
//
// Its requirements gate must do its job: the unchanged system's twelve runs
// never fail the statistical requirements of its twelve baseline runs, and
// six runs of the system made slower by 50 µs per message (run
// --echo-delay) fail them. The gate checks medians with a 25 % margin,
// which passed unchanged runs in 16 of 16 trials here; once, four of the
// twelve unchanged runs' TCP medians came out beyond the baseline's largest
// run +25 % (about 35 µs against 28), and check stayed inconclusive, as
// the README says it does: that is accepted, a FAIL is not. The delay
// raises the medians (half round trip) from about 2 µs to 27 µs
// intraprocess and by about 25 µs over TCP.
func TestREADMECommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the README's walkthrough; skipped with -short")
	}
	blocks := fencedBlocks(t, "README.md", "sh")
	if len(blocks) < 3 {
		t.Fatalf("found %d sh blocks in README.md, expected the walkthrough", len(blocks))
	}
	script := gateTrap + blocksScript(blocks, 0)
	work, out, err := runREADME(t, script)
	// The baseline's twelve runs, measured back to back, wander together
	// on a shared machine often enough that requirements refuses them, as
	// it is built to (on one 2-vCPU machine, 3 of 6 baselines, and 2 of 6
	// with 3 s between runs; twice in a row once in CI). Its message says
	// to measure them again, which the reader does: from the block that
	// measures them on, in the same folder (what the blocks before it
	// wrote stands), up to baselineTries baselines in all. A refused
	// baseline costs about 20 s.
	from := slices.IndexFunc(blocks, func(b string) bool { return strings.Contains(b, "--out baseline") })
	last := out
	for try := 1; err != nil && strings.Contains(string(last), refusedCorrelated); try++ {
		if from < 0 {
			t.Fatalf("requirements refused the baseline, but no README sh block measures one (--out baseline):\n%s", tail(out, 1500))
		}
		if try == baselineTries {
			t.Fatalf("requirements refused %d baselines in a row as serially correlated:\n%s", try, tail(out, 3000))
		}
		t.Logf("requirements refused baseline %d as serially correlated; the walkthrough measures it again, from block %d:\n%s", try, from+1, tail(last, 1500))
		last, err = runIn(work, gateTrap+"cd ci && rm -rf baseline\n"+blocksScript(blocks, from))
		out = append(out, last...)
	}
	if err != nil {
		t.Fatalf("README sh blocks failed: %v\n--- output\n%s", err, out)
	}
	ci := filepath.Join(work, "ci")
	exits := gateExits(string(out))
	for _, g := range []struct {
		name, file, status string
		code               int
	}{{"--name same", "ab.json", "passed", 0}, {"--name slower", "ab-slower.json", "failed", 1}} {
		code := 0
		for cmd, c := range exits {
			if strings.Contains(cmd, "run ab ") && strings.Contains(cmd, g.name+" ") {
				code = c
			}
		}
		var v struct {
			Status string `json:"status"`
			Mode   string `json:"mode"`
			Checks []struct {
				Message string `json:"message"`
				Metric  struct {
					Name string `json:"name"`
				} `json:"metric"`
			} `json:"checks"`
		}
		b, err := os.ReadFile(filepath.Join(ci, g.file))
		if err == nil {
			err = json.Unmarshal(b, &v)
		}
		cpu := 0
		for _, c := range v.Checks {
			if c.Metric.Name == "Echo CPU/message" {
				cpu++
			}
		}
		if err != nil || code != g.code || v.Status != g.status || len(v.Checks)-cpu != 22 || cpu != 1 {
			t.Errorf("README's run ab %s: exit %d, verdict %q with %d checks of which %d echo CPU (%v), want exit %d, %q with 22 and 1:\n%s\n%.2000s",
				g.name, code, v.Status, len(v.Checks), cpu, err, g.code, g.status, v.Mode, out)
		}
	}
	if b, err := os.ReadFile(filepath.Join(ci, "ab", "same-rounds.csv")); err != nil || !strings.HasPrefix(string(b), "Round,Sub-experiment,Payload,Reference first,Column,Reference,Candidate,Unit,Reference CPU/message,Candidate CPU/message\n") {
		t.Errorf("README's run ab wrote no rounds file: %v\n%.300s", err, b)
	}
	for _, f := range []string{"latency_requirements.csv", "check.xml", "check.md", "check.json", "check.html",
		"check/checks_interprocess_reliable_tcp.csv", "check-slower.json",
		"compare.xml", "compare.md", "compare.html", "history.html", "history/history.csv",
		"candidate/new1/report.html", "candidate/new1/checks_interprocess_reliable_tcp.csv",
		"comparison/interprocess_reliable_tcp_comparison.csv", "baseline/run12/meta.json"} {
		if _, err := os.Stat(filepath.Join(ci, f)); err != nil {
			t.Errorf("the README's commands did not write ci/%s", f)
		}
	}
	if b, err := os.ReadFile(filepath.Join(ci, "latency_requirements.csv")); err != nil || !strings.Contains(string(b), ",half-rtt,order,12,0.01,") {
		t.Errorf("the README's requirements are not statistical, from 12 runs:\n%.300s", b)
	}
	for _, g := range []struct {
		file, status string
		checks       int
	}{{"check.json", "passed", 22}, {"check-slower.json", "failed", 22}} {
		var v struct {
			Status string `json:"status"`
			Checks []struct {
				Status  string `json:"status"`
				Message string `json:"message"`
			} `json:"checks"`
		}
		b, err := os.ReadFile(filepath.Join(ci, g.file))
		if err == nil {
			err = json.Unmarshal(b, &v)
		}
		if err != nil {
			t.Errorf("ci/%s: %v", g.file, err)
			continue
		}
		var not []string
		failed := 0
		for _, c := range v.Checks {
			if c.Status != g.status {
				not = append(not, c.Status+": "+c.Message)
			}
			if c.Status == "failed" {
				failed++
			}
		}
		// The unchanged candidate's twelve runs may wander beyond the
		// baseline's largest run (+25 %) in more than one run on a busy
		// machine: check then says it cannot show the median within the
		// limit, "no evidence of regression, not a pass" (exit 3), as the
		// README says it does. What must never happen is a FAIL.
		wandered := g.status == "passed" && v.Status == "inconclusive" && failed == 0
		switch {
		case len(v.Checks) != g.checks || (v.Status != g.status && !wandered):
			t.Errorf("ci/%s: the README's gate %s with %d checks, want %s with %d:\n%s", g.file, v.Status, len(v.Checks), g.status, g.checks, strings.Join(not, "\n"))
		case wandered:
			t.Logf("ci/%s: the README's unchanged candidate stayed inconclusive (its runs wandered; no check failed):\n%s", g.file, strings.Join(not, "\n"))
		}
	}
	entries, err := os.ReadDir(work)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "bin" && e.Name() != "ci" {
			t.Errorf("the README's commands wrote %s into the repository root, outside their work folder ci/", e.Name())
		}
	}
}
