package engine

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats"
)

const (
	// window is how many recent round trips the live percentiles are
	// computed over.
	window = 2048
	// liveEvery paces the status line on a terminal; logEvery the progress
	// lines of a log (CI), where a run was otherwise silent for minutes.
	liveEvery = 200 * time.Millisecond
	logEvery  = 5 * time.Second
	// A sub-experiment whose first warnAfter predict more than warnOver
	// still to go is said so once, with the likely cause.
	warnAfter = 3 * time.Second
	warnOver  = 10 * time.Minute
)

// progress is the state of the progress lines of one run.
type progress struct {
	subStart, payloadStart, lastLine time.Time
	warned                           bool
}

// now is the runner's clock (tests set it).
func (r *Runner) now() time.Time {
	if r.clock != nil {
		return r.clock()
	}
	return time.Now()
}

// tick reports progress within a payload: a live status line on a
// terminal, a line every logEvery in a log, and once per sub-experiment a
// warning when the rest of it would take more than warnOver. done 0 starts
// a payload.
func (r *Runner) tick(typ string, payload, done, total int, rtt []int64, cfg Config) {
	now := r.now()
	idx := max(0, slices.Index(cfg.Payloads, payload))
	p := &r.prog
	if done == 0 {
		p.payloadStart = now
		if idx == 0 {
			p.subStart, p.lastLine, p.warned = now, now, false
		}
		if r.Terminal {
			fmt.Fprintf(r.Progress, "\r\x1b[K%s  %d B  0/%s", typ, payload, result.Count(total))
		}
		return
	}
	el := now.Sub(p.payloadStart).Seconds()
	if el <= 0 {
		return
	}
	rate := float64(done) / el
	left := (total - done) + (len(cfg.Payloads)-idx-1)*total
	eta := time.Duration(float64(left) / rate * float64(time.Second))
	// Warm-up round trips are not kept: no percentiles yet.
	p50, p99 := "warm-up", ""
	var med float64
	if len(rtt) > 0 {
		w := micros(driver.PayloadResult{Nanos: rtt[max(0, len(rtt)-window):]}, perMicro(cfg))
		slices.Sort(w)
		med = stats.Percentile(w, 50)
		p50, p99 = "p50 "+result.Micros(med), "  p99 "+result.Micros(stats.Percentile(w, 99))
	}
	if !p.warned && now.Sub(p.subStart) >= warnAfter && eta > warnOver {
		p.warned = true
		if r.Terminal {
			fmt.Fprint(r.Progress, "\r\x1b[K")
		}
		fmt.Fprintln(r.Progress, slowWarning(typ, med, el/float64(done)*1e6, rate, left, eta))
	}
	line := fmt.Sprintf("%s  %d B (payload %d of %d)  %s/%s  %s/s  %s%s  ETA %s",
		typ, payload, idx+1, len(cfg.Payloads), result.Count(done), result.Count(total), result.Thousands(rate), p50, p99, result.Remaining(eta))
	switch {
	case r.Terminal:
		fmt.Fprintf(r.Progress, "\r\x1b[K%s", line)
	case now.Sub(p.lastLine) >= logEvery:
		p.lastLine = now
		fmt.Fprintln(r.Progress, "progress: "+line)
	}
}

// slowWarning says that a sub-experiment will take long, and why it may:
// p50 is the kept samples' median latency (0 in the warm-up), each the
// mean time per round trip so far, both in µs.
func slowWarning(typ string, p50, each, rate float64, left int, eta time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "warning: %s: %s round trips/s", typ, result.Thousands(rate))
	if p50 > 0 {
		fmt.Fprintf(&b, " (p50 %s)", result.Micros(p50))
	}
	fmt.Fprintf(&b, ": the %s round trips still to go take about %s", result.Count(left), result.Remaining(eta))
	if each >= 15_000 && each <= 90_000 {
		b.WriteString("; a latency near 20 or 40 ms on a fast link is often the mark of Nagle's algorithm meeting delayed ACKs (an end or a broker that does not set TCP_NODELAY)")
	}
	b.WriteString("; lower --samples or --payloads, or stop with Ctrl-C (what was measured is kept)")
	return b.String()
}

