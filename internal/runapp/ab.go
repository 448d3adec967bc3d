package runapp

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/clobber"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/pairing"
	"github.com/mqgate/mqgate/internal/report"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats/paired"
)

// The designs of an A/B series: the order of the runs within each unit.
const (
	// DesignRandom: units are pairs, each run A B or B A as a seeded coin
	// falls, so that a drift within a pair favours neither side on average
	// and the pair's log ratio is symmetric about the true one.
	DesignRandom = pairing.DesignRandom
	// DesignABBA: units are blocks of four runs, A B B A or B A A B as a
	// seeded coin falls, whose log ratio (mean of the B logs less mean of
	// the A logs) cancels a drift linear over the block, while the coin
	// gives a cost of a block's first run to either side alike.
	DesignABBA = pairing.DesignABBA
)

// ABConfig is `run ab`: the series and the two sides' run flags, the
// sequential gate's settings, and the run command itself, which ab checks
// each side's flags with and runs.
type ABConfig struct {
	Common               []string // run flags of both sides, after --
	Reference, Candidate string   // --reference, --candidate: each side's run flags, a shell-quoted line
	Out, Name            string   // --out, --name stem ("": the start time)
	// Runs (--runs) is the fixed design's runs per side; MaxRuns
	// (--max-runs) the sequential gate's budget of runs per side. Exactly
	// one is set.
	Runs, MaxRuns int
	Design        string // DesignRandom, DesignABBA or DesignInterleave
	Seed          uint64 // seeds the order of each pair, or orientation of each block
	// Block is the round trips of a block of DesignInterleave, Pairs
	// the block pairs of each payload in a round; 0 chooses by where each
	// sub-experiment's far end is (roundShapes).
	Block, Pairs int
	// rounds says a round's blocks once the sub-experiments are known
	// (engine.ShapesText).
	rounds string
	// The sequential gate (MaxRuns > 0): its margins and family-wise
	// level, the summary columns it judges, and the report files it writes
	// (report.Formats' flag → path, "" for none).
	Margins paired.Margins
	Level   float64
	// CPUMargin (--cpu-margin) is the fail margin of the interleaved
	// gate's echo CPU checks, one per sub-experiment whose two echo ends
	// are processes of their own; 0: no such checks.
	CPUMargin float64
	Metrics   []result.Metric
	Reports   map[string]string
	// Check parses a run's flags (no "run") as the run would, giving the
	// run's configuration; Run runs one
	// run's command line, giving its exit code; Summarise writes the
	// summaries of an experiment directory (the sequential gate reads
	// them after each unit).
	Check     func(args []string) (Config, error)
	Run       func(ctx context.Context, args []string, stdout, stderr io.Writer) int
	Summarise func(ctx context.Context, dir string) error
}

// abRun is one run of the series.
type abRun struct {
	unit, pos int // the unit (pair or block) and position in the series, from 1
	side      string
	n         int // the side's run number
	dir       string
	args      []string
	start     time.Time // when it started; zero until then
}

