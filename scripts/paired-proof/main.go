// Command paired-proof measures on this machine what the paired gates do
// (issue: a gate that decides): the sequential gate of `run ab --max-runs`
// (package stats/seq) and the fixed design of package stats/paired, on real
// interleaved runs of an unchanged system, of the same system 10 % slower
// (run --echo-delay of 10 % of each sub-experiment's median round trip,
// measured by a pilot run) and of an unchanged system whose two sides drift
// together (an echo delay ramping over the series on both sides).
//
// Real runs are expensive, so it collects a pool of real pairs per case once
// (run ab for the unchanged and slower cases, seeded random order within
// each pair; the drift case's runs in the same design, each with its own
// delay) and then resamples whole pairs with replacement: every sequence
// of the sequential gate and every fixed-N comparison is drawn from the
// pool, which keeps the dependence between checks and the within-pair
// drift but not the pairs' order. It prints false-fail, pass and fail rates
// with 95 % Clopper–Pearson intervals, the stopping mode's average and
// largest number of pairs beside the fixed design's planned N, and then
// runs a few real end-to-end sequential gates (run ab --max-runs).
//
//	go run ./scripts/paired-proof -out /tmp/proof
//	go run ./scripts/paired-proof -out /tmp/proof -pool /tmp/proof   # reuse the pools, analyse again
package main

import (
	"cmp"
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats/dist"
	"github.com/mqgate/mqgate/internal/stats/paired"
	"github.com/mqgate/mqgate/internal/stats/seq"
)

type options struct {
	bin, out, pool           string
	subs                     []string
	payloads                 string
	samples, warmup, pairs   int
	resamples, fixedSamples  int
	maxRuns, gates           int
	level, passM, failM, reg float64
	drift                    float64
	seed                     uint64
	runFlags                 []string
}

func main() {
	var o options
	var subs string
	flag.StringVar(&o.bin, "bin", "", "directory of the built tools (default: built into a temporary directory)")
	flag.StringVar(&o.out, "out", "paired-proof-"+time.Now().UTC().Format("2006-01-02_15-04-05"), "output directory")
	flag.StringVar(&o.pool, "pool", "", "reuse the pools under this earlier -out instead of measuring them")
	flag.StringVar(&subs, "subexperiments", "intraprocess_reliable,interprocess_reliable_tcp", "sub-experiments")
	flag.StringVar(&o.payloads, "payloads", "16..16384", "payloads (11 by default)")
	flag.IntVar(&o.samples, "samples", 2000, "samples per payload and run")
	flag.IntVar(&o.warmup, "warmup", 200, "warm-up samples")
	flag.IntVar(&o.pairs, "pairs", 40, "real pairs in each pool")
	flag.IntVar(&o.resamples, "resamples", 2000, "sequential gates simulated per case")
	flag.IntVar(&o.fixedSamples, "fixed-resamples", 300, "fixed-N comparisons simulated per case")
	flag.IntVar(&o.maxRuns, "max-runs", 40, "budget of the sequential gate, in pairs")
	flag.IntVar(&o.gates, "gates", 2, "real end-to-end sequential gates per case (unchanged, slower)")
	flag.Float64Var(&o.level, "level", 0.01, "family-wise level")
	flag.Float64Var(&o.passM, "pass-margin", paired.DefaultMargins.Pass, "pass margin")
	flag.Float64Var(&o.failM, "fail-margin", paired.DefaultMargins.Fail, "fail margin")
	flag.Float64Var(&o.reg, "regression", 0.10, "the slower case's echo delay, as a fraction of the median round trip")
	flag.Float64Var(&o.drift, "drift", 0.20, "the drift case's echo delay at the end of the series, as a fraction of the median round trip")
	flag.Uint64Var(&o.seed, "seed", 1, "seed of the run orders and the resampling")
	var extra string
	flag.StringVar(&extra, "run-flags", "", "more flags for every run, space-separated (e.g. \"--cpus 0,1\" to pin the pinger and the echoer)")
	flag.Parse()
	o.runFlags = strings.Fields(extra)
	o.subs = strings.Split(subs, ",")
	if err := run(context.Background(), o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "paired-proof:", err)
		os.Exit(1)
	}
}

