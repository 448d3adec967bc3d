package runapp

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/engine"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/pairing"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/session"
	"github.com/mqgate/mqgate/internal/stats"
	"github.com/mqgate/mqgate/internal/stats/paired"
)

// DesignInterleave: one run per side, measured together (engine.Duet):
// one pinger alternates blocks of round trips between the reference's and
// the candidate's links, the order of each block pair drawn from the
// seed. A round opens both sides' links afresh and measures --blocks
// block pairs of every sub-experiment and payload; each round is a unit
// of the gate, judged by the ratio of the two sides' medians over the
// round. What the machine settles into (the placement, the frequency, the
// neighbours, a scheduling mode) weighs on both sides of a round alike and
// cancels from their ratio.
const DesignInterleave = "interleave"

// DefaultBlock and DefaultRoundTrips shape a round of the interleaved
// design where the far end is another process (over a network or through
// a broker): blocks of 2 round trips, and 500 round trips of each side and
// payload per round (250 block pairs). On this project's 2-vCPU virtual
// machine the spread of a round's log ratio over TCP fell from 0.042 with
// blocks of 100 to 0.015 with 10, 0.014 with 5 and 0.008 with 2 or 1, the
// round trips per round and the time per round unchanged (A/A, one run
// each): the finer the alternation, the more of the machine's drift falls
// on both sides alike (docs/methods.md).
//
// DefaultInProcessBlock and DefaultPairs shape it where the echo is in
// this process: 5 block pairs of 100. A round trip there is a fraction of
// a microsecond, less than a switch between the two sides' echo
// goroutines, so blocks of 10 spread more (0.035 against 0.020).
const (
	DefaultBlock          = 2
	DefaultRoundTrips     = 500
	DefaultInProcessBlock = 100
	DefaultPairs          = 5
)

// DefaultBrokerBlock, DefaultBrokerRoundTrips and DefaultBrokerRoundWarmup
// replace DefaultBlock, DefaultRoundTrips and DefaultRoundWarmup when a
// sub-experiment goes through a broker, unless --block, --blocks and
// --warmup are given. Through NATS the spread of a round's log ratio was
// 0.068 with blocks of 100, 0.028–0.029 with 10 or 3 and 0.020–0.023 with
// 1, whose gates passed at their first look (91–98 s at a budget of 60)
// where blocks of 10 took 32 and 60 rounds (115 and 211 s). A broker's
// round trip is 5–8 times TCP's, so a round of 500 round trips per side
// and payload and 100 warm-up round trips took about 5 s there; a round's
// spread is nearly all its sampling noise, so the rounds a decision needs
// grow as the round trips per round fall, while the warm-up is paid every
// round. Over NATS, 300 round trips and 20 warm-up round trips cost 53 %
// of a round for about a quarter more rounds, and the first block after 20
// warm-up round trips measured no slower than the later ones
// (docs/methods.md).
const (
	DefaultBrokerBlock       = 1
	DefaultBrokerRoundTrips  = 300
	DefaultBrokerRoundWarmup = 20
)

// DefaultCPUMargin is --cpu-margin's default: the fail margin of the echo
// CPU checks (docs/methods.md, "CPU per message").
const DefaultCPUMargin = 0.05

// DefaultRoundWarmup is the round trips of each link and payload a round
// discards after opening its links, unless the run flags give --warmup.
const DefaultRoundWarmup = 100

// RoundsSuffix ends the name of the rounds file of an interleaved gate:
// NAME-rounds.csv in --out, one row per round and check (formats §12).
const RoundsSuffix = "-rounds.csv"

// roundsHeader is the rounds file's header. The last two columns, the
// echo processes' CPU time per message over the payload's blocks, are
// empty where it is not read (formats §12; files written before them end
// at Unit).
var roundsHeader = []string{"Round", "Sub-experiment", "Payload", "Reference first", "Column", "Reference", "Candidate", "Unit",
	"Reference CPU/message", "Candidate CPU/message"}

