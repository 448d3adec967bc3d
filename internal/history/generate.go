package history

import (
	"github.com/mqgate/mqgate/internal/requirements"
	"github.com/mqgate/mqgate/internal/synth"
)

// GenerateRequirements writes a requirements CSV (formats §4) at path for the
// types and payloads of opt, set so that typical experiments pass and the
// regressions synth.Generate injects fail.
func GenerateRequirements(path string, opt synth.GenerateOptions) error {
	opt = opt.WithDefaults()
	var rows []requirements.KeyedRow
	for _, typ := range opt.Types {
		for _, b := range opt.Payloads {
			med := synth.BaseLatency(typ, b) * 1.25
			rows = append(rows, requirements.LatencyRow(typ, b, med, med*2.5*1.2, med*12*1.2))
		}
	}
	return requirements.WriteFile(path, rows)
}
