package e2e

import (
	"bytes"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/synth"
)

// killRuns is how many times each tool is killed.
const killRuns = 50

// tempName is how atomicfile names a temporary file: hidden, so that no
// reader lists it (experiment files, LoadRoot), and not ending in the
// output's own extension.
var tempName = regexp.MustCompile(`^\..+\.tmp[0-9]+$`)

// generated masks the time an HTML report was made, the only byte that
// differs between two runs of a tool on the same inputs.
var generated = regexp.MustCompile(`<dt>Generated</dt><dd>[^<]*</dd>`)

// killCase is one tool under SIGKILL: its arguments, the directories its
// outputs go to, and how to put its earlier outputs in place.
type killCase struct {
	name string
	bin  string
	args []string
	dirs []string // every file under these is an output or must not change
	// old writes the previous good outputs (from other inputs), and prime
	// puts the inputs of the killed runs in place.
	old, prime func(t *testing.T)
}

// files maps every file under dirs to its content, with the temporary
// files apart.
func files(t *testing.T, dirs []string) (map[string][]byte, []string) {
	t.Helper()
	got := map[string][]byte{}
	var temps []string
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if strings.HasPrefix(d.Name(), ".") {
				temps = append(temps, path)
				return nil
			}
			b, err := os.ReadFile(path)
			got[path] = generated.ReplaceAll(b, []byte("<dt>Generated</dt><dd>-</dd>"))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return got, temps
}

// restore puts the files of want back as they were and removes every other
// file but the temporary ones under dirs.
func restore(t *testing.T, dirs []string, want map[string][]byte) {
	t.Helper()
	now, _ := files(t, dirs)
	for path := range now {
		if _, ok := want[path]; !ok {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}
	}
	for path, b := range want {
		if cur, err := os.ReadFile(path); err == nil && bytes.Equal(cur, b) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// rawFiles reads every file under dirs as it is (HTML unmasked), temporary
// files left out.
func rawFiles(t *testing.T, dirs []string) map[string][]byte {
	t.Helper()
	got := map[string][]byte{}
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") {
				return err
			}
			b, err := os.ReadFile(path)
			got[path] = b
			return err
		})
	}
	return got
}