// abInterleave is `run ab --design interleave --max-runs N`: both sides
// prepared in this process, measured side by side in one run each
// (session.RunDuet), the gate fed after every round.
func abInterleave(ctx context.Context, cfg ABConfig, stdout, stderr io.Writer) (err error) {
	iv := &interleave{cfg: cfg}
	if err := iv.check(); err != nil {
		return err
	}
	name, err := runName(cfg.Name, time.Now().UTC())
	if err != nil {
		return err
	}
	start := time.Now().UTC()
	if err := iv.guardFiles(name); err != nil {
		return err
	}
	// Both sides' echo processes copy their standard error to stderr at
	// once, beside the gate's progress lines: a writer that is not a file
	// takes them one at a time.
	if _, ok := stderr.(*os.File); !ok {
		stderr = &syncWriter{w: stderr}
	}
	iv.stderr = stderr
	if err := iv.prepare(ctx); err != nil {
		// A side's broker or remote echo that does not answer (a wrong
		// --target, a broker down) is the gate's failure to judge, as an
		// echo process that never answers is in the first round: its
		// reports say so rather than keep an earlier gate's verdict.
		if errors.As(err, new(*session.UnreachableError)) {
			noVerdict(cfg, stderr, "the gate could not start measuring: "+err.Error())
		}
		return err
	}
	defer iv.sess[0].Close()
	defer iv.sess[1].Close()
	if err := iv.g.startInterleaved(iv.sess[0].Subs(), iv.sess[1].Subs(), iv.payloads); err != nil {
		return err
	}
	shapes := roundShapes(iv.sess[0].Subs(), cfg.Block, cfg.Pairs)
	if err := engine.CheckDuetMemory(shapes, cfg.MaxRuns, len(iv.payloads)); err != nil {
		return exit.Usagef("--max-runs %d, --block, --blocks (%s a round): %v; give fewer rounds, smaller blocks or fewer --payloads",
			cfg.MaxRuns, engine.ShapesText(iv.sess[0].Subs(), shapes), err)
	}
	iv.g.cfg.rounds = engine.ShapesText(iv.sess[0].Subs(), shapes)
	// Every input accepted: from here the report paths are this gate's.
	ended, err := pendingReports(cfg, stderr)
	if err != nil {
		return err
	}
	defer func() { ended(err) }()
	w, err := claimRounds(iv.rounds)
	if err != nil {
		return err
	}
	defer w.close()
	for _, r := range iv.plan {
		if err := claimDir(r.dir); err != nil {
			return err
		}
	}
	return iv.measure(ctx, w, shapes, start, stdout)
}

// interleave is one interleaved series as abInterleave's phases build it:
// the gate and both sides' flags (check), the folders and files it will
// write (guardFiles), then both sides' sessions (prepare).
type interleave struct {
	cfg      ABConfig
	g        *abGate
	sides    map[string][]string // each side's run flags, by side
	parsed   [2]Config           // reference, candidate
	plan     []abRun             // one run per side
	rounds   string              // the rounds file
	stderr   io.Writer
	sess     [2]*session.Session
	payloads []int
}

// check checks the interleaved design's flags, the gate's, and both sides'
// run flags (which must measure comparably through one pinger), before
// anything is measured or written.
func (iv *interleave) check() error {
	cfg := iv.cfg
	if cfg.MaxRuns < 1 {
		return exit.Usagef("--design interleave is the sequential gate's: give --max-runs N, the most rounds (each --blocks block pairs of every sub-experiment and payload)")
	}
	if cfg.Block < 0 {
		return exit.Usagef("--block %d: expected at least 1 round trip per block", cfg.Block)
	}
	if cfg.Pairs < 0 {
		return exit.Usagef("--blocks %d: expected at least 1 block pair per round", cfg.Pairs)
	}
	// The gate's own flags first, as the whole-run designs check them
	// before measuring anything.
	g, err := newABGate(cfg, cfg.MaxRuns)
	if err != nil {
		return err
	}
	sides, err := sideArgs(cfg)
	if err != nil {
		return err
	}
	for _, side := range []string{SideReference, SideCandidate} {
		if a := givenArg(append(slices.Clone(cfg.Common), sides[side]...), "samples"); a != "" {
			return exit.Usagef("%s: with --design interleave a side measures --blocks blocks of --block round trips per round and payload, and --max-runs rounds at most; give those", a)
		}
	}
	if iv.parsed, err = parseSides(cfg, sides, sharedPinger); err != nil {
		return err
	}
	g.unpinned = strings.TrimSpace(iv.parsed[0].CPUs) == "none"
	iv.g, iv.sides = g, sides
	return nil
}

