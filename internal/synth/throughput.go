package synth

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/result"
)

// ThroughputSpec describes throughput runs to generate: one
// throughput_<type>.csv (formats §9) per run, one row per payload and
// offered load, with log-normal run-to-run noise.
type ThroughputSpec struct {
	Types    []string // sub-experiments ("intraprocess_best_effort" if empty)
	Payloads []int    // 16 and 1024 if empty
	// Loads are the rows' mode and offered load (Payload and the rest
	// ignored); one window row if empty.
	Loads []result.ThroughputRow
	// Base is the median msg/s of the first payload (100000 if 0); larger
	// payloads get less.
	Base float64
	// Factor multiplies every throughput (1 if 0): below 1 fakes a
	// regression.
	Factor float64
	// SD is the standard deviation of the log run-to-run noise, one draw
	// per run and row.
	SD   float64
	Seed uint64
	// Start is the first run's start time (meta.json); run i starts i
	// hours later. Commit, when set, is written as the system's commit
	// with the run number appended.
	Start  time.Time
	Commit string
}

// WriteThroughputRuns writes runs run-<first>…run-<first+n−1> of s under
// root, each with a completed meta.json, and returns their directories.
// Run i draws its noise from (s.Seed, i), so the same run is the same
// whatever n.
func WriteThroughputRuns(root string, s ThroughputSpec, first, n int) ([]string, error) {
	types, payloads := orElse(s.Types, []string{"intraprocess_best_effort"}), orElse(s.Payloads, []int{16, 1024})
	loads := orElse(s.Loads, []result.ThroughputRow{{Mode: result.ModeWindow, Offered: 100}})
	base, factor := cmp.Or(s.Base, 100000), cmp.Or(s.Factor, 1)
	start := s.Start
	if start.IsZero() {
		start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	var dirs []string
	for i := first; i < first+n; i++ {
		dir := filepath.Join(root, fmt.Sprintf("run-%03d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		rng := rand.New(rand.NewPCG(s.Seed, uint64(i)))
		for ti, typ := range types {
			var rows []result.ThroughputRow
			for pi, p := range payloads {
				for _, l := range loads {
					m := base / (1 + float64(pi)) / (1 + float64(ti)) * factor * math.Exp(s.SD*rng.NormFloat64())
					m = math.Round(m*1000) / 1000
					rows = append(rows, result.ThroughputRow{Payload: p, Mode: l.Mode, Offered: l.Offered, Samples: 100,
						Median: m, Mean: m, Stdev: math.Round(m*50) / 1000})
				}
			}
			if err := result.WriteThroughputFile(filepath.Join(dir, experiment.ThroughputFileName(typ)), rows); err != nil {
				return nil, err
			}
		}
		m := &meta.Meta{Experiment: filepath.Base(dir), Start: start.Add(time.Duration(i) * time.Hour), Completed: true,
			Latency: meta.LatencyOneWay, System: meta.System{Name: "synthetic"}}
		m.End = m.Start.Add(time.Minute)
		if s.Commit != "" {
			m.System.Commit = fmt.Sprintf("%s%03d", s.Commit, i)
		}
		if err := meta.Write(filepath.Join(dir, meta.FileName), m); err != nil {
			return nil, err
		}
		dirs = append(dirs, dir)
	}
	return dirs, nil
}