// pair is one real pair: per check, the reference's and the candidate's
// value.
type pair struct{ a, b []float64 }

// run builds the tools unless o.bin holds them, measures the pools (or
// reads those of o.pool), resamples them through the sequential gate and
// the fixed design, prints the rates to w, and runs o.gates real
// end-to-end sequential gates per case.
func run(ctx context.Context, o options, w io.Writer) error {
	if o.bin == "" {
		dir, err := buildTools(ctx)
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		o.bin = dir
	}
	if err := os.MkdirAll(o.out, 0o777); err != nil {
		return err
	}
	delays, specs, pools, err := preparePools(ctx, o, w)
	if err != nil {
		return err
	}
	// Resampling makes the pool's own mean ratios the truth of the
	// resampled world; the null cases are also shown centred (every
	// check's mean log ratio moved to 0, as paired.PlanUnits does), which
	// measures the level on the real shape of the noise.
	names := []string{"unchanged", "unchanged centred", "slower", "drift", "drift centred"}
	pools["unchanged centred"] = centred(pools["unchanged"])
	pools["drift centred"] = centred(pools["drift"])
	cfg := seq.Config{Level: o.level, Margins: paired.Margins{Pass: o.passM, Fail: o.failM}, MaxPairs: o.maxRuns, Horizon: min(o.maxRuns, 30)}
	rng := rand.New(rand.NewPCG(o.seed, 99))
	if err := sequentialRates(w, o, cfg, specs, pools, names, rng); err != nil {
		return err
	}
	if err := fixedRates(w, o, cfg.Margins, specs, pools, names, rng); err != nil {
		return err
	}
	if o.gates > 0 {
		fmt.Fprintf(w, "\nreal end-to-end sequential gates (bin/run ab --max-runs %d, both sub-experiments in each run; the slower side's echo delay is 10 %% of the slowest sub-experiment's median round trip, more for the others):\n", o.maxRuns)
		return e2eGates(ctx, o, delays, w)
	}
	return nil
}

// buildTools builds run and process into a new temporary directory and
// returns it; the caller removes it.
func buildTools(ctx context.Context) (string, error) {
	dir, err := os.MkdirTemp("", "paired-proof-bin")
	if err != nil {
		return "", err
	}
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", dir+"/", "./cmd/run", "./cmd/process").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return dir, nil
}

// preparePools measures the pilot runs and the pools of real pairs, or
// reads them from the earlier output o.pool, and prints what they hold. It
// returns the slower case's echo delays per sub-experiment, the checks,
// and the pools by case.
func preparePools(ctx context.Context, o options, w io.Writer) ([]time.Duration, []seq.Spec, map[string][]pair, error) {
	started := time.Now()
	pool := o.pool
	delays, err := pilotDelays(ctx, o, cmp.Or(pool, o.out))
	if err != nil {
		return nil, nil, nil, err
	}
	fmt.Fprintf(w, "paired-proof: %s, payloads %s, %d samples%s; pilot median round trips give echo delays (10 %%) %s\n",
		strings.Join(o.subs, ","), o.payloads, o.samples, flagsText(o.runFlags), delayText(o.subs, delays))
	if pool == "" {
		pool = o.out
		if err := measurePools(ctx, o, pool, delays); err != nil {
			return nil, nil, nil, err
		}
	}
	specs, pools, err := loadPools(ctx, o, pool)
	if err != nil {
		return nil, nil, nil, err
	}
	fmt.Fprintf(w, "pools of real interleaved pairs (seeded random order within each pair) in %s: %d checks (sub-experiment × payload × Median);\n", pool, len(specs))
	for _, c := range cases {
		fmt.Fprintf(w, "  %-10s %3d pairs: %s\n", c.name, len(pools[c.name]), c.what)
	}
	fmt.Fprintf(w, "measuring took %s; what follows resamples whole pairs of these pools with replacement (not new runs)\n\n", time.Since(started).Round(time.Second))
	return delays, specs, pools, nil
}

