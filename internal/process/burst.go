package process

import (
	"os"

	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/result"
)

// isBurstFile reports whether the file at path starts with the burst
// measurements header (formats §9), or its older form OldBurstHeader: a
// Fast-RTPS throughput file, whatever its name.
func isBurstFile(path string) bool {
	h := firstLine(path) // "" when unreadable: the latency reader says why
	return h == result.BurstHeader || h == OldBurstHeader
}

// readBurst reads the burst measurements file in.Raw, refusing a malformed
// or empty one, so that process can check every input before it writes
// anything.
func readBurst(in Input) ([]result.BurstRow, error) {
	r, err := fileerr.OpenRegular(in.Raw, "a burst measurements file")
	if err != nil {
		return nil, err
	}
	defer r.Close()
	rows, err := result.ReadBurst(newHeader(r), in.Raw)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fileerr.New(in.Raw, 0, "", "no measurements after the header")
	}
	return rows, nil
}

// writeBurst processes the burst measurements rows read from in.Raw, as the
// Fast-RTPS throughput script does: their summary (each payload's row of
// greatest subscription throughput) at in.Summary and, unless in.PlotsDir is
// empty, each payload's throughput and lost-samples scatter plots there.
func writeBurst(in Input, rows []result.BurstRow, f plots.Format) error {
	if err := result.WriteBurstFile(in.Summary, result.BurstSummary(rows)); err != nil {
		return err
	}
	if in.PlotsDir == "" {
		return nil
	}
	if err := os.MkdirAll(in.PlotsDir, 0o755); err != nil {
		return err
	}
	return plots.WriteBurstScatters(in.PlotsDir, rows, f)
}
