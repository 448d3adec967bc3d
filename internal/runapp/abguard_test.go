package runapp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/pairing"
)

// TestABReportsNotRegular: a report path that is not a regular file (a
// symbolic link, as /dev/stdout is, a named pipe, a device such as
// /dev/null) is refused before the first run, and left as it was: the
// report, written beside it and renamed over it, put a regular file in
// its place (run as root, --json /dev/null replaced the machine's
// /dev/null).
func TestABReportsNotRegular(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.md")
	if err := os.WriteFile(target, []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link, fifo := filepath.Join(dir, "link.md"), filepath.Join(dir, "fifo.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	for _, c := range []struct {
		flag, path, want string
	}{
		{"markdown", link, "is a symbolic link to " + target},
		{"json", fifo, "is a named pipe"},
	} {
		f := &fakeSeries{ratio: 1, spread: 0.02, rng: rand.New(rand.NewPCG(1, 2))}
		cfg := f.config(t, 2)
		cfg.Reports = map[string]string{c.flag: c.path}
		err := AB(context.Background(), cfg, io.Discard, io.Discard)
		if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "--"+c.flag+": cannot write "+c.path+": it "+c.want) || len(f.runs) > 0 {
			t.Errorf("--%s %s: exit %d, %v, %d runs; want 2 and %q before any run", c.flag, c.path, exit.Code(err), err, len(f.runs), c.want)
		}
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("%s is no longer a symbolic link: %v", link, err)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("%s is no longer a named pipe: %v", fifo, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "kept\n" {
		t.Errorf("%s: %q", target, b)
	}
}

// TestABReportsGuarded: the sequential gate's report files are refused
// before the first run, with exit 2 naming the flag and the file, when
// they would replace a file of the series (a run's meta.json, the series
// file), another series' file, a summary of an existing experiment or
// another report, or cannot be written at all; nothing is run or written.
func TestABReportsGuarded(t *testing.T) {
	for _, c := range []struct {
		name    string
		reports func(out, old string) map[string]string
		want    string
	}{
		{"a run's meta.json", func(out, _ string) map[string]string {
			return map[string]string{"json": filepath.Join(out, SideReference, "s-01", meta.FileName)}
		}, "the experiment folder of reference run 1 of this series"},
		{"the series file", func(out, _ string) map[string]string {
			return map[string]string{"markdown": filepath.Join(out, "s"+SeriesSuffix)}
		}, "are the same file"},
		{"another series' file", func(_, old string) map[string]string {
			return map[string]string{"junit": filepath.Join(old, "old"+SeriesSuffix)}
		}, "is a series file of run ab"},
		// An earlier interleaved gate's rounds file in the same --out was
		// replaced by the report.
		{"another gate's rounds file", func(_, old string) map[string]string {
			return map[string]string{"json": filepath.Join(old, "old"+RoundsSuffix)}
		}, "is a rounds file of run ab"},
		{"a summary of an experiment", func(_, old string) map[string]string {
			return map[string]string{"json": filepath.Join(old, "x-01", "measurements_fake_summary.csv")}
		}, "where it is a summary"},
		{"two reports on one path", func(out, _ string) map[string]string {
			return map[string]string{"json": filepath.Join(out, "v"), "markdown": filepath.Join(out, "v")}
		}, "are the same file"},
		{"a folder where nothing can be written", func(string, string) map[string]string {
			return map[string]string{"json": "/proc/self/verdict.json"}
		}, "cannot write /proc/self/verdict.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			old := t.TempDir()
			keep := map[string]string{filepath.Join(old, "old"+SeriesSuffix): "Unit,Position,Side,Run,Experiment,Start,Design,Seed\n",
				filepath.Join(old, "old"+RoundsSuffix):                      "Round,Sub-experiment,Payload,Reference first,Column,Reference,Candidate,Unit\n",
				filepath.Join(old, "x-01", meta.FileName):                   `{"start": "2026-11-27T13:03:07Z", "completed": true}`,
				filepath.Join(old, "x-01", "measurements_fake_summary.csv"): "Bytes,Samples\n"}
			for p, text := range keep {
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			f := &fakeSeries{ratio: 1, spread: 0.02, rng: rand.New(rand.NewPCG(1, 2))}
			cfg := f.config(t, 10)
			cfg.Reports = c.reports(cfg.Out, old)
			var flags []string
			for flag := range cfg.Reports {
				flags = append(flags, "--"+flag)
			}
			err := AB(context.Background(), cfg, io.Discard, io.Discard)
			if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), c.want) || !containsAny(err.Error(), flags) {
				t.Errorf("exit %d, %v; want 2 naming %v and %q", exit.Code(err), err, flags, c.want)
			}
			if len(f.runs) > 0 {
				t.Errorf("runs made before the refusal: %v", f.runs)
			}
			if entries, _ := os.ReadDir(cfg.Out); len(entries) > 0 {
				t.Errorf("%s holds %v", cfg.Out, entries)
			}
			for p, text := range keep {
				if b, err := os.ReadFile(p); err != nil || string(b) != text {
					t.Errorf("%s changed: %q, %v", p, b, err)
				}
			}
		})
	}
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// TestABConcurrentSeries: two run ab given the same --out and --name at
// once both pass the checks (a barrier holds each until the other has
// checked its flags); only one makes the series, the other exits 2 naming
// the series file before its first run.
func TestABConcurrentSeries(t *testing.T) {
	out := t.TempDir()
	var checked sync.WaitGroup
	checked.Add(2)
	fakes := []*fakeSeries{{ratio: 1, spread: 0.02, rng: rand.New(rand.NewPCG(1, 2))}, {ratio: 1.3, spread: 0.02, rng: rand.New(rand.NewPCG(3, 4))}}
	errs := make([]error, 2)
	var done sync.WaitGroup
	for i, f := range fakes {
		cfg := f.config(t, 0)
		cfg.Out, cfg.MaxRuns, cfg.Runs = out, 0, 3
		var once sync.Once
		cfg.Check = func([]string) (Config, error) {
			once.Do(func() { checked.Done(); checked.Wait() })
			return Config{}, nil
		}
		done.Add(1)
		go func() {
			defer done.Done()
			errs[i] = AB(context.Background(), cfg, io.Discard, io.Discard)
		}()
	}
	done.Wait()
	series := filepath.Join(out, "s"+SeriesSuffix)
	win, lose := 0, 1
	if errs[0] != nil {
		win, lose = 1, 0
	}
	// The loser stops at abPlan's check of the series file or, when both
	// passed it together, at claiming the file; or, when the winner's
	// first run folder came first, at abPlan's check of the run folders.
	lost := errs[lose] != nil && (strings.Contains(errs[lose].Error(), "series file "+series) ||
		strings.Contains(errs[lose].Error(), filepath.Join(out, SideReference, "s-01")+" exists already") ||
		strings.Contains(errs[lose].Error(), filepath.Join(out, SideCandidate, "s-01")+" exists already"))
	if errs[win] != nil || exit.Code(errs[lose]) != exit.Usage || !lost {
		t.Fatalf("exits %d (%v) and %d (%v); want one 0 and one 2 naming %s or the winner's first run", exit.Code(errs[0]), errs[0], exit.Code(errs[1]), errs[1], series)
	}
	if len(fakes[lose].runs) != 0 || len(fakes[win].runs) != 6 {
		t.Errorf("runs made: %d by the series that lost, %d by the one that won (want 0 and 6)", len(fakes[lose].runs), len(fakes[win].runs))
	}
	if rows := readSeries(t, series); len(rows) != 6 {
		t.Errorf("series file lists %d runs, want 6", len(rows))
	}
}

// TestABLatencyMixed: sides measured with different --latency are refused
// (exit 2) by the rule compare applies, after the first pair, instead of
// being gated.
func TestABLatencyMixed(t *testing.T) {
	f := &fakeSeries{ratio: 1, spread: 0.02, rng: rand.New(rand.NewPCG(1, 2)),
		latency: map[string]string{SideReference: meta.LatencyHalfRTT, SideCandidate: meta.LatencyRTT}}
	cfg := f.config(t, 50)
	var stdout bytes.Buffer
	err := AB(context.Background(), cfg, &stdout, io.Discard)
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "the experiments measure latency differently") ||
		!strings.Contains(err.Error(), "rtt (the whole round trip): "+filepath.Join(cfg.Out, SideCandidate, "s-01")) {
		t.Errorf("exit %d, %v\n%s; want 2, latency differs", exit.Code(err), err, stdout.String())
	}
	if len(f.runs) != 2 {
		t.Errorf("%d runs; want the first pair's only", len(f.runs))
	}
}