// guardFiles lays out each side's one run, experiment name, in --out and
// refuses, before anything is written, an experiment or rounds file that
// exists or cannot be written and report files that would clash with them.
func (iv *interleave) guardFiles(name string) error {
	cfg := iv.cfg
	for i, side := range []string{SideReference, SideCandidate} {
		// The side's results root, as the whole-run designs give each run
		// --out: meta.json records it.
		iv.parsed[i].Out = filepath.Join(cfg.Out, side)
		dir := filepath.Join(iv.parsed[i].Out, name)
		if err := atomicfile.CheckDir(iv.parsed[i].Out); err != nil {
			return exit.Usagef("--out: %v", err)
		}
		if err := iv.parsed[i].guardExperiment(dir); err != nil {
			return err
		}
		iv.plan = append(iv.plan, abRun{unit: 1, pos: i + 1, side: side, n: 1, dir: dir})
	}
	iv.rounds = filepath.Join(cfg.Out, name+RoundsSuffix)
	if _, err := os.Lstat(iv.rounds); err == nil {
		return exit.Usagef("rounds file %s exists already; choose another --name or --out", iv.rounds)
	}
	if err := atomicfile.CheckFile(iv.rounds); err != nil {
		return exit.Usagef("--out: %v", err)
	}
	return guardReports(cfg, iv.plan, iv.rounds)
}

// prepare prepares both sides' sessions, their echo processes writing to
// iv.stderr, each discarding a round's warm-up unless its flags give
// --warmup. When one fails, those prepared are closed.
func (iv *interleave) prepare(ctx context.Context) (err error) {
	defer func() {
		if err != nil {
			for i := len(iv.sess) - 1; i >= 0; i-- {
				if iv.sess[i] != nil {
					iv.sess[i].Close()
				}
			}
		}
	}()
	for i := range iv.sess {
		side := iv.plan[i].side
		sc, err := sessionConfig(iv.parsed[i])
		if err != nil {
			return exit.With(exit.Usage, fmt.Errorf("%s side: %w", side, err))
		}
		sc.EchoStderr = iv.stderr
		if givenArg(append(slices.Clone(iv.cfg.Common), iv.sides[side]...), "warmup") == "" {
			sc.Engine.Warmup = roundWarmup(sc.Scenarios)
		}
		s, err := session.Prepare(ctx, sc)
		if err != nil {
			if errors.Is(err, engine.ErrInterrupted) {
				return exit.With(exit.Interrupted, err)
			}
			return exit.With(exit.Usage, fmt.Errorf("%s side: %w", side, err))
		}
		iv.sess[i] = s
		iv.payloads = sc.Engine.WithDefaults().Payloads
	}
	return nil
}

// measure runs the rounds (session.RunDuet) in shapes, writing each
// round's rows to w and feeding the gate after it, and once the gate or
// the rounds end writes its result to stdout.
func (iv *interleave) measure(ctx context.Context, w *roundsWriter, shapes []engine.DuetShape, start time.Time, stdout io.Writer) error {
	g, plan, stderr := iv.g, iv.plan, iv.stderr
	fmt.Fprintln(stderr, g.opening(iv.rounds))
	g.began = time.Now()
	outs := [2]session.Output{}
	for i, r := range plan {
		outs[i] = session.Output{Dir: r.dir, Meta: iv.parsed[i].meta("run", r.dir, start)}
	}
	scale := 1e-3 // ns to µs
	if iv.parsed[0].Session.Engine.Latency == meta.LatencyHalfRTT {
		scale /= 2
	}
	d := engine.Duet{Shapes: shapes, Rounds: iv.cfg.MaxRuns, Seed: iv.cfg.Seed,
		Round: func(round int, bs []engine.DuetUnit) (bool, error) {
			la, lb, rows, err := g.roundValues(round, bs, scale)
			if err != nil {
				return false, err
			}
			if err := w.write(rows); err != nil {
				return false, err
			}
			g.runs = round
			return g.feed(la, lb, stderr)
		},
		// A slow first round (a broker holding small packets for Nagle's
		// algorithm: minutes a round) is said when its warm-up shows it,
		// not after it.
		Notice: func(s string) { fmt.Fprintln(stderr, "ab: warning: "+s) }}
	if err := session.RunDuet(ctx, iv.sess[0], iv.sess[1], outs[0], outs[1], d); err != nil {
		code := exit.Code(err)
		switch {
		case errors.Is(err, engine.ErrInterrupted):
			code = exit.Interrupted
		case code == exit.Usage && !errors.As(err, new(*engine.StopError)):
			return exit.With(exit.Usage, err)
		}
		return exit.With(code, fmt.Errorf("%w; the block pairs measured so far are in %s and %s (meta.json marks them incomplete)", err, plan[0].dir, plan[1].dir))
	}
	if err := w.close(); err != nil {
		return exit.Usagef("rounds file %s: %v", iv.rounds, err)
	}
	return g.finish(stdout)
}

