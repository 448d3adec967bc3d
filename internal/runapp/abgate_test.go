package runapp

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/pairing"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats/paired"
)

// fakeSeries is an A/B series whose runs write a summary at once: two
// payloads of sub-experiment "fake", medians of 100 µs (reference) or
// 100·ratio µs (candidate), each times exp(N(0, spread²)) from a seeded
// source, so that the gate's decisions are reproducible.
type fakeSeries struct {
	ratio, spread float64
	rng           *rand.Rand
	runs          []string // the experiments run, in order
	// latency, when set, is each side's latency definition, written in a
	// meta.json; extra is a sub-experiment only the reference measures;
	// interruptAt, from 1, is the run interrupted (its meta.json says so).
	latency     map[string]string
	extra       string
	interruptAt int
	// firstPenalty slows the first run of every unit of unitRuns runs by
	// that fraction, as caches gone cold in the gate's pause between units
	// would.
	firstPenalty float64
	unitRuns     int
	// ar, when set, makes consecutive pairs alike: each candidate run is
	// slowed further by exp(x), x an AR(1) with this coefficient and
	// standard deviation arSD, as a machine's slowly changing state would.
	ar, arSD, arState float64
}

func (f *fakeSeries) run(_ context.Context, args []string, _, _ io.Writer) int {
	out, name := args[slices.Index(args, "--out")+1], args[slices.Index(args, "--name")+1]
	dir := filepath.Join(out, name)
	f.runs = append(f.runs, dir)
	r := 1.0
	if filepath.Base(out) == SideCandidate {
		r = f.ratio
	}
	if f.ar > 0 && filepath.Base(out) == SideCandidate {
		f.arState = f.ar*f.arState + math.Sqrt(1-f.ar*f.ar)*f.arSD*f.rng.NormFloat64()
		r *= math.Exp(f.arState)
	}
	if f.unitRuns > 0 && (len(f.runs)-1)%f.unitRuns == 0 {
		r *= 1 + f.firstPenalty
	}
	var b strings.Builder
	b.WriteString("Bytes,Samples,Max,Min,Mean,Median,Stdev,Mean jitter,Max jitter,90%,99%,99.99%\n")
	for _, p := range []int{16, 1024} {
		m := 100 * r * math.Exp(f.spread*f.rng.NormFloat64())
		fmt.Fprintf(&b, "%d,100,%g,%g,%g,%g,1,1,1,%g,%g,%g\n", p, 2*m, m/2, m, m, m, m, m)
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return exit.Usage
	}
	if err := os.WriteFile(filepath.Join(dir, "measurements_fake_summary.csv"), []byte(b.String()), 0o666); err != nil {
		return exit.Usage
	}
	if f.extra != "" && filepath.Base(out) == SideReference {
		if err := os.WriteFile(filepath.Join(dir, "measurements_"+f.extra+"_summary.csv"), []byte(b.String()), 0o666); err != nil {
			return exit.Usage
		}
	}
	interrupted := len(f.runs) == f.interruptAt
	if f.latency != nil || interrupted {
		m := &meta.Meta{Experiment: name, Start: time.Now().UTC(), Latency: f.latency[filepath.Base(out)],
			Completed: !interrupted, Interrupted: interrupted}
		if err := meta.Write(filepath.Join(dir, meta.FileName), m); err != nil {
			return exit.Usage
		}
	}
	if interrupted {
		return exit.Interrupted
	}
	return exit.OK
}

func (f *fakeSeries) config(t *testing.T, maxRuns int) ABConfig {
	return ABConfig{Common: []string{"-q"}, Candidate: "--slower", Out: t.TempDir(), Name: "s", MaxRuns: maxRuns,
		Design: DesignRandom, Seed: 3, Margins: paired.DefaultMargins, Level: 0.01, Metrics: []result.Metric{result.Median},
		Check: func([]string) (Config, error) { return Config{}, nil }, Run: f.run,
		Summarise: func(context.Context, string) error { return nil }}
}