// TestABMissingSubexperiment: a sub-experiment the reference measures and
// the candidate does not is missing from the results, as compare reports
// it, and fails the gate (exit 1) after the first pair.
func TestABMissingSubexperiment(t *testing.T) {
	f := &fakeSeries{ratio: 1, spread: 0.02, rng: rand.New(rand.NewPCG(1, 2)), extra: "gone"}
	cfg := f.config(t, 50)
	cfg.Reports = map[string]string{"json": filepath.Join(t.TempDir(), "v.json")}
	var stdout bytes.Buffer
	err := AB(context.Background(), cfg, &stdout, io.Discard)
	if exit.Code(err) != exit.GateFailed || !strings.Contains(stdout.String(), "run ab: FAILED after 1 pair ") ||
		!strings.Contains(stdout.String(), "gone measured by the reference but not by the candidate: 2 checks missing from the results") {
		t.Fatalf("exit %d, %v\n%s; want 1, gone missing", exit.Code(err), err, stdout.String())
	}
	var v struct {
		Status  string `json:"status"`
		Missing int    `json:"missing"`
	}
	b, err := os.ReadFile(cfg.Reports["json"])
	if err == nil {
		err = json.Unmarshal(b, &v)
	}
	if err != nil || v.Status != "failed" || v.Missing != 2 || !strings.Contains(string(b), "missing from the results (measurements_gone_summary.csv)") {
		t.Errorf("JSON report: %v, status %q, %d missing\n%.2000s", err, v.Status, v.Missing, b)
	}
	if len(f.runs) != 2 {
		t.Errorf("%d runs; want the first pair's only", len(f.runs))
	}
}