// AB is `run ab`: it checks both sides' flags, then runs the series in the
// order of its design, with progress on stderr and the order and start
// times in the series file. With MaxRuns it is the sequential gate:
// after each unit it feeds the unit's log ratios to the gate (package
// stats/seq) and stops when the gate decides or the budget is spent, with
// exit 0 (pass), 1 (fail) or 3 (inconclusive).
func AB(ctx context.Context, cfg ABConfig, stdout, stderr io.Writer) (err error) {
	if cfg.Design == DesignInterleave {
		return abInterleave(ctx, cfg, stdout, stderr)
	}
	plan, series, err := abPlan(cfg)
	if err != nil {
		return err
	}
	var gate *abGate
	if cfg.MaxRuns > 0 {
		if gate, err = newABGate(cfg, len(plan)/len(unitRuns(plan, 1))); err != nil {
			return err
		}
	}
	if err := guardReports(cfg, plan, series); err != nil {
		return err
	}
	if err := claimSeries(series); err != nil {
		return err
	}
	ended, err := pendingReports(cfg, stderr)
	if err != nil {
		return err
	}
	defer func() { ended(err) }()
	// The runs' --quiet quiets the runs and the fixed design's progress;
	// the sequential gate always says where it stands, one line per unit,
	// as a gate that stays silent for minutes looks hung.
	quiet := slices.Contains(cfg.Common, "-q") || slices.Contains(cfg.Common, "--quiet")
	if gate != nil {
		fmt.Fprintln(stderr, gate.opening(series))
	} else if !quiet {
		fmt.Fprintf(stderr, "ab: %s (%s)\n", orderText(cfg), series)
	}
	total := len(plan)
	for i := range plan {
		r := &plan[i]
		if !quiet && gate == nil {
			fmt.Fprintf(stderr, "ab: run %d of %d: %s %d (%s)\n", i+1, total, r.side, r.n, unitName(cfg.Design, r.unit))
		}
		r.start = time.Now().UTC()
		if gate != nil && i == 0 {
			gate.began = time.Now()
		}
		if err := writeSeries(series, cfg, plan[:i+1]); err != nil {
			return err
		}
		if code := cfg.Run(ctx, r.args, stdout, stderr); code != exit.OK {
			return exit.With(code, fmt.Errorf("ab stopped at run %d of %d (%s %d, %s); the runs before it are complete",
				i+1, total, r.side, r.n, r.dir))
		}
		if gate == nil || (i+1 < total && plan[i+1].unit == r.unit) {
			continue
		}
		done, err := gate.add(ctx, unitRuns(plan, r.unit), stderr)
		if err != nil || done {
			if err == nil {
				err = gate.finish(stdout)
			}
			return err
		}
	}
	if !quiet {
		runs := total / 2
		fmt.Fprintf(stderr, "ab: %d runs per side in %s and %s; order in %s\n", runs,
			filepath.Join(cfg.Out, SideReference), filepath.Join(cfg.Out, SideCandidate), series)
	}
	return nil
}

// abPlan checks the configuration and both sides' flags and lays out the
// whole series (the sequential gate's up to its budget), refusing a run
// that would land on an existing experiment and an existing series file.
func abPlan(cfg ABConfig) ([]abRun, string, error) {
	runs, err := abRunCount(cfg)
	if err != nil {
		return nil, "", err
	}
	sides, err := sideArgs(cfg)
	if err != nil {
		return nil, "", err
	}
	name, err := runName(cfg.Name, time.Now().UTC())
	if err != nil {
		return nil, "", err
	}
	for _, side := range []string{SideReference, SideCandidate} {
		if err := atomicfile.CheckDir(filepath.Join(cfg.Out, side)); err != nil {
			return nil, "", exit.Usagef("--out: %v", err)
		}
	}
	plan := abOrder(cfg, runs, name, sides)
	// Check both sides' flags, and that nothing would land on an existing
	// file, before the first run.
	if _, err := parseSides(cfg, sides, samePinning); err != nil {
		return nil, "", err
	}
	series, err := abFree(cfg, plan, name)
	if err != nil {
		return nil, "", err
	}
	return plan, series, nil
}