// TestABSequentialStops: the sequential gate stops as soon as it decides
// (pass, fail) or when the budget is spent, with the exit code, the
// verdict once in plain words with the pairs used, the checks that keep
// an undecided gate open and what would decide it, the report files, and
// no run after the stop.
func TestABSequentialStops(t *testing.T) {
	for _, c := range []struct {
		name          string
		ratio         float64
		budget        int
		code          int
		reason        string
		status        string
		early         bool
		keptOpenNamed bool
	}{
		{"unchanged", 1, 200, exit.OK, "every check is within the +5 % pass margin", "passed", true, false},
		{"30 % slower", 1.3, 200, exit.GateFailed, "fake 16 B Median, fake 1024 B Median worse than the +5 % fail margin", "failed", true, false},
		{"at the margin", 1.05, 8, exit.Inconclusive, "the budget is spent with fake 16 B Median, fake 1024 B Median neither within the +5 % pass margin nor beyond the +5 % fail margin", "inconclusive", false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Independent pairs, whose dependence test (at 10 %) holds one
			// gate in ten to its budget by chance: a seed it does not hold.
			f := &fakeSeries{ratio: c.ratio, spread: 0.02, rng: rand.New(rand.NewPCG(1, 4))}
			cfg := f.config(t, c.budget)
			cfg.Reports = map[string]string{"json": filepath.Join(cfg.Out, "v.json"), "markdown": filepath.Join(cfg.Out, "v.md")}
			var stdout, stderr bytes.Buffer
			err := AB(context.Background(), cfg, &stdout, &stderr)
			if exit.Code(err) != c.code {
				t.Fatalf("exit %d (%v), want %d\n%s", exit.Code(err), err, c.code, stdout.String())
			}
			var line string
			for _, l := range strings.Split(stdout.String(), "\n") {
				if strings.HasPrefix(l, "run ab: ") {
					line = l
					break
				}
			}
			var pairs int
			if _, err := fmt.Sscanf(line, "run ab: "+strings.ToUpper(c.status)+" after %d pairs", &pairs); err != nil || !strings.HasSuffix(line, "): "+c.reason) {
				t.Fatalf("closing line %q: want %s after N pairs (…): %s", line, strings.ToUpper(c.status), c.reason)
			}
			t.Logf("%s", line)
			if c.early != (pairs < c.budget) || (!c.early && pairs != c.budget) {
				t.Errorf("stopped after %d pairs of a budget of %d", pairs, c.budget)
			}
			if len(f.runs) != 2*pairs {
				t.Errorf("%d runs for %d pairs: a run after the stop", len(f.runs), pairs)
			}
			kept := strings.Contains(stdout.String(), "\n  inconclusive fake 16 B Median: ×") && strings.Contains(stdout.String(), "\n  to decide: about ")
			if kept != c.keptOpenNamed {
				t.Errorf("checks keeping it open and what would decide named: %v, want %v\n%s", kept, c.keptOpenNamed, stdout.String())
			}
			var v struct {
				Status   string `json:"status"`
				Mode     string `json:"mode"`
				Decision struct {
					N      int    `json:"n"`
					Reason string `json:"reason"`
				} `json:"decision"`
			}
			b, err := os.ReadFile(cfg.Reports["json"])
			if err == nil {
				err = json.Unmarshal(b, &v)
			}
			if err != nil || v.Status != c.status || !strings.Contains(v.Mode, "exact group-sequential sign tests") || v.Decision.N != pairs || v.Decision.Reason == "" {
				t.Errorf("JSON report: %v, status %q, mode %q, decision %+v", err, v.Status, v.Mode, v.Decision)
			}
			if md, err := os.ReadFile(cfg.Reports["markdown"]); err != nil || !strings.Contains(string(md), "run ab") {
				t.Errorf("Markdown report: %v\n%s", err, md)
			} else if crossed := strings.Contains(string(md), "| crossed |"); crossed != (c.status == "failed") || strings.Contains(string(md), "0.0e+00") {
				// A group-sequential boundary decides by counts: a check
				// that crossed it has no p-value, and none reads as 0.
				t.Errorf("Markdown report: p-value of a check that crossed the fail boundary given as \"crossed\": %v, want %v\n%s", crossed, c.status == "failed", md)
			}
			rows := readSeries(t, filepath.Join(cfg.Out, "s"+SeriesSuffix))
			if len(rows) != 2*pairs {
				t.Errorf("series file has %d runs, want %d", len(rows), 2*pairs)
			}
		})
	}
}

