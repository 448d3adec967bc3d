package synth

import (
	"cmp"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/result"
)

// GenerateOptions shape the experiments that Generate writes.
type GenerateOptions struct {
	// Seed makes the output reproducible: equal options, equal files.
	Seed uint64
	// Types are the sub-experiments; driver.BuiltinTypes() when empty.
	Types []string
	// Payloads in bytes; DefaultPayloads when empty.
	Payloads []int
	// Start is the first experiment's start (2024-01-01 UTC when zero) and
	// Interval the time between experiments (one day when zero). Folders are
	// named after the start time, YYYY-MM-DD_HH-MM-SS.
	Start    time.Time
	Interval time.Duration
	// Meta writes a meta.json into every experiment, with the start time, a
	// commit and, every tenth experiment, a release version.
	Meta bool
	// Gaps is the probability that an experiment lacks a sub-experiment, and
	// that a present sub-experiment lacks a payload.
	Gaps float64
	// Steady leaves out the drift and the temporary step regressions: the
	// experiments differ by noise alone (4 % on medians), as repeated runs
	// of an unchanged system.
	Steady bool
	// Slowdown, when above 0, multiplies every latency of the experiments
	// from SlowFrom (0-based) on: a known, lasting regression.
	Slowdown float64
	SlowFrom int
}

// Generate writes n experiment folders into dir, each holding one
// measurements_<type>_summary.csv per sub-experiment (and meta.json when
// opt.Meta is set), and returns the folders in chronological order.
//
// Latencies follow a plausible history: a base per sub-experiment (in-process
// fastest, then UDP, TCP, and security costing more) that grows with the
// payload, a slow random drift, a few step regressions that later recover,
// and noise; tails are heavier than medians. Requirements for these values
// come from history.GenerateRequirements.
func Generate(dir string, n int, opt GenerateOptions) ([]string, error) {
	opt = opt.WithDefaults()
	rng := rand.New(rand.NewPCG(opt.Seed, 0x6d71676174652068))
	dirs := make([]string, 0, n)
	drift, step, stepLeft := 1.0, 1.0, 0
	for i := 0; i < n; i++ {
		start := opt.Start.Add(time.Duration(i) * opt.Interval)
		name := start.Format(experiment.DirTimeLayout)
		d := filepath.Join(dir, name)
		// A slow random walk, kept within ±30 %.
		drift = math.Min(1.3, math.Max(0.7, drift*(1+0.02*rng.NormFloat64())))
		if stepLeft == 0 && rng.Float64() < 0.03 {
			step, stepLeft = 1.3+0.4*rng.Float64(), 2+rng.IntN(6)
		}
		if stepLeft > 0 {
			stepLeft--
		} else {
			step = 1
		}
		if opt.Steady {
			drift, step = 1, 1
		}
		if opt.Slowdown > 0 && i >= opt.SlowFrom {
			step *= opt.Slowdown
		}
		for _, typ := range opt.Types {
			if rng.Float64() < opt.Gaps {
				continue
			}
			rows := make([]result.SummaryRow, 0, len(opt.Payloads))
			for _, b := range opt.Payloads {
				if rng.Float64() < opt.Gaps {
					continue
				}
				med := BaseLatency(typ, b) * drift * step * (1 + 0.04*rng.NormFloat64())
				rows = append(rows, syntheticRow(b, med, rng))
			}
			if err := result.WriteSummaryFile(filepath.Join(d, experiment.SummaryFileName(typ)), rows); err != nil {
				return nil, err
			}
		}
		if opt.Meta {
			m := &meta.Meta{
				Tool:       meta.Tool{Name: "mqgate", Version: "generated"},
				Experiment: name,
				Start:      start,
				End:        start.Add(10 * time.Minute),
				Completed:  true,
				System:     meta.System{Name: "mqgate-builtin", Commit: commitOf(opt.Seed, i)},
				Latency:    meta.LatencyHalfRTT,
			}
			if i%10 == 0 {
				m.System.Version = fmt.Sprintf("v1.%d.0", i/10)
			}
			if err := meta.Write(filepath.Join(d, meta.FileName), m); err != nil {
				return nil, err
			}
		}
		dirs = append(dirs, d)
	}
	return dirs, nil
}

// WithDefaults fills in the defaults of the fields left zero.
func (o GenerateOptions) WithDefaults() GenerateOptions {
	o.Types, o.Payloads = orElse(o.Types, driver.BuiltinTypes()), orElse(o.Payloads, DefaultPayloads)
	if o.Start.IsZero() {
		o.Start = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	o.Interval = cmp.Or(o.Interval, 24*time.Hour)
	return o
}

// BaseLatency is the typical median latency in µs of a sub-experiment type
// and payload.
func BaseLatency(typ string, bytes int) float64 {
	base := 20.0
	switch {
	case strings.HasPrefix(typ, "intraprocess"):
		base = 4
	case strings.Contains(typ, "_tcp"):
		base = 35
	}
	if strings.Contains(typ, "_reliable") {
		base *= 1.15
	}
	if strings.HasSuffix(typ, "_security") {
		base *= 1.6
	}
	return base * (1 + float64(bytes)/4096)
}

// syntheticRow returns a consistent summary row around the median med.
func syntheticRow(bytes int, med float64, rng *rand.Rand) result.SummaryRow {
	tail := 1 + 0.1*math.Abs(rng.NormFloat64())
	return result.SummaryRow{
		Bytes: bytes,
		Summary: result.Summary{
			Samples:    10000,
			Min:        med * (0.85 + 0.05*rng.Float64()),
			Median:     med,
			Mean:       med * 1.1,
			Stdev:      med * 0.3,
			MeanJitter: med * 0.05,
			MaxJitter:  med * 5,
			P90:        med * 1.4,
			P99:        med * 2.5 * tail,
			P9999:      med * 6 * tail,
			Max:        med * (8 + 4*rng.Float64()) * tail,
		},
	}
}

// commitOf is a fake, stable 40-hex-digit commit.
func commitOf(seed uint64, i int) string {
	h := sha1.Sum([]byte(strconv.FormatUint(seed, 10) + "/" + strconv.Itoa(i)))
	return hex.EncodeToString(h[:])
}