// abRunCount is the number of runs per side the series may take (--runs,
// or --max-runs for the sequential gate), refused when both or neither are
// given or when it does not fit the design.
func abRunCount(cfg ABConfig) (int, error) {
	runs := cfg.Runs
	switch {
	case cfg.Runs > 0 && cfg.MaxRuns > 0:
		return 0, exit.Usagef("--runs %d and --max-runs %d: give --runs for a fixed number of runs or --max-runs for the sequential gate, not both",
			cfg.Runs, cfg.MaxRuns)
	case cfg.MaxRuns > 0:
		runs = cfg.MaxRuns
	case cfg.Runs < 1:
		return 0, exit.Usagef("--runs %d: expected at least 1", cfg.Runs)
	}
	flag := "--runs"
	if cfg.MaxRuns > 0 {
		flag = "--max-runs"
	}
	switch cfg.Design {
	case DesignRandom:
	case DesignABBA:
		if runs%2 != 0 {
			return 0, exit.Usagef("%s %d with --design abba: expected an even number, two runs per side in each block (A B B A or B A A B)", flag, runs)
		}
	default:
		return 0, exit.Usagef("--design %q: expected %s (blocks of round trips alternating inside one run per side), %s (each pair's order drawn at random) or %s (blocks A B B A or B A A B, drawn at random)",
			cfg.Design, DesignInterleave, DesignRandom, DesignABBA)
	}
	return runs, nil
}

// abOrder lays out runs runs per side in units (pairs, or ABBA blocks),
// each run's experiment named after the series name and its side's run
// number, with the 'run' arguments that make it.
func abOrder(cfg ABConfig, runs int, name string, sides map[string][]string) []abRun {
	var plan []abRun
	add := func(unit int, side string, n int) {
		exp := fmt.Sprintf("%s-%02d", name, n)
		args := append(append([]string{"run"}, cfg.Common...), sides[side]...)
		args = append(args, "--out", filepath.Join(cfg.Out, side), "--name", exp)
		plan = append(plan, abRun{unit: unit, pos: len(plan) + 1, side: side, n: n, dir: filepath.Join(cfg.Out, side, exp), args: args})
	}
	// One seeded coin sets every unit's order: a pair's, or a block's
	// orientation, A B B A or B A A B. Always A B B A would give the
	// reference every block's first run, and whatever a unit's first run
	// costs (caches cold after the gate's pause between units) would
	// pass for a difference between the sides.
	coin := rand.New(rand.NewPCG(cfg.Seed, 0x61625f6f72646572)) // "ab_order"
	for u := 1; u <= runs/unitSize(cfg.Design); u++ {
		first, second := SideReference, SideCandidate
		if coin.IntN(2) == 1 {
			first, second = second, first
		}
		if cfg.Design == DesignABBA {
			add(u, first, 2*u-1)
			add(u, second, 2*u-1)
			add(u, second, 2*u)
			add(u, first, 2*u)
		} else {
			add(u, first, u)
			add(u, second, u)
		}
	}
	return plan
}

// parseSides parses each side's run flags (reference, candidate), then
// checks that the two sides measure comparably and that alike says they
// may be compared: pinned alike (samePinning), or fit for one pinger
// (sharedPinger).
func parseSides(cfg ABConfig, sides map[string][]string, alike func(cfg ABConfig, ref, cand Config) error) ([2]Config, error) {
	var parsed [2]Config
	for i, side := range []string{SideReference, SideCandidate} {
		c, err := checkRunArgs(cfg.Check, append(slices.Clone(cfg.Common), sides[side]...))
		if err != nil {
			return parsed, exit.With(exit.Code(err), fmt.Errorf("%s side: %w", side, err))
		}
		if c.List {
			return parsed, exit.Usagef("%s side: --list measures nothing", side)
		}
		parsed[i] = c
	}
	if err := comparable(cfg, parsed[0], parsed[1]); err != nil {
		return parsed, err
	}
	return parsed, alike(cfg, parsed[0], parsed[1])
}

// abFree refuses a run of plan that would land on an existing experiment
// or folder, and an existing or unwritable series file; it returns the
// series file's path.
func abFree(cfg ABConfig, plan []abRun, name string) (string, error) {
	for _, r := range plan {
		if _, err := os.Stat(filepath.Join(r.dir, meta.FileName)); err == nil {
			return "", exit.Usagef("experiment %s exists already; choose another --name or --out", r.dir)
		}
		// Each run creates its folder and refuses one that exists.
		if _, err := os.Lstat(r.dir); err == nil {
			return "", exit.Usagef("%s exists already, where %s run %d would go; choose another --name or --out", r.dir, r.side, r.n)
		}
	}
	series := filepath.Join(cfg.Out, name+SeriesSuffix)
	if _, err := os.Lstat(series); err == nil {
		return "", exit.Usagef("series file %s exists already; choose another --name or --out", series)
	}
	if err := atomicfile.CheckFile(series); err != nil {
		return "", exit.Usagef("--out: %v", err)
	}
	return series, nil
}