// perMicro divides a round trip in ns into cfg's latency in µs.
func perMicro(cfg Config) float64 {
	if cfg.Latency == meta.LatencyRTT {
		return 1000
	}
	return 2000
}

// report prints the line that closes a sub-experiment and a table of every
// payload measured: samples, min, p50, p90, p99, max.
func (r *Runner) report(cfg Config, s Sub, res subResult, err error) {
	if r.Progress == nil {
		return
	}
	var kept int
	var lost, dup, ooo, other uint64
	for _, p := range res.payloads {
		kept += len(p.Nanos)
		lost += p.Counts.Lost
		dup += p.Counts.Duplicates
		ooo += p.Counts.OutOfOrder
		other += p.Counts.OtherRuns
	}
	if r.Terminal {
		fmt.Fprint(r.Progress, "\r\x1b[K")
	}
	status := "done"
	if err != nil {
		status = "STOPPED"
	}
	rate := 0.0
	if res.elapsed > 0 {
		rate = float64(kept) / res.elapsed.Seconds()
	}
	others := ""
	if other > 0 {
		others = ", " + result.Count(other) + " of another run"
	}
	fmt.Fprintf(r.Progress, "%-38s %s: %d payloads, %s samples, %s lost, %s duplicates, %s out of order%s, %s samples/s, %s\n",
		s.Type, status, len(res.payloads), result.Count(kept), result.Count(lost), result.Count(dup), result.Count(ooo), others, result.Thousands(rate), result.Elapsed(res.elapsed))
	fmt.Fprint(r.Progress, r.payloadTable(cfg, res))
	fmt.Fprint(r.Progress, otherRunsWarning(s, other))
	fmt.Fprint(r.Progress, driver.Advice(res.meta, res.payloads))
}

// otherRunsWarning says, when messages of another run came to s's pinger,
// that another run shares its topic and what that does to the counts;
// empty when none came.
func otherRunsWarning(s Sub, other uint64) string {
	if other == 0 {
		return ""
	}
	topic := ""
	if s.Topic != "" {
		topic = " " + s.Topic
	}
	return fmt.Sprintf("warning: %s: %s messages of another run came on topic%s and were ignored (meta.json other_runs): "+
		"another run shares the topic; its echo end echoes this run's messages too, whose second echoes count as duplicates, "+
		"and both runs load the same broker. Give each run its own topic (run picks one per run unless --topic)\n",
		s.Type, result.Count(other), topic)
}

// payloadTable is the closing table of a sub-experiment's payloads, the
// latency in the run's definition (meta.json "latency"), which its header
// names; empty when no payload has a sample.
func (r *Runner) payloadTable(cfg Config, res subResult) string {
	var b strings.Builder
	for _, p := range res.payloads {
		if len(p.Nanos) == 0 {
			continue
		}
		if b.Len() == 0 {
			fmt.Fprintf(&b, "  %9s %9s %10s %10s %10s %10s %10s  (%s)\n", "payload", "samples", "min", "p50", "p90", "p99", "max", latencyWords(cfg))
		}
		x := micros(p, perMicro(cfg))
		slices.Sort(x)
		fmt.Fprintf(&b, "  %9s %9s %10s %10s %10s %10s %10s\n", fmt.Sprintf("%d B", p.Counts.Bytes), result.Count(len(x)),
			result.Micros(x[0]), result.Micros(stats.Percentile(x, 50)), result.Micros(stats.Percentile(x, 90)),
			result.Micros(stats.Percentile(x, 99)), result.Micros(x[len(x)-1]))
	}
	return b.String()
}

// latencyWords names what the latencies of cfg's samples are, as meta.json
// states it: the half or the whole round trip, or one way.
func latencyWords(cfg Config) string {
	def := cfg.Latency
	if cfg.Workload != nil {
		def = cfg.Workload.Latency(cfg)
	}
	switch def {
	case meta.LatencyRTT:
		return "round trip"
	case meta.LatencyOneWay:
		return "one way"
	}
	return "half round trip"
}
