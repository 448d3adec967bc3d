package plots

import (
	"fmt"
	"testing"

	"github.com/mqgate/mqgate/internal/result"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// TestHeatMapHeight: a heat map grows taller with its rows, in a file and
// on a page, so that every row keeps room for its name and its labels (on
// two lines in a page's narrower cells); a few rows get no more than the
// usual height, and no more than heatAir times what they need.
func TestHeatMapHeight(t *testing.T) {
	for _, n := range []int{1, 10, 26} {
		rows := make([]HeatRow, n)
		for i := range rows {
			rows[i] = HeatRow{Name: fmt.Sprintf("nats_reliable_security_%d", i), Values: make([]float64, 11)}
			for j := range rows[i].Values {
				rows[i].Values[j] = float64(1+i) * float64(1+j) * 997
			}
		}
		p := HeatMap("Maximum latency", "Payload [Bytes]", payloadNames(), rows, result.Micros)
		check := func(where string, q *heatCells, w, h vg.Length, lines int) {
			t.Helper()
			dc := p.DataCanvas(inMargin(draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: w, Y: h}}}))
			if n <= 3 && h > DefaultHeight {
				t.Errorf("%d rows, %s: %v high, want no more than usual", n, where, h)
			}
			cw := (dc.Max.X - dc.Min.X) / 11
			if got := len(q.labelLines(textStyle(p), 11*26*997, cw)); got != lines {
				t.Errorf("%d rows, %s: the widest label on %d lines, want %d", n, where, got, lines)
			}
			if rh, need := (dc.Max.Y-dc.Min.Y)/vg.Length(n), q.rowHeight(textStyle(p), cw); rh < need-1e-9 || rh > heatAir*need+1e-9 {
				t.Errorf("%d rows, %s: %v per row, want %v to %v", n, where, rh, need, heatAir*need)
			}
		}
		q := p.Y.Tick.Marker.(heatTicks).h
		w, h := Size(p)
		check("file", q, w, h, 1)
		f := newPageFigure(p)
		p = f.q
		check("page", q, f.w, f.h, 2)
	}
}
