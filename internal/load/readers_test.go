package load

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mqgate/mqgate/internal/fileerr"
)

// The readers of the snapshot CSV and the histogram log: no tool reads
// these files back, the tests do.

// oldSnapshotsHeader is the header of snapshot files written before the
// time column named its unit; they read as well.
const oldSnapshotsHeader = "t,metric,value,tags"

// ReadSnapshots reads a snapshot CSV; errors name file, line and column.
func ReadSnapshots(r io.Reader, file string) ([]Snapshot, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 4
	var out []Snapshot
	var timeCol string
	for line := 1; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			if line == 1 {
				return nil, fileerr.New(file, 0, "", "empty file: expected the header %q", SnapshotsHeader)
			}
			return out, nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fileerr.New(file, pe.Line, "", "%v (expected 4 columns: %s)", pe.Err, SnapshotsHeader)
			}
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if line == 1 {
			if h := strings.Join(rec, ","); h != SnapshotsHeader && h != oldSnapshotsHeader {
				return nil, fileerr.New(file, 1, "", "header %q, expected %q", h, SnapshotsHeader)
			}
			timeCol = rec[0]
			continue
		}
		t, err := strconv.ParseFloat(rec[0], 64)
		if err != nil || math.IsNaN(t) || math.IsInf(t, 0) {
			return nil, fileerr.New(file, line, timeCol, "%q is not a number of seconds", rec[0])
		}
		v, err := strconv.ParseFloat(rec[2], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fileerr.New(file, line, "value", "%q is not a finite number", rec[2])
		}
		if rec[1] == "" {
			return nil, fileerr.New(file, line, "metric", "empty: expected a metric name such as latency_p99_us")
		}
		out = append(out, Snapshot{T: t, Metric: rec[1], Value: v, Tags: rec[3]})
	}
}

// ReadHistogramLog reads a histogram log and merges its intervals by tag.
func ReadHistogramLog(r io.Reader, file string) (map[string]*hdrhistogram.Histogram, error) {
	lr := hdrhistogram.NewHistogramLogReader(r)
	out := map[string]*hdrhistogram.Histogram{}
	for {
		h, err := lr.NextIntervalHistogram()
		if err != nil {
			return nil, fileerr.New(file, 0, "", "%v (expected an HdrHistogram log)", err)
		}
		if h == nil {
			return out, nil
		}
		m := out[h.Tag()]
		if m == nil {
			m = NewHistogram()
			out[h.Tag()] = m
		}
		m.Merge(h)
	}
}
