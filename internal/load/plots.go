package load

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mqgate/mqgate/internal/plots"
)

// PlotsDir is the folder of a load run's figures in the experiment.
const PlotsDir = "load"

// Plot draws, for each payload of typ, its latency percentiles and its
// send and receive rates against time (one point per interval), into
// dir/PlotsDir, and returns the paths.
func Plot(dir, typ string, res []PayloadResult) ([]string, error) {
	d := filepath.Join(dir, PlotsDir)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return nil, err
	}
	var out []string
	for _, p := range res {
		var cats []string
		var p50, p99, p999, mx, sent, recv []float64
		for _, t := range p.Ticks {
			if t.Period <= 0 {
				continue
			}
			label := strconv.FormatFloat(t.Elapsed.Seconds(), 'f', 1, 64)
			if t.Drain {
				label += " (drain)"
			}
			cats = append(cats, label)
			st := StatsOf(t.Latency, 0)
			p50, p99, p999, mx = append(p50, micros(st.P50Ns)), append(p99, micros(st.P99Ns)), append(p999, micros(st.P999Ns)),
				append(mx, micros(st.MaxNs))
			if t.Drain { // nothing is sent while draining
				sent = append(sent, math.NaN())
			} else {
				sent = append(sent, float64(t.Delta.MessagesSent)/t.Period.Seconds())
			}
			recv = append(recv, float64(t.Delta.MessagesReceived)/t.Period.Seconds())
		}
		if len(cats) == 0 {
			continue
		}
		lat := plots.CategoryLines(fmt.Sprintf("%s %d B: one-way latency per interval", typ, p.Payload), "Time since the measured period began [s]",
			"Latency [µs]", cats, []plots.Line{{Name: "p50", Y: p50}, {Name: "p99", Y: p99}, {Name: "p99.9", Y: p999}, {Name: "max", Y: mx}})
		path := filepath.Join(d, fmt.Sprintf("%s_%d_latency.png", typ, p.Payload))
		if err := plots.Save(lat, path, plots.FormatPNG); err != nil {
			return out, err
		}
		out = append(out, path)
		rate := plots.CategoryLines(fmt.Sprintf("%s %d B: rates per interval", typ, p.Payload), "Time since the measured period began [s]",
			"Messages per second", cats, []plots.Line{{Name: "sent", Y: sent}, {Name: "received", Y: recv}})
		path = filepath.Join(d, fmt.Sprintf("%s_%d_rates.png", typ, p.Payload))
		if err := plots.Save(rate, path, plots.FormatPNG); err != nil {
			return out, err
		}
		out = append(out, path)
	}
	return out, nil
}