// TestABInterruptedSeries: a series interrupted during the second run of
// its third pair lists that pair's two runs; the pair is read as
// incomplete (its last run's meta.json says it was interrupted) and left
// out, and the two complete pairs are compared.
func TestABInterruptedSeries(t *testing.T) {
	f := &fakeSeries{ratio: 1, spread: 0.02, rng: rand.New(rand.NewPCG(1, 2)), interruptAt: 6}
	cfg := f.config(t, 0)
	cfg.MaxRuns, cfg.Runs = 0, 4
	err := AB(context.Background(), cfg, io.Discard, io.Discard)
	if exit.Code(err) != exit.Interrupted || !strings.Contains(err.Error(), "ab stopped at run 6 of 8") {
		t.Fatalf("exit %d, %v; want 130 at run 6", exit.Code(err), err)
	}
	s, err := pairing.ReadSeries(filepath.Join(cfg.Out, "s"+SeriesSuffix))
	if err != nil {
		t.Fatal(err)
	}
	var sides [2][]*experiment.Experiment
	for i, side := range []string{SideReference, SideCandidate} {
		for n := 1; n <= 3; n++ {
			e, err := experiment.Load(filepath.Join(cfg.Out, side, "s-0"+string(rune('0'+n))))
			if err != nil {
				t.Fatal(err)
			}
			sides[i] = append(sides[i], e)
		}
	}
	pairs, warnings, err := s.Pairs(sides[0], sides[1])
	if err != nil || len(pairs) != 2 || s.Units != 2 || len(warnings) != 1 || !strings.Contains(warnings[0], "did not complete (meta.json says the run was interrupted): the series stopped during it; left out:") {
		t.Errorf("%d pairs, %d units, %q, %v; want the 2 complete pairs and the third left out", len(pairs), s.Units, warnings, err)
	}
}
