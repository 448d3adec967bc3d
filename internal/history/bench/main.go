// Command bench times the history command end to end (read the summaries,
// look for change points in the newest 100 experiments of every series, draw
// every plot, write history.csv) over generated experiments: by default
// 40 and 1,000 experiments of the ten built-in sub-experiments and eleven
// payloads. It prints one line per size with the wall time, and exits 1
// when a size misses its target (2 s for 40 experiments, 10 s for 1,000)
// with -strict.
//
//	go run ./internal/history/bench [-n 40,1000] [-format png] [-html] [-keep DIR] [-strict]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mqgate/mqgate/internal/history"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/synth"
)

// targets are the wall-time budgets of the issue, by experiment count.
var targets = map[int]time.Duration{40: 2 * time.Second, 1000: 10 * time.Second}

func main() {
	sizes := flag.String("n", "40,1000", "comma-separated experiment counts")
	format := flag.String("format", "png", "plot format: png or svg")
	html := flag.Bool("html", false, "also write the HTML report")
	keep := flag.String("keep", "", "write into this directory and keep it (default: a temporary directory, removed)")
	strict := flag.Bool("strict", false, "exit 1 when a size misses its target")
	seed := flag.Uint64("seed", 1, "generator seed")
	flag.Parse()
	if err := run(*sizes, *format, *html, *keep, *strict, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(sizes, format string, html bool, keep string, strict bool, seed uint64) error {
	f, err := plots.ParseFormat(format)
	if err != nil {
		return err
	}
	root := keep
	if root == "" {
		if root, err = os.MkdirTemp("", "history-bench"); err != nil {
			return err
		}
		defer os.RemoveAll(root)
	}
	fmt.Printf("history bench: GOMAXPROCS=%d, format %s\n", runtime.GOMAXPROCS(0), f)
	missed := false
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			return fmt.Errorf("-n: %q is not a positive count", s)
		}
		dir := filepath.Join(root, strconv.Itoa(n))
		exps := filepath.Join(dir, "experiments")
		opt := synth.GenerateOptions{Seed: seed, Meta: true}
		t0 := time.Now()
		if _, err := synth.Generate(exps, n, opt); err != nil {
			return err
		}
		reqs := filepath.Join(dir, "latency_requirements.csv")
		if err := history.GenerateRequirements(reqs, opt); err != nil {
			return err
		}
		gen := time.Since(t0)
		cfg := history.Options{Experiments: exps, Requirements: reqs, PlotsDir: filepath.Join(dir, "plots"), Format: f}
		if html {
			cfg.HTML = filepath.Join(dir, "history.html")
		}
		t1, c1 := time.Now(), cpuTime()
		res, err := history.Plot(context.Background(), cfg)
		if err != nil {
			return err
		}
		wall, cpu := time.Since(t1), cpuTime()-c1
		verdict := ""
		if target, ok := targets[n]; ok {
			verdict = fmt.Sprintf("  target %v: ok", target)
			if wall > target {
				verdict = fmt.Sprintf("  target %v: MISSED", target)
				missed = true
			}
		}
		series, _ := res.History.ChangeSummary()
		fmt.Printf("%5d experiments × %d sub-experiments: %d plots, %d values, %d change points in %d series: wall %.3f s (change points %.3f s), CPU %.3f s (generate %.3f s)%s\n",
			n, len(res.History.SubExperiments), res.Plots, len(res.History.Records()), len(res.History.Changes()), series,
			wall.Seconds(), res.ChangeTime.Seconds(), cpu.Seconds(), gen.Seconds(), verdict)
	}
	if missed && strict {
		return fmt.Errorf("a target was missed")
	}
	return nil
}

// cpuTime is the user and system CPU time the process has used so far. Next
// to the wall time it shows how much of a slow run was waiting for a CPU on
// a loaded machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