// TestABRefusedDependent: pairs beyond the margin, but within two spreads
// of it, and strongly alike from one to the next (AR(1), φ 0.95: their
// ratio wanders about ×1.15 by ±10 %) hold the gate at its first look;
// at the budget the blocks of consecutive pairs that would remove such a
// dependence leave too few units, so the verdict is refused: exit 3, said
// as such (not as a spent budget), with the checks it leaves open, the
// dependence found, and the refusal in the JSON report's decision.
func TestABRefusedDependent(t *testing.T) {
	f := &fakeSeries{ratio: 1.15, spread: 0.01, rng: rand.New(rand.NewPCG(4, 4)), ar: 0.95, arSD: 0.1}
	cfg := f.config(t, 30)
	cfg.Reports = map[string]string{"json": filepath.Join(cfg.Out, "v.json")}
	var stdout, stderr bytes.Buffer
	err := AB(context.Background(), cfg, &stdout, &stderr)
	out := stdout.String()
	if exit.Code(err) != exit.Inconclusive || !strings.Contains(out, "run ab: INCONCLUSIVE after 30 pairs (30 runs per side, ") ||
		!strings.Contains(out, "): no verdict: consecutive pairs were alike (lag-1 correlation +") || !strings.Contains(out, "open: fake 16 B Median, fake 1024 B Median") {
		t.Fatalf("exit %d (%v)\n%s", exit.Code(err), err, out)
	}
	if !strings.Contains(out, "\n  to decide: about ") || !strings.Contains(out, " consecutive pairs, which a lag-1 correlation of +") || strings.Contains(out, "would have failed at") {
		t.Errorf("what would decide does not count blocks of pairs, or offers margins read from dependent pairs:\n%s", out)
	}
	if strings.Contains(out, "budget is spent") || !strings.Contains(stderr.String(), "; held for serial dependence (consecutive pairs alike, r +") {
		t.Errorf("the refusal said as a spent budget, or the hold not on standard error:\n%s\n%s", out, stderr.String())
	}
	// One look left, the budget's: "at pair 30", where it said "at pairs 30".
	if !strings.Contains(stderr.String(), "): it judges blocks of pairs at pair 30\n") {
		t.Errorf("the held progress lines do not name the one look left as one pair:\n%s", stderr.String())
	}
	var v struct {
		Status   string `json:"status"`
		Decision struct {
			Rule       string `json:"rule"`
			Dependence string `json:"dependence"`
		} `json:"decision"`
	}
	b, err := os.ReadFile(cfg.Reports["json"])
	if err == nil {
		err = json.Unmarshal(b, &v)
	}
	if err != nil || v.Status != "inconclusive" || !strings.Contains(v.Decision.Rule, "refused") || !strings.Contains(v.Decision.Dependence, "refused") {
		t.Errorf("JSON report: %v, status %q, decision %+v", err, v.Status, v.Decision)
	}
}

// TestABHeldSaysWhy: a regression far beyond the margins whose size
// wanders (AR(1), φ 0.95) holds the gate for serial dependence at its
// first look and fails at a later one, whose analysis, of the pairs
// clipped about the margins, finds no dependence. The verdict's serial
// dependence says what held the gate, and where, before what the look
// found; it said only "no serial dependence at 0.1", beside "consecutive
// pairs were alike, so the gate judged blocks of them".
func TestABHeldSaysWhy(t *testing.T) {
	f := &fakeSeries{ratio: 1.3, spread: 0.01, rng: rand.New(rand.NewPCG(3, 4)), ar: 0.95, arSD: 0.1}
	cfg := f.config(t, 150)
	cfg.Reports = map[string]string{"json": filepath.Join(cfg.Out, "v.json")}
	var stdout, stderr bytes.Buffer
	err := AB(context.Background(), cfg, &stdout, &stderr)
	out := stdout.String()
	if exit.Code(err) != exit.GateFailed || !strings.Contains(out, "(consecutive pairs were alike, so the gate judged blocks of them") {
		t.Fatalf("exit %d (%v), want 1 from a held gate\n%s", exit.Code(err), err, out)
	}
	var v struct {
		Decision struct {
			Dependence string `json:"dependence"`
		} `json:"decision"`
	}
	b, err := os.ReadFile(cfg.Reports["json"])
	if err == nil {
		err = json.Unmarshal(b, &v)
	}
	held := regexp.MustCompile(`^at pair \d+, lag-1 autocorrelation of the log ratios in measured order \+0\.\d\d \(pooled over the checks\), randomisation p [0-9.]+ over 999 orders: serially dependent at 0\.1, so the gate held and judged blocks of pairs at pairs \d+ and 150; at pair \d+, `)
	if err != nil || !held.MatchString(v.Decision.Dependence) {
		t.Errorf("JSON report: %v, decision's dependence %q, want it to say what held the gate", err, v.Decision.Dependence)
	}
	if !strings.Contains(out, "; serial dependence: "+v.Decision.Dependence+"\n") {
		t.Errorf("the verdict's how line does not say what held the gate:\n%s", out)
	}
}