// roundWarmup returns the warm-up round trips of each link and payload a
// round discards for the sub-experiments named: DefaultBrokerRoundWarmup
// when one of them goes through a broker, else DefaultRoundWarmup.
func roundWarmup(subs []string) int {
	for _, name := range subs {
		if sc, ok := driver.ScenarioOf(name); ok && isBroker(sc.Transport) {
			return DefaultBrokerRoundWarmup
		}
	}
	return DefaultRoundWarmup
}

// roundShapes returns each sub-experiment's blocks in a round: --block
// and --blocks where given (block and pairs above 0), else by where its
// far end is (DefaultBlock and DefaultRoundTrips; DefaultBrokerBlock and
// DefaultBrokerRoundTrips through a broker; DefaultInProcessBlock and
// DefaultPairs in this process), the pairs
// making up the round trips of the default when only --block is given.
func roundShapes(subs []engine.Sub, block, pairs int) []engine.DuetShape {
	out := make([]engine.DuetShape, len(subs))
	for i, sub := range subs {
		b, trips := DefaultBlock, DefaultRoundTrips
		switch {
		case sub.Echo == engine.EchoInProcess:
			b, trips = DefaultInProcessBlock, DefaultInProcessBlock*DefaultPairs
		case isBroker(sub.Transport):
			b, trips = DefaultBrokerBlock, DefaultBrokerRoundTrips
		}
		if block > 0 {
			b = block
		}
		p := pairs
		if p == 0 {
			p = max(1, (trips+b-1)/b)
		}
		out[i] = engine.DuetShape{Block: b, Pairs: p}
	}
	return out
}

// isBroker reports whether the driver named goes through a broker.
func isBroker(transport string) bool {
	t, err := driver.Lookup(transport)
	return err == nil && driver.IsBroker(t)
}

// sharedPinger refuses sides whose pingers would differ: the interleaved
// design measures both with one pinger, so what it sends, how long it
// waits and where it runs are common to both sides.
func sharedPinger(cfg ABConfig, ref, cand Config) error {
	a, b := ref.Session.Engine, cand.Session.Engine
	type setting struct {
		flag string
		a, b any
	}
	for _, s := range []setting{
		{"--payloads", ref.Payloads, cand.Payloads},
		{"--warmup", a.Warmup, b.Warmup},
		{"--timeout", a.Timeout, b.Timeout},
		{"--max-lost-in-row", a.MaxLostInRow, b.MaxLostInRow},
		{"--fill", a.Fill, b.Fill},
		{"--seed", a.Seed, b.Seed},
		{"--cpus", ref.CPUs, cand.CPUs},
	} {
		if s.a != s.b {
			return exit.Usagef("--reference %q and --candidate %q: %s differs (%v and %v), but with --design interleave one pinger measures both sides: "+
				"give %s to both sides, after --, or use --design random", cfg.Reference, cfg.Candidate, s.flag, s.a, s.b, s.flag)
		}
	}
	return nil
}