// TestSIGKILLKeepsOutputs: SIGKILL at random points of process, check and
// history leaves every previous output either intact or completely
// replaced, never removed, truncated or mixed, and no file but a hidden
// temporary one appears. Each tool is killed killRuns times, at a random
// moment of its run (0 to 1.2 times its measured duration), each time over
// its previous outputs. The temporary files the kills leave behind are then
// shown to be ignored: a full run over them writes the same outputs.
func TestSIGKILLKeepsOutputs(t *testing.T) {
	t.Parallel() // gates nothing real: after the gating tests, beside the others (doc.go)
	if testing.Short() {
		t.Skip("builds and kills the tools; skipped with -short")
	}
	dir := t.TempDir()
	bins := buildTools(t, filepath.Join(dir, "bin"))
	types := []string{"intraprocess_best_effort", "interprocess_reliable"}
	payloads := []int{16, 1024, 16384}
	writeExp := func(t *testing.T, exp string, seed int64, slow float64) {
		t.Helper()
		if err := synth.WriteExperiment(exp, synth.Spec{Types: types, Payloads: payloads, Samples: 4000, Seed: seed, Slowdown: slow}); err != nil {
			t.Fatal(err)
		}
	}
	process := func(t *testing.T, exp string) {
		t.Helper()
		runTool(t, 0, bins["process"], "--quiet", "--no-plots", exp)
	}

	// process: an experiment processed (plots, HTML) from other raw files.
	pExp := filepath.Join(dir, "process", "exp")
	pHTML := filepath.Join(dir, "process", "report.html")
	// check: a processed experiment checked against other requirements.
	cExp := filepath.Join(dir, "check", "exp")
	cOut := filepath.Join(dir, "check", "reports")
	reqsOld := filepath.Join(dir, "reqs", "old", "latency_requirements.csv")
	reqsNew := filepath.Join(dir, "reqs", "new", "latency_requirements.csv")
	// history: a root of processed experiments drawn against other
	// requirements.
	hRoot := filepath.Join(dir, "history", "root")
	hOut := filepath.Join(dir, "history", "out")
	hReports := filepath.Join(dir, "history", "reports")
	for i, slow := range []float64{1, 1.1, 0.9} {
		exp := filepath.Join(hRoot, "2026-01-0"+string(rune('1'+i))+"_00-00-00")
		writeExp(t, exp, int64(10+i), slow)
		process(t, exp)
	}
	for _, r := range []struct {
		path string
		slow float64
	}{{reqsOld, 0.8}, {reqsNew, 1.2}} {
		root := filepath.Join(filepath.Dir(r.path), "runs")
		for i := range 2 {
			exp := filepath.Join(root, "run"+string(rune('1'+i)))
			writeExp(t, exp, int64(20+i), r.slow)
			process(t, exp)
		}
		runTool(t, 0, bins["requirements"], "-e", root, "-o", r.path)
	}
	writeExp(t, cExp, 30, 1)
	process(t, cExp)

	cases := []killCase{
		{name: "process", bin: bins["process"], args: []string{"--quiet", "--html", pHTML, pExp},
			dirs: []string{filepath.Dir(pExp)},
			old: func(t *testing.T) {
				writeExp(t, pExp, 1, 1)
				runTool(t, 0, bins["process"], "--quiet", "--html", pHTML, pExp)
			},
			prime: func(t *testing.T) { writeExp(t, pExp, 2, 1.5) }},
		{name: "check", bin: bins["check"], args: []string{"-r", reqsNew, "-e", cExp, "--json", filepath.Join(cOut, "check.json"),
			"--html", filepath.Join(cOut, "check.html"), "--junit", filepath.Join(cOut, "junit.xml"), "--markdown", filepath.Join(cOut, "check.md")},
			dirs: []string{filepath.Dir(cExp)},
			old: func(t *testing.T) {
				gateRun(t, bins["check"], "-r", reqsOld, "-e", cExp, "--json", filepath.Join(cOut, "check.json"),
					"--html", filepath.Join(cOut, "check.html"), "--junit", filepath.Join(cOut, "junit.xml"), "--markdown", filepath.Join(cOut, "check.md"))
			},
			prime: func(t *testing.T) {}},
		{name: "history", bin: bins["history"], args: []string{"-e", hRoot, "-r", reqsNew, "-p", hOut,
			"--json", filepath.Join(hReports, "history.json"), "--html", filepath.Join(hReports, "history.html")},
			dirs: []string{filepath.Dir(hRoot)},
			old: func(t *testing.T) {
				runTool(t, 0, bins["history"], "-e", hRoot, "-r", reqsOld, "-p", hOut,
					"--json", filepath.Join(hReports, "history.json"), "--html", filepath.Join(hReports, "history.html"))
			},
			prime: func(t *testing.T) {}},
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.old(t)
			c.prime(t)
			old := rawFiles(t, c.dirs)
			oldMasked, _ := files(t, c.dirs)
			// The complete new outputs: an un-killed run over the same
			// state, timed.
			start := time.Now()
			fullCode, _, _ := gateRun(t, c.bin, c.args...)
			full := time.Since(start)
			newMasked, _ := files(t, c.dirs)
			changed := 0
			for path, b := range oldMasked {
				if !bytes.Equal(newMasked[path], b) {
					changed++
				}
			}
			if changed == 0 {
				t.Fatal("the new run changed no output: nothing to tell old from new")
			}
			t.Logf("%s: %d files, %d of them rewritten differently, %d new; a full run takes %v", c.name, len(oldMasked), changed, len(newMasked)-len(oldMasked), full)
			var outcomes [3]int // intact, all replaced, mixed
			for i := range killRuns {
				restore(t, c.dirs, old)
				cmd := exec.Command(c.bin, c.args...)
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				wait := time.Duration(rng.Int64N(int64(full) * 12 / 10))
				time.Sleep(wait)
				cmd.Process.Signal(syscall.SIGKILL)
				cmd.Wait()
				got, temps := files(t, c.dirs)
				replaced, kept := 0, 0
				for path, b := range oldMasked {
					g, ok := got[path]
					switch {
					case !ok:
						t.Errorf("kill %d after %v: %s was removed", i, wait, path)
					case bytes.Equal(g, b) && bytes.Equal(g, newMasked[path]):
					case bytes.Equal(g, b):
						kept++
					case bytes.Equal(g, newMasked[path]):
						replaced++
					default:
						t.Errorf("kill %d after %v: %s is neither the previous file nor the complete new one (%d bytes)", i, wait, path, len(g))
					}
				}
				for path, g := range got {
					if _, ok := oldMasked[path]; ok {
						continue
					}
					if want, ok := newMasked[path]; !ok {
						t.Errorf("kill %d after %v: %s appeared, which no complete run writes", i, wait, path)
					} else if !bytes.Equal(g, want) {
						t.Errorf("kill %d after %v: %s is not complete", i, wait, path)
					}
				}
				for _, p := range temps {
					if !tempName.MatchString(filepath.Base(p)) {
						t.Errorf("kill %d after %v: %s left behind is not named as a temporary file (.<name>.tmp<digits>)", i, wait, p)
					}
				}
				switch {
				case replaced == 0:
					outcomes[0]++
				case kept == 0:
					outcomes[1]++
				default:
					outcomes[2]++
				}
				if t.Failed() {
					t.FailNow()
				}
			}
			_, temps := files(t, c.dirs)
			t.Logf("%s: %d kills left every output as it was, %d every output replaced, %d some of each; %d temporary files left behind",
				c.name, outcomes[0], outcomes[1], outcomes[2], len(temps))
			// The temporary files are no outputs to any reader: a full run
			// over them writes the complete outputs, and reads no one of them.
			restore(t, c.dirs, old)
			if code, _, stderr := gateRun(t, c.bin, c.args...); code != fullCode {
				t.Fatalf("a full run over the temporary files: exit %d, %d without them\n%s", code, fullCode, stderr)
			} else if strings.Contains(stderr, ".tmp") {
				t.Errorf("a reader named a temporary file:\n%s", stderr)
			}
			got, _ := files(t, c.dirs)
			for path, want := range newMasked {
				if !bytes.Equal(got[path], want) {
					t.Errorf("after a full run over the temporary files, %s differs from the complete output", path)
				}
			}
		})
	}
}