// TestABVerdictOnce: the gate talks while it works and says its verdict
// once: a progress line after every pair that does not stop it, even when
// the runs are --quiet (the pairs so far and left, the time, the widest open
// check with its median ratio and what passes and fails), then one closing
// line in plain words; the error that carries the exit code does not say
// it again, and no line speaks of e-values.
func TestABVerdictOnce(t *testing.T) {
	for _, c := range []struct {
		ratio  float64
		budget int
		word   string
	}{{1.3, 200, "FAILED"}, {1, 200, "PASSED"}, {1.05, 24, "INCONCLUSIVE"}} {
		f := &fakeSeries{ratio: c.ratio, spread: 0.02, rng: rand.New(rand.NewPCG(1, 2))}
		cfg := f.config(t, c.budget)
		var stdout, stderr bytes.Buffer
		err := AB(context.Background(), cfg, &stdout, &stderr)
		all := stdout.String() + stderr.String() + fmt.Sprint(err)
		pairs := len(f.runs) / 2
		if n := strings.Count(all, c.word); n != 1 {
			t.Errorf("%s said %d times:\n%s", c.word, n, all)
		}
		for _, jargon := range []string{"e-values reached", "decided fail", "decided pass", "budget spent"} {
			if strings.Contains(all, jargon) {
				t.Errorf("%s: %q in the output:\n%s", c.word, jargon, all)
			}
		}
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if len(lines) != pairs || !strings.HasPrefix(lines[0], "ab: sequential gate, at most ") {
			t.Fatalf("%s after %d pairs: %d lines on standard error, want the opening and one per pair before the last:\n%s", c.word, pairs, len(lines), stderr.String())
		}
		first := 0
		if i := strings.LastIndex(lines[1], "no decision before pair "); i >= 0 {
			fmt.Sscanf(lines[1][i:], "no decision before pair %d", &first)
		}
		if first < 20 {
			t.Errorf("%s: first progress line %q: want the first pair that can decide, 20 or later", c.word, lines[1])
		}
		for i, l := range lines[1:] {
			want := fmt.Sprintf("ab: pair %d of at most %d, ", i+1, c.budget)
			if !strings.HasPrefix(l, want) || !strings.Contains(l, fmt.Sprintf(" %d left", c.budget-i-1)) || !strings.Contains(l, "checks open, the widest fake ") ||
				!strings.Contains(l, "(pass < ×1.050, fail > ×1.050)") {
				t.Errorf("progress line %d %q: want %q…, the pairs left, the widest open check and its margins", i+1, l, want)
			}
			if i+1 < first && !strings.HasSuffix(l, fmt.Sprintf("no decision before pair %d", first)) || i+1 >= first && !strings.Contains(l, " in [") {
				t.Errorf("progress line %d %q: want when the first decision can come, or the widest check's bounds from then on", i+1, l)
			}
		}
	}
}

// TestABSequentialABBA feeds blocks A B B A: the budget counts runs per
// side, two per block, and the gate counts blocks.
func TestABSequentialABBA(t *testing.T) {
	f := &fakeSeries{ratio: 1.05, spread: 0.02, rng: rand.New(rand.NewPCG(1, 2))}
	cfg := f.config(t, 6)
	cfg.Design = DesignABBA
	var stdout bytes.Buffer
	err := AB(context.Background(), cfg, &stdout, io.Discard)
	if exit.Code(err) != exit.Inconclusive || !strings.Contains(stdout.String(), "run ab: INCONCLUSIVE after 3 blocks (6 runs per side, ") {
		t.Fatalf("exit %d: %s", exit.Code(err), stdout.String())
	}
	var sides []string
	for _, r := range readSeries(t, filepath.Join(cfg.Out, "s"+SeriesSuffix)) {
		sides = append(sides, r[2][:1])
		if r[6] != DesignABBA || r[7] != "3" {
			t.Errorf("series row %q: want design abba and seed 3", r)
		}
	}
	got := strings.Join(sides, "")
	for i := 0; i < len(got); i += 4 {
		if b := got[i : i+4]; b != "rccr" && b != "crrc" {
			t.Errorf("block %d is %s, want rccr or crrc", i/4+1, b)
		}
	}
}

