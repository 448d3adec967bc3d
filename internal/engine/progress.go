package engine

import (
	"fmt"
	"slices"
	"time"

	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/stats"
)

// window is how many recent round trips the live p99 is computed over.
const window = 2048

// tick rewrites the live status line; done 0 starts a payload.
func (r *Runner) tick(typ string, payload, done, total int, rtt []int64, cfg Config) {
	if done == 0 {
		r.tickStart = time.Now()
	}
	rate := 0.0
	if el := time.Since(r.tickStart).Seconds(); el > 0 {
		rate = float64(done) / el
	}
	p99 := "-"
	if len(rtt) > 0 {
		w := make([]float64, 0, window)
		for _, ns := range rtt[max(0, len(rtt)-window):] {
			w = append(w, r.latency(ns, cfg))
		}
		slices.Sort(w)
		p99 = fmt.Sprintf("%.1f µs", stats.Percentile(w, 99))
	}
	fmt.Fprintf(r.Progress, "\r\x1b[K%s  %d B  %d/%d  %.0f/s  p99 %s", typ, payload, done, total, rate, p99)
}

func (r *Runner) latency(ns int64, cfg Config) float64 {
	if cfg.Latency == meta.LatencyRTT {
		return float64(ns) / 1000
	}
	return float64(ns) / 2000
}

// report prints the line that closes a sub-experiment.
func (r *Runner) report(cfg Config, s Sub, res subResult, err error) {
	if r.Progress == nil {
		return
	}
	var kept int
	var lost, dup, ooo uint64
	var all []float64
	for _, p := range res.payloads {
		kept += len(p.Nanos)
		lost += p.Counts.Lost
		dup += p.Counts.Duplicates
		ooo += p.Counts.OutOfOrder
		if p.Counts.Bytes == cfg.Payloads[0] {
			for _, ns := range p.Nanos {
				all = append(all, r.latency(ns, cfg))
			}
		}
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
	line := fmt.Sprintf("%-38s %s: %d payloads, %d samples, %d lost, %d duplicates, %d out of order, %.0f samples/s, %s",
		s.Type, status, len(res.payloads), kept, lost, dup, ooo, rate, res.elapsed.Round(time.Millisecond))
	if len(all) > 0 {
		slices.Sort(all)
		line += fmt.Sprintf("; %d B p50 %.2f µs p99 %.2f µs", cfg.Payloads[0], stats.Percentile(all, 50), stats.Percentile(all, 99))
	}
	fmt.Fprintln(r.Progress, line)
}