// sequentialRates runs the sequential gate cfg on o.resamples sequences of
// pairs drawn with rng from the pool of each case of names, and prints how
// often it fails, passes and spends its budget, and the pairs it takes.
func sequentialRates(w io.Writer, o options, cfg seq.Config, specs []seq.Spec, pools map[string][]pair, names []string, rng *rand.Rand) error {
	fmt.Fprintf(w, "sequential gate (run ab --max-runs %d): level %g, pass margin %g %%, fail margin %g %%, %d sequences per case\n",
		o.maxRuns, o.level, 100*o.passM, 100*o.failM, o.resamples)
	fmt.Fprintf(w, "  %-18s %-28s %-28s %-28s %s\n", "case", "failed", "passed", "inconclusive", "pairs mean / max")
	for _, name := range names {
		counts := map[seq.Status]int{}
		total, most := 0, 0
		for range o.resamples {
			g, err := seq.New(specs, cfg)
			if err != nil {
				return err
			}
			var d seq.Decision
			for d.Status == seq.Continue {
				p := pools[name][rng.IntN(len(pools[name]))]
				if d, err = g.Add(p.a, p.b); err != nil {
					return err
				}
			}
			counts[d.Status]++
			total += d.Pairs
			most = max(most, d.Pairs)
		}
		fmt.Fprintf(w, "  %-18s %-28s %-28s %-28s %.1f / %d\n", name, rate(counts[seq.Fail], o.resamples),
			rate(counts[seq.Pass], o.resamples), rate(counts[seq.Spent], o.resamples), float64(total)/float64(o.resamples), most)
	}
	return nil
}

// fixedRates plans the fixed design's N from the unchanged pool (or takes
// o.maxRuns when no N reaches its power), compares o.fixedSamples draws of
// N pairs with rng from the pool of each case of names, and prints how
// often it fails, passes and is inconclusive.
func fixedRates(w io.Writer, o options, margins paired.Margins, specs []seq.Spec, pools map[string][]pair, names []string, rng *rand.Rand) error {
	aa := checksOf(specs, pools["unchanged"])
	pc := paired.PlanConfig{Config: paired.Config{Tail: o.level, Margins: margins, Seed: o.seed}, Regression: o.reg, Resamples: 200}
	plan, err := paired.PlanUnits(aa, paired.Pairs, pc)
	if err != nil {
		return err
	}
	n := plan.Units
	fmt.Fprintf(w, "\nfixed design (stats/paired: sign-flip max-T bounds, same level and margins): planned N from the unchanged pool = %d pairs (safe %d)",
		plan.Units, plan.Safe)
	if n == 0 {
		n = o.maxRuns
		fmt.Fprintf(w, "; no N up to %d reaches 95 %% pass and fail, so N = %d is simulated", 200, n)
	}
	fmt.Fprintf(w, "; %d comparisons per case\n", o.fixedSamples)
	fmt.Fprintf(w, "  %-18s %-28s %-28s %-28s\n", "case", "failed", "passed", "inconclusive")
	for _, name := range names {
		counts := map[paired.Zone]int{}
		for r := range o.fixedSamples {
			drawn := make([]pair, n)
			for i := range drawn {
				drawn[i] = pools[name][rng.IntN(len(pools[name]))]
			}
			an, err := paired.Analyze(checksOf(specs, drawn), paired.Pairs, paired.Config{Tail: o.level, Margins: margins, Flips: 1000, Seed: uint64(r)})
			if err != nil {
				return err
			}
			counts[an.Verdict.Zone]++
		}
		fmt.Fprintf(w, "  %-18s %-28s %-28s %-28s\n", name, rate(counts[paired.Fail], o.fixedSamples),
			rate(counts[paired.Pass], o.fixedSamples), rate(counts[paired.Inconclusive], o.fixedSamples))
	}
	return nil
}