// TestABBAFirstRunPenalty: a candidate truly 5 % slower, at the margins,
// must not pass when the first run of every block costs 5 or 10 % more.
// Blocks always A B B A gave that cost to the reference, which made the
// candidate look as fast and passed it; with each block's orientation
// drawn, the cost falls on either side alike, half the blocks look 5 %
// better and half 5 % worse than they are, and the gate cannot show the
// candidate within the pass margin. Through the production order (the
// seeded coin) and the gate, for several seeds.
func TestABBAFirstRunPenalty(t *testing.T) {
	for _, penalty := range []float64{0.05, 0.10} {
		for seed := uint64(1); seed <= 3; seed++ {
			f := &fakeSeries{ratio: 1.05, spread: 0.01, rng: rand.New(rand.NewPCG(seed, 9)), firstPenalty: penalty, unitRuns: 4}
			cfg := f.config(t, 80)
			cfg.Design, cfg.Seed = DesignABBA, seed
			var stdout bytes.Buffer
			err := AB(context.Background(), cfg, &stdout, io.Discard)
			if code := exit.Code(err); code == exit.OK || code == exit.Usage {
				t.Errorf("first-run penalty %g, seed %d: exit %d, want a +5 %% regression not passed\n%s", penalty, seed, code, stdout.String())
			}
		}
	}
}

// TestABBAOrientationDrawn: each block's orientation, A B B A or B A A B,
// is drawn from the seed: the same seed gives the same blocks, and both
// orientations occur, in about equal numbers.
func TestABBAOrientationDrawn(t *testing.T) {
	order := func(seed uint64) string {
		f := &fakeSeries{ratio: 1, spread: 0.02, rng: rand.New(rand.NewPCG(1, 2))}
		cfg := f.config(t, 0)
		cfg.MaxRuns, cfg.Runs, cfg.Seed, cfg.Design = 0, 40, seed, DesignABBA
		if err := AB(context.Background(), cfg, io.Discard, io.Discard); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, r := range readSeries(t, filepath.Join(cfg.Out, "s"+SeriesSuffix)) {
			b.WriteString(r[2][:1])
		}
		return b.String()
	}
	a, again := order(7), order(7)
	if a != again {
		t.Errorf("seed 7 gave %s, then %s", a, again)
	}
	if a == order(8) {
		t.Errorf("seeds 7 and 8 gave the same blocks %s", a)
	}
	n := 0
	for i := 0; i+4 <= len(a); i += 4 {
		if a[i:i+4] == "crrc" {
			n++
		}
	}
	if n < 5 || n > 15 {
		t.Errorf("%d of 20 blocks B A A B (%s): want about half", n, a)
	}
}

// TestABOrderSeeded: the random design's order is the seed's, recorded in
// the series file with positions and start times, and both orders occur.
func TestABOrderSeeded(t *testing.T) {
	order := func(seed uint64) string {
		f := &fakeSeries{ratio: 1, spread: 0.02, rng: rand.New(rand.NewPCG(1, 2))}
		cfg := f.config(t, 0)
		cfg.MaxRuns, cfg.Runs, cfg.Seed = 0, 12, seed
		if err := AB(context.Background(), cfg, io.Discard, io.Discard); err != nil {
			t.Fatal(err)
		}
		var got strings.Builder
		rows := readSeries(t, filepath.Join(cfg.Out, "s"+SeriesSuffix))
		for i, r := range rows {
			got.WriteString(r[2][:1])
			wantRun := filepath.Join(cfg.Out, filepath.FromSlash(r[4]))
			if r[0] != fmt.Sprint(i/2+1) || r[1] != fmt.Sprint(i+1) || r[3] != fmt.Sprint(i/2+1) || wantRun != f.runs[i] ||
				r[6] != DesignRandom || r[7] != fmt.Sprint(seed) || (i > 0 && r[5] < rows[i-1][5]) {
				t.Errorf("series row %d %q: want unit %d, position %d, the run made %s, start after the previous, design random, seed %d",
					i+1, r, i/2+1, i+1, f.runs[i], seed)
			}
		}
		return got.String()
	}
	a, b, other := order(42), order(42), order(43)
	if a != b {
		t.Errorf("seed 42 gave %s, then %s", a, b)
	}
	if a == other {
		t.Errorf("seeds 42 and 43 gave the same order %s", a)
	}
	for i := 0; i < len(a); i += 2 {
		if pair := a[i : i+2]; pair != "rc" && pair != "cr" {
			t.Fatalf("pair %d is %s", i/2+1, pair)
		}
	}
	if !strings.Contains(a, "rc") || !strings.Contains(a, "cr") {
		t.Errorf("order %s: one side always first", a)
	}
}