// guardReports refuses, before the first run, report files (--json,
// --markdown, --junit) that would replace another output of the series or
// cannot be written: the same path twice, the series file or any file
// named as one (compare would read it as a series), a file the pipeline
// owns in an existing experiment folder (package clobber, as every tool's
// reports), a path in or at the folder of a run of the series, and a
// folder where no file can be created.
func guardReports(cfg ABConfig, plan []abRun, series string) error {
	var g clobber.Guard
	for _, f := range report.Formats {
		g.Output("--"+f.Flag, cfg.Reports[f.Flag])
	}
	g.OwnedOutput("the series file (--out/--name)", series)
	if err := g.Check(); err != nil {
		return err
	}
	dirs := make([]string, len(plan))
	for i, r := range plan {
		dirs[i] = clobber.Canonical(r.dir)
	}
	for _, f := range report.Formats {
		path := cfg.Reports[f.Flag]
		if path == "" {
			continue
		}
		if strings.HasSuffix(filepath.Base(path), SeriesSuffix) {
			return exit.Usagef("--%s %s: a name ending in %s is a series file of run ab, which compare would read as one; choose another name",
				f.Flag, path, SeriesSuffix)
		}
		// Another gate's rounds file in --out (an earlier --name) was
		// replaced by the report, its rounds lost.
		if strings.HasSuffix(filepath.Base(path), RoundsSuffix) {
			return exit.Usagef("--%s %s: a name ending in %s is a rounds file of run ab, where an interleaved gate keeps its rounds; choose another name",
				f.Flag, path, RoundsSuffix)
		}
		p := clobber.Canonical(path)
		for i, d := range dirs {
			if p == d || strings.HasPrefix(p, d+string(filepath.Separator)) {
				return exit.Usagef("--%s %s lies in %s, the experiment folder of %s run %d of this series: a report must not be written into a run's folder; choose another path",
					f.Flag, path, plan[i].dir, plan[i].side, plan[i].n)
			}
		}
		if err := atomicfile.CheckFile(path); err != nil {
			return exit.Usagef("--%s: %v", f.Flag, err)
		}
		if err := checkWritable(path); err != nil {
			return exit.Usagef("--%s: %v", f.Flag, err)
		}
	}
	return nil
}

// pendingReports writes, at the report paths (--json, --markdown,
// --junit), once the gate has accepted its inputs, a report saying that it
// has no verdict yet (gate.Unjudged); the verdict replaces it at the end.
// An earlier gate's report left there read as this gate's verdict when
// this one stopped without one: a job showing gate.md whenever it exists
// showed the earlier PASSED beside this gate's exit 2. The returned func,
// given the gate's outcome, replaces the pending report with why there is
// no verdict when the gate stopped without one (a run that broke, exit 2;
// an interruption, 130); a verdict (exit 0, 1, 3) wrote its own.
func pendingReports(cfg ABConfig, stderr io.Writer) (func(error), error) {
	start := time.Now().UTC().Format(time.RFC3339)
	if err := unjudgedReports(cfg, "the gate started at "+start+" and has not come to a verdict; a gate that stopped without one, killed, leaves this report"); err != nil {
		return nil, exit.Usagef("%v", err)
	}
	return func(err error) {
		switch exit.Code(err) {
		case exit.OK, exit.GateFailed, exit.Inconclusive:
			return
		}
		noVerdict(cfg, stderr, "the gate started at "+start+" and stopped without a verdict: "+err.Error())
	}, nil
}