// cases are the pools: what each holds.
var cases = []struct{ name, what string }{
	{"unchanged", "reference and candidate the same system"},
	{"slower", "candidate with an echo delay of 10 % of the median round trip (per sub-experiment)"},
	{"drift", "the same system on both sides, an echo delay ramping from 0 to the -drift share of the round trip over the series"},
}

// abCases are the cases measured by run ab: the unchanged one, and the
// slower one with the candidate's echo delayed by delay.
func abCases(delay time.Duration) []struct{ name, ref, cand string } {
	return []struct{ name, ref, cand string }{
		{"unchanged", "--echo-delay 0s", ""},
		{"slower", "", "--echo-delay " + delay.String()},
	}
}

// rate writes k of n as a percentage with its 95 % Clopper–Pearson
// interval.
func rate(k, n int) string {
	lo, hi := dist.ClopperPearson(k, n, 0.05)
	return fmt.Sprintf("%5.1f %% [%.1f, %.1f]", 100*float64(k)/float64(n), 100*lo, 100*hi)
}

func delayText(subs []string, d []time.Duration) string {
	var parts []string
	for i, s := range subs {
		parts = append(parts, fmt.Sprintf("%s %s", s, d[i]))
	}
	return strings.Join(parts, ", ")
}

// tool runs one of the built tools, failing with its output.
func tool(ctx context.Context, o options, name string, args ...string) error {
	if out, err := exec.CommandContext(ctx, filepath.Join(o.bin, name), args...).CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

// flagsText names the extra run flags in the heading, if any.
func flagsText(flags []string) string {
	if len(flags) == 0 {
		return ""
	}
	return ", run " + strings.Join(flags, " ")
}

func runFlags(o options, sub string) []string {
	return append([]string{"-q", "-s", sub, "--payloads", o.payloads, "--samples", strconv.Itoa(o.samples), "--warmup", strconv.Itoa(o.warmup)}, o.runFlags...)
}

// pilotDelays measures one run per sub-experiment (or reads it from an
// earlier output) and returns the echo delay of the slower case per
// sub-experiment: o.reg of the median round trip (twice the median half
// round trip over the payloads).
func pilotDelays(ctx context.Context, o options, root string) ([]time.Duration, error) {
	var out []time.Duration
	for _, sub := range o.subs {
		dir := filepath.Join(root, "pilot", sub)
		if _, err := os.Stat(filepath.Join(dir, "meta.json")); err != nil {
			args := append(runFlags(o, sub), "--out", filepath.Join(root, "pilot"), "--name", sub)
			if err := tool(ctx, o, "run", args...); err != nil {
				return nil, err
			}
			if err := tool(ctx, o, "process", "--no-plots", "-q", dir); err != nil {
				return nil, err
			}
		}
		e, err := experiment.Load(dir)
		if err != nil {
			return nil, err
		}
		t := e.Summary(sub)
		if t == nil {
			return nil, fmt.Errorf("%s: no summary of %s", dir, sub)
		}
		var med []float64
		for _, r := range t.Rows {
			med = append(med, r.Median)
		}
		slices.Sort(med)
		rtt := 2 * med[len(med)/2] // µs
		out = append(out, time.Duration(o.reg*rtt*1000)*time.Nanosecond)
	}
	return out, nil
}

// measurePools runs the pools: per case and sub-experiment, o.pairs
// interleaved pairs with seeded random order, each run summarised.
func measurePools(ctx context.Context, o options, root string, delays []time.Duration) error {
	for i, sub := range o.subs {
		for _, c := range abCases(delays[i]) {
			out := filepath.Join(root, "pool", c.name, sub)
			args := []string{"ab", "--runs", strconv.Itoa(o.pairs), "--seed", strconv.FormatUint(o.seed, 10), "--out", out, "--name", "p",
				"--reference", c.ref, "--candidate", c.cand, "--"}
			if err := tool(ctx, o, "run", append(args, runFlags(o, sub)...)...); err != nil {
				return err
			}
		}
		if err := driftPool(ctx, o, filepath.Join(root, "pool", "drift", sub), sub, delays[i]); err != nil {
			return err
		}
		for _, c := range cases {
			dirs, _ := filepath.Glob(filepath.Join(root, "pool", c.name, sub, "*", "p-*"))
			for _, d := range dirs {
				if err := tool(ctx, o, "process", "--no-plots", "-q", d); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// driftPool runs the drift case: the same system on both sides, pairs in
// seeded random order, run k of the series (from 0) with an echo delay of
// k/(2·pairs−1) of the drift's end value, which is o.drift/o.reg times
// the slower case's delay. Its series file records the order and delays.
func driftPool(ctx context.Context, o options, out, sub string, reg time.Duration) error {
	end := float64(reg) * o.drift / o.reg
	coin := rand.New(rand.NewPCG(o.seed, 7))
	if err := os.MkdirAll(out, 0o777); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(out, "p-series.csv"))
	if err != nil {
		return err
	}
	defer f.Close()
	cw := csv.NewWriter(f)
	cw.Write([]string{"Unit", "Position", "Side", "Run", "Experiment", "Start", "EchoDelay"})
	k := 0
	for i := 1; i <= o.pairs; i++ {
		sides := []string{"reference", "candidate"}
		if coin.IntN(2) == 1 {
			sides[0], sides[1] = sides[1], sides[0]
		}
		for _, side := range sides {
			delay := time.Duration(end * float64(k) / float64(2*o.pairs-1))
			name := fmt.Sprintf("p-%02d", i)
			cw.Write([]string{strconv.Itoa(i), strconv.Itoa(k + 1), side, strconv.Itoa(i), side + "/" + name, time.Now().UTC().Format(time.RFC3339Nano), delay.String()})
			args := append(runFlags(o, sub), "--echo-delay", delay.String(), "--out", filepath.Join(out, side), "--name", name)
			if err := tool(ctx, o, "run", args...); err != nil {
				return err
			}
			k++
		}
	}
	cw.Flush()
	return cw.Error()
}

// loadPools reads every pool: pair i of a case joins pair i of every
// sub-experiment's pool.
func loadPools(ctx context.Context, o options, root string) ([]seq.Spec, map[string][]pair, error) {
	pools := map[string][]pair{}
	var specs []seq.Spec
	for ci, c := range cases {
		for si, sub := range o.subs {
			var sides [2][]*experiment.Experiment
			for k, side := range []string{"reference", "candidate"} {
				dirs, _ := filepath.Glob(filepath.Join(root, "pool", c.name, sub, side, "p-*"))
				sort.Slice(dirs, func(i, j int) bool { return experiment.NaturalLess(dirs[i], dirs[j]) })
				exps, err := experiment.LoadDirs(ctx, dirs)
				if err != nil {
					return nil, nil, err
				}
				sides[k] = exps
			}
			if len(sides[0]) != len(sides[1]) || len(sides[0]) == 0 {
				return nil, nil, fmt.Errorf("%s %s: %d reference and %d candidate runs", c.name, sub, len(sides[0]), len(sides[1]))
			}
			if si == 0 {
				pools[c.name] = make([]pair, len(sides[0]))
			}
			if len(sides[0]) != len(pools[c.name]) {
				return nil, nil, fmt.Errorf("%s: sub-experiments have different numbers of pairs", c.name)
			}
			for i := range sides[0] {
				ra, rb := sides[0][i].Summary(sub), sides[1][i].Summary(sub)
				if ra == nil || rb == nil || len(ra.Rows) != len(rb.Rows) {
					return nil, nil, fmt.Errorf("%s %s pair %d: summaries missing or of different payloads", c.name, sub, i+1)
				}
				for r := range ra.Rows {
					p := &pools[c.name][i]
					p.a = append(p.a, ra.Rows[r].Median)
					p.b = append(p.b, rb.Rows[r].Median)
					if ci == 0 && i == 0 {
						specs = append(specs, seq.Spec{Name: fmt.Sprintf("%s %d B %s", sub, ra.Rows[r].Bytes, result.Median.Name)})
					}
				}
			}
		}
	}
	return specs, pools, nil
}

// centred returns the pairs with every check's candidate values scaled so
// that its mean log ratio over the pool is 0.
func centred(pairs []pair) []pair {
	k := len(pairs[0].a)
	shift := make([]float64, k)
	for _, p := range pairs {
		for j := range k {
			shift[j] += math.Log(p.b[j]/p.a[j]) / float64(len(pairs))
		}
	}
	out := make([]pair, len(pairs))
	for i, p := range pairs {
		out[i] = pair{a: p.a, b: make([]float64, k)}
		for j := range k {
			out[i].b[j] = p.b[j] * math.Exp(-shift[j])
		}
	}
	return out
}

// checksOf turns pairs into the fixed design's checks.
func checksOf(specs []seq.Spec, pairs []pair) []paired.Check {
	out := make([]paired.Check, len(specs))
	for k, s := range specs {
		out[k].Name = s.Name
		for _, p := range pairs {
			out[k].A = append(out[k].A, p.a[k])
			out[k].B = append(out[k].B, p.b[k])
		}
	}
	return out
}

// e2eGates runs o.gates real sequential gates of each of the unchanged
// and slower cases and prints each one's verdict and pairs.
func e2eGates(ctx context.Context, o options, delays []time.Duration, w io.Writer) error {
	slow := slices.Max(delays)
	for _, c := range abCases(slow) {
		for g := 1; g <= o.gates; g++ {
			out := filepath.Join(o.out, "e2e", fmt.Sprintf("%s-%d", c.name, g))
			// Whole runs in pairs drawn A B or B A, as the pools are
			// measured (the default with --max-runs interleaves blocks of
			// round trips within one run per side instead).
			args := []string{"ab", "--max-runs", strconv.Itoa(o.maxRuns), "--design", "random", "--seed", strconv.FormatUint(o.seed+uint64(g), 10), "--out", out, "--name", "g",
				"--reference", c.ref, "--candidate", c.cand, "--level", strconv.FormatFloat(o.level, 'g', -1, 64),
				"--pass-margin", strconv.FormatFloat(o.passM, 'g', -1, 64), "--fail-margin", strconv.FormatFloat(o.failM, 'g', -1, 64),
				"--json", filepath.Join(out, "verdict.json"), "--"}
			args = append(args, runFlags(o, strings.Join(o.subs, ","))...)
			start := time.Now()
			cmd := exec.CommandContext(ctx, filepath.Join(o.bin, "run"), args...)
			var errb strings.Builder
			cmd.Stderr = &errb
			outb, err := cmd.Output()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				return err
			}
			last := ""
			for _, l := range strings.Split(strings.TrimSpace(string(outb)), "\n") {
				if strings.HasPrefix(l, "run ab: ") {
					last = l
					break
				}
			}
			if len(last) > 160 {
				last = last[:160] + "…"
			}
			fmt.Fprintf(w, "  %-10s gate %d: exit %d in %s: %s\n", c.name, g, code, time.Since(start).Round(time.Second), last)
			if code == 2 {
				return fmt.Errorf("run ab: exit 2:\n%s%s", outb, errb.String())
			}
		}
	}
	return nil
}