func readSeries(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) == 0 || !slices.Equal(rows[0], pairing.SeriesHeader) {
		t.Fatalf("%s: %v, header %q", path, err, rows)
	}
	return rows[1:]
}

// TestABProgressEstimate: the time left is estimated from the time taken
// unrounded: after a first round of 0.4 s, 149 more take about a minute;
// rounded first to 0 s, the line said "(at most 0s more)".
func TestABProgressEstimate(t *testing.T) {
	cfg := (&fakeSeries{}).config(t, 150)
	cfg.Design = DesignInterleave
	g, err := newABGate(cfg, 150)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.start([]paired.Check{{Name: "fake 16 B Median"}}, []pairing.Origin{{SubExperiment: "fake", Key: result.Key{Payload: 16}, Metric: result.Median}}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.feed([]float64{math.Log(10)}, []float64{math.Log(10.1)}, io.Discard); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	g.began = now.Add(-400 * time.Millisecond)
	if line := g.progress(now); !strings.HasPrefix(line, "ab: round 1 of at most 150, 0s, 149 left (at most 1m0s more): ") {
		t.Errorf("progress %q, want about a minute more", line)
	}
}

// TestABStaleReportReplaced: a gate that accepted its inputs and then
// stops without a verdict (here its first run interrupted, exit 130)
// leaves at its report paths a report saying so and why, not an earlier
// gate's, which read as this gate's verdict, nor nothing.
func TestABStaleReportReplaced(t *testing.T) {
	f := &fakeSeries{ratio: 1, spread: 0.01, rng: rand.New(rand.NewPCG(1, 4)), interruptAt: 1}
	cfg := f.config(t, 30)
	stale := filepath.Join(t.TempDir(), "v.md")
	if err := os.WriteFile(stale, []byte("### ✅ run ab PASSED\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.Reports = map[string]string{"markdown": stale}
	var stdout, stderr bytes.Buffer
	if err := AB(context.Background(), cfg, &stdout, &stderr); exit.Code(err) != exit.Interrupted {
		t.Fatalf("exit %d (%v), want 130", exit.Code(err), err)
	}
	b, err := os.ReadFile(stale)
	if got := string(b); err != nil || !strings.HasPrefix(got, "### ⛔ run ab: NO VERDICT") || !strings.Contains(got, "stopped without a verdict: ab stopped at run 1 of 60") {
		t.Errorf("%s after a gate that gave no verdict: %q, %v; want a report saying so", stale, got, err)
	}
}

// TestABOpeningSaysUndecidable: a budget and level with which no boundary
// can be crossed (--false-fail 1e-300 over 150 rounds) is said before the
// first round; the gate said "no decision before round 151" of at most
// 150 on every progress line and ended at exit 3 after the whole budget.
func TestABOpeningSaysUndecidable(t *testing.T) {
	for _, c := range []struct {
		level float64
		want  bool
	}{{1e-300, true}, {0.01, false}} {
		cfg := (&fakeSeries{}).config(t, 150)
		cfg.Design, cfg.Level = DesignInterleave, c.level
		g, err := newABGate(cfg, 150)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.start([]paired.Check{{Name: "fake 16 B Median"}}, []pairing.Origin{{SubExperiment: "fake", Key: result.Key{Payload: 16}, Metric: result.Median}}); err != nil {
			t.Fatal(err)
		}
		line := g.opening("s-rounds.csv")
		if got := strings.Contains(line, "\nab: no decision is possible within --max-runs 150: with 1 checks at --false-fail 1e-300 no boundary can be crossed before round "); got != c.want {
			t.Errorf("--false-fail %g: opening %q, want the undecidable budget said: %v", c.level, line, c.want)
		}
	}
}
