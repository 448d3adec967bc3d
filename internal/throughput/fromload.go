package throughput

import (
	"path/filepath"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/result"
)

// LoadRows turns the payloads of a load run into throughput rows (mode
// rate, Offered the rate per publisher): the samples are the receive rates
// of the intervals of the measured period (unique deliveries are not known
// per interval, so received messages, duplicates included, count).
func LoadRows(rate float64, res []load.PayloadResult) []result.ThroughputRow {
	var rows []result.ThroughputRow
	for _, p := range res {
		pt := Point{Payload: p.Payload, Rate: rate}
		for _, t := range p.Ticks {
			if t.Drain || t.Period <= 0 {
				continue
			}
			pt.Samples = append(pt.Samples, float64(t.Delta.MessagesReceived)/t.Period.Seconds())
		}
		pt.Summarise()
		rows = append(rows, RowOf(pt))
	}
	return rows
}

// WriteLoadSummary writes throughput_<type>.csv of a load run: the
// load.Runner's Also hook.
func WriteLoadSummary(dir string, s load.Sub, cfg load.Config, res []load.PayloadResult) error {
	rows := LoadRows(cfg.Rate, res)
	return result.WriteThroughputFile(filepath.Join(dir, experiment.ThroughputFileName(s.Type)), rows)
}