// givenArg returns the first of args that gives one of the flags named
// (without dashes), "" when none does.
func givenArg(args []string, names ...string) string {
	for _, a := range args {
		flag, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && slices.Contains(names, flag) {
			return a
		}
	}
	return ""
}

// sideArgs splits each side's run flags and refuses two sides alike.
func sideArgs(cfg ABConfig) (map[string][]string, error) {
	sides := map[string][]string{}
	lines := map[string]string{SideReference: cfg.Reference, SideCandidate: cfg.Candidate}
	for _, side := range []string{SideReference, SideCandidate} {
		args, err := splitCommand(lines[side])
		if err != nil {
			return nil, exit.Usagef("--%s: %v", side, err)
		}
		sides[side] = args
	}
	if slices.Equal(sides[SideReference], sides[SideCandidate]) {
		return nil, exit.Usagef("--reference %q and --candidate %q: the two sides are the same system; give each side's flags (e.g. --echo-command or --target)",
			cfg.Reference, cfg.Candidate)
	}
	return sides, nil
}

// startInterleaved sets the family of checks of an interleaved gate: every
// sub-experiment of subs, payload and gated column, in the order the
// rounds measure them, then with --cpu-margin an echo CPU check per
// sub-experiment whose echo ends on both sides (subs and other) are
// processes of their own.
func (g *abGate) startInterleaved(subs, other []engine.Sub, payloads []int) error {
	var checks []paired.Check
	var origins []pairing.Origin
	for _, s := range subs {
		for _, p := range payloads {
			for _, m := range g.cfg.Metrics {
				if m.Unit != result.UnitMicroseconds {
					return exit.Usagef("--columns %s: an interleaved gate judges latency columns (%s)", m.Name, result.Names(result.CompareMetrics))
				}
				o := pairing.Origin{SubExperiment: s.Type, Key: result.Key{Payload: p}, Metric: m}
				checks = append(checks, paired.Check{Name: o.Label(), HigherIsBetter: m.Better == result.HigherIsBetter})
				origins = append(origins, o)
			}
		}
	}
	if g.cfg.CPUMargin > 0 && g.unpinned {
		g.cpuNote = "no checks with --cpus none: an unpinned echo process's CPU time holds the Go runtime's idle spinning on the other CPUs, which varies with the scheduling (an echo with GOMAXPROCS=1 measured ×0.69 of one without, unpinned; ×1.00 pinned)"
	}
	if g.cfg.CPUMargin > 0 && !g.unpinned {
		var none []string
		for i, s := range subs {
			if !ownProcesses(s, other[i]) {
				none = append(none, s.Type)
				continue
			}
			checks = append(checks, paired.Check{Name: s.Type + " echo CPU/message"})
			origins = append(origins, pairing.Origin{SubExperiment: s.Type, Metric: EchoCPU})
		}
		if len(none) > 0 {
			g.cpuNote = fmt.Sprintf("no check for %s: its echo ends are not processes of their own that this run starts (in process, remote or a broker), so their CPU time cannot be told apart",
				strings.Join(none, ", "))
		}
	}
	return g.start(checks, origins)
}

// ownProcesses reports whether both sides' echo ends of a sub-experiment
// are processes this run starts, whose CPU time can be read.
func ownProcesses(a, b engine.Sub) bool {
	return a.Echo == engine.EchoSubprocess && b.Echo == engine.EchoSubprocess && runtime.GOOS == "linux"
}