// unjudgedReports writes the report files, each replaced whole, saying
// that the gate has no verdict and why.
func unjudgedReports(cfg ABConfig, why string) error {
	v := gate.Unjudged("run ab", cfg.Out+"/"+SideCandidate, cfg.Out+"/"+SideReference, why)
	_, err := report.WriteFiles(v, "", func(flag string) string { return cfg.Reports[flag] })
	return err
}

// noVerdict writes the report files of a gate that stopped without a
// verdict after its report paths were accepted (a side whose system does
// not answer, before pendingReports, or a run that broke), saying why; a
// report it cannot write is said on stderr.
func noVerdict(cfg ABConfig, stderr io.Writer, why string) {
	if err := unjudgedReports(cfg, why); err != nil {
		fmt.Fprintf(stderr, "run ab: %v\n", err)
	}
}

// checkWritable reports whether a file can be created where path would
// go: in its folder, or, when that does not exist yet, in the nearest
// folder above it that does, where the missing ones would be made. It
// creates a file there and removes it at once, so that a report the
// sequential gate writes at the end is not refused only after the series.
func checkWritable(path string) error {
	dir := filepath.Dir(path)
	for {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			break
		}
		dir = up
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".probe")
	if err != nil {
		return fmt.Errorf("cannot write %s: no file can be created in %s (%v)", path, dir, fileerr.Cause(err))
	}
	f.Close()
	return os.Remove(f.Name())
}

// claimSeries creates the series file, holding its header only, and
// refuses one that exists: of two series given the same --out and --name
// at once, both pass abPlan's checks, but only one creates the file; the
// other stops here, before its first run.
func claimSeries(path string) error {
	f, err := createExclusive(path, "series file", ": a series belongs to one run ab; choose another --name or --out")
	if err != nil {
		return err
	}
	cw := csv.NewWriter(f)
	cw.Write(pairing.SeriesHeader)
	cw.Flush()
	if err := errors.Join(cw.Error(), f.Close()); err != nil {
		os.Remove(path)
		return exit.Usagef("series file: cannot write %s: %v", path, fileerr.Cause(err))
	}
	return nil
}

// createExclusive creates the file what at path, and its folders, refusing
// one that exists: of two run ab given the same --out and --name at once,
// the second stops here, its error ending in meanwhile.
func createExclusive(path, what, meanwhile string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, exit.Usagef("--out: cannot create %s: %v", filepath.Dir(path), fileerr.Cause(err))
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if errors.Is(err, fs.ErrExist) {
		return nil, exit.Usagef("%s %s was created by another process meanwhile (another run ab given the same --out and --name?)%s", what, path, meanwhile)
	}
	if err != nil {
		return nil, exit.Usagef("%s: cannot create %s: %v", what, path, fileerr.Cause(err))
	}
	return f, nil
}

// orderText says how the order of the runs was set: each pair's, or each
// block's orientation (A B B A or B A A B), drawn from the seed.
func orderText(cfg ABConfig) string {
	if cfg.Design == DesignInterleave {
		return fmt.Sprintf("one run per side, rounds of %s, both sides' links opened afresh each round, the order of each opening and block pair drawn with --seed %d",
			cfg.rounds, cfg.Seed)
	}
	if cfg.Design == DesignABBA {
		return fmt.Sprintf("each block A B B A or B A A B as drawn with --seed %d", cfg.Seed)
	}
	return fmt.Sprintf("order of each pair drawn with --seed %d", cfg.Seed)
}

// unitRuns returns the runs of unit u, in run order.
func unitRuns(plan []abRun, u int) []abRun {
	var out []abRun
	for _, r := range plan {
		if r.unit == u {
			out = append(out, r)
		}
	}
	return out
}

// unitSize is the runs per side in a unit of the design.
func unitSize(design string) int {
	if design == DesignABBA {
		return 2
	}
	return 1
}

