package throughput

import (
	"path/filepath"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/result"
)

// LoadRows turns the payloads of a load run with cfg into throughput rows
// (mode rate, Offered the rate per publisher): the samples are the receive
// rates of the whole intervals of the measured period (unique deliveries
// are not known per interval, so received messages, duplicates included,
// count); a shorter last interval is left out, as cfg.RateWindows counts,
// unless the period is shorter than one interval (it counted as much as a
// whole one in the median, mean and stdev).
func LoadRows(cfg load.Config, res []load.PayloadResult) []result.ThroughputRow {
	var rows []result.ThroughputRow
	partial := cfg.Duration%cfg.Interval != 0 && cfg.Duration > cfg.Interval
	for _, p := range res {
		pt := Point{Payload: p.Payload, Rate: cfg.Rate}
		for _, t := range p.Ticks {
			if t.Drain || t.Period <= 0 {
				continue
			}
			pt.Samples = append(pt.Samples, float64(t.Delta.MessagesReceived)/t.Period.Seconds())
		}
		if partial && len(pt.Samples) > cfg.RateWindows() {
			pt.Samples = pt.Samples[:cfg.RateWindows()]
		}
		pt.Summarise()
		rows = append(rows, RowOf(pt))
	}
	return rows
}

// WriteLoadSummary writes throughput_<type>.csv of a load run: the
// load.Runner's Also hook.
func WriteLoadSummary(dir string, s load.Sub, cfg load.Config, res []load.PayloadResult) error {
	return result.WriteThroughputFile(filepath.Join(dir, experiment.ThroughputFileName(s.Type)), LoadRows(cfg, res))
}