// roundValues turns one round's block pairs into the gate's unit: per
// check the log of each block's column, and the rows of the rounds file.
// scale turns nanoseconds of round trip into the run's latency in µs.
func (g *abGate) roundValues(round int, bs []engine.DuetUnit, scale float64) (la, lb []float64, rows [][]string, err error) {
	var sc stats.Scratch
	summary := func(ns []int64) result.SummaryRow {
		x := make([]float64, len(ns))
		for i, v := range ns {
			x[i] = float64(v) * scale
		}
		return result.SummaryRow{Summary: stats.Summarize(x, &sc)}
	}
	k := 0
	// cpu sums each sub-experiment's echo CPU over its payloads.
	cpu := map[string]engine.DuetCPU{}
	for _, b := range bs {
		sa, sb := summary(b.A), summary(b.B)
		first := strconv.Itoa(b.AFirst)
		cpuA, cpuB := "", ""
		if c := b.CPU; c != nil {
			cpuA, cpuB = perMessage(c.A, c.AMessages), perMessage(c.B, c.BMessages)
			sum := cpu[b.Type]
			sum.A, sum.B = sum.A+c.A, sum.B+c.B
			sum.AMessages, sum.BMessages = sum.AMessages+c.AMessages, sum.BMessages+c.BMessages
			cpu[b.Type] = sum
		}
		for _, m := range g.cfg.Metrics {
			if k >= len(g.origins) || g.origins[k].SubExperiment != b.Type || g.origins[k].Key.Payload != b.Payload {
				return nil, nil, nil, fmt.Errorf("round %d: block pair %s %d B out of the gate's order", round, b.Type, b.Payload)
			}
			va, _ := sa.Get(m.Name)
			vb, _ := sb.Get(m.Name)
			if !(va > 0) || !(vb > 0) || math.IsInf(va, 0) || math.IsInf(vb, 0) {
				return nil, nil, nil, exit.Usagef("round %d: %s: %v and %v µs: expected positive values (no round trip of a block kept?)", round, g.origins[k].Label(), va, vb)
			}
			la, lb = append(la, math.Log(va)), append(lb, math.Log(vb))
			rows = append(rows, []string{strconv.Itoa(round), b.Type, strconv.Itoa(b.Payload), first, m.Name,
				strconv.FormatFloat(va, 'f', 3, 64), strconv.FormatFloat(vb, 'f', 3, 64), result.UnitMicroseconds, cpuA, cpuB})
			k++
		}
	}
	for ; k < len(g.origins) && g.isCPU(k); k++ {
		o := g.origins[k]
		c := cpu[o.SubExperiment]
		if c.AMessages == 0 || c.BMessages == 0 || c.A <= 0 || c.B <= 0 {
			return nil, nil, nil, exit.Usagef("round %d: %s: the echo processes' CPU time could not be read (a process or thread gone, or no round trip completed)", round, o.SubExperiment+" echo CPU/message")
		}
		va, vb := float64(c.A)/float64(c.AMessages), float64(c.B)/float64(c.BMessages)
		la, lb = append(la, math.Log(va)), append(lb, math.Log(vb))
		rows = append(rows, []string{strconv.Itoa(round), o.SubExperiment, "", "", EchoCPU.Name,
			strconv.FormatFloat(va, 'f', 1, 64), strconv.FormatFloat(vb, 'f', 1, 64), EchoCPU.Unit, "", ""})
	}
	if k != len(g.origins) {
		return nil, nil, nil, fmt.Errorf("round %d measured %d checks of %d", round, k, len(g.origins))
	}
	return la, lb, rows, nil
}

// perMessage is CPU time per message in ns, for the rounds file; empty
// when no message was echoed.
func perMessage(t time.Duration, messages int) string {
	if messages == 0 {
		return ""
	}
	return strconv.FormatFloat(float64(t)/float64(messages), 'f', 1, 64)
}

// roundsWriter appends rows to the rounds file as the rounds come in: the
// file is new (created O_EXCL), so appending replaces nothing.
type roundsWriter struct {
	f  *os.File
	cw *csv.Writer
}

// claimRounds creates the rounds file, which must not exist, with its
// header.
func claimRounds(path string) (*roundsWriter, error) {
	f, err := createExclusive(path, "rounds file", "; choose another --name or --out")
	if err != nil {
		return nil, err
	}
	w := &roundsWriter{f: f, cw: csv.NewWriter(f)}
	if err := w.write([][]string{roundsHeader}); err != nil {
		w.close()
		os.Remove(path)
		return nil, exit.Usagef("rounds file: cannot write %s: %v", path, err)
	}
	return w, nil
}

func (w *roundsWriter) write(rows [][]string) error {
	if err := w.cw.WriteAll(rows); err != nil {
		return fmt.Errorf("rounds file %s: %w", w.f.Name(), fileerr.Cause(err))
	}
	return nil
}

// close closes the file once; later calls return nil.
func (w *roundsWriter) close() error {
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}