// unitOf names one unit of the design: a pair, an ABBA block or a round.
func unitOf(design string) string {
	switch design {
	case DesignInterleave:
		return "round"
	case DesignABBA:
		return "block"
	}
	return "pair"
}

// unitName names unit u of the design: "pair 3".
func unitName(design string, u int) string { return fmt.Sprintf("%s %d", unitOf(design), u) }

// SeriesSuffix ends the name of the series file `run ab` writes into
// --out: NAME-series.csv (formats §12; package pairing reads it).
const SeriesSuffix = pairing.SeriesSuffix

// writeSeries rewrites the series file with the runs started so far, one
// row each in run order, so that an interrupted series still says what
// ran when.
func writeSeries(path string, cfg ABConfig, started []abRun) error {
	seed := strconv.FormatUint(cfg.Seed, 10)
	err := atomicfile.Write(path, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		if err := cw.Write(pairing.SeriesHeader); err != nil {
			return err
		}
		for _, r := range started {
			rel, err := filepath.Rel(cfg.Out, r.dir)
			if err != nil {
				rel = r.dir
			}
			if err := cw.Write([]string{strconv.Itoa(r.unit), strconv.Itoa(r.pos), r.side, strconv.Itoa(r.n),
				filepath.ToSlash(rel), r.start.Format(time.RFC3339Nano), cfg.Design, seed}); err != nil {
				return err
			}
		}
		cw.Flush()
		return cw.Error()
	})
	if err != nil {
		return fmt.Errorf("series file: %w", err)
	}
	return nil
}

// checkRunArgs refuses --out and --name among a side's run flags (ab
// names each run's experiment itself), then parses them with check.
func checkRunArgs(check func([]string) (Config, error), args []string) (Config, error) {
	if a := givenArg(args, "out", "o", "name"); a != "" {
		return Config{}, exit.Usagef("%s: ab names each run's experiment itself (--out and --name of 'run ab')", a)
	}
	return check(args)
}

// samePinning refuses whole runs whose sides are pinned differently
// (--cpus): where the pinger and the echo run weighs on the round trip
// as much as a change of the system (docs/methods.md, pinned by default),
// so the comparison would measure the placement, not the sides.
func samePinning(cfg ABConfig, ref, cand Config) error {
	a, b := strings.ReplaceAll(ref.CPUs, " ", ""), strings.ReplaceAll(cand.CPUs, " ", "")
	if a == b {
		return nil
	}
	show := func(s string) string {
		if s == "" {
			return "not given"
		}
		return s
	}
	return exit.Usagef("--reference %q and --candidate %q: --cpus differs (%s and %s): the sides would be placed on different CPUs, "+
		"which changes the round trip as much as the system does; give --cpus to both sides, after --", cfg.Reference, cfg.Candidate, show(a), show(b))
}

// comparable refuses sides whose runs could not be compared, before the
// first run: latency measured differently (formats §2), or other
// sub-experiments, which would be missing from one side. The runs are
// checked again as they come in (abGate.add), by compare's rules.
func comparable(cfg ABConfig, ref, cand Config) error {
	if a, b := ref.Session.Engine.Latency, cand.Session.Engine.Latency; a != b {
		return exit.Usagef("--reference %q and --candidate %q: the reference would measure --latency %s (%s), the candidate %s (%s): "+
			"values measured differently cannot be compared (formats §2); give --latency to both sides, after --",
			cfg.Reference, cfg.Candidate, a, experiment.LatencyMeaning(a), b, experiment.LatencyMeaning(b))
	}
	a, b := splitList(ref.Subexperiments), splitList(cand.Subexperiments)
	if !slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))) {
		return exit.Usagef("--reference %q and --candidate %q: the reference would measure %s, the candidate %s: "+
			"a sub-experiment of one side only would be missing from the comparison; give -s to both sides, after --",
			cfg.Reference, cfg.Candidate, strings.Join(a, ","), strings.Join(b, ","))
	}
	return nil
}
