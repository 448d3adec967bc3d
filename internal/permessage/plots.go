package permessage

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/result"
)

// PlotsDir is the folder of the per-message plots in an experiment.
const PlotsDir = "permessage"

// finite returns the points (n+1, y[n]) whose y is finite.
func finite(y []float64) (xs, ys []float64) {
	for n, v := range y {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			xs, ys = append(xs, float64(n+1)), append(ys, v)
		}
	}
	return xs, ys
}

// Plot writes the figures of one payload into dir and returns
// their paths: latency vs message number, ST and RT vs message number (one
// graph), the CPU usage of sender, receiver and broker vs message number
// (one graph), and the histograms of latency and of RT.
func Plot(dir, typ string, pm *Record) ([]string, error) {
	title := fmt.Sprintf("%s %d B", typ, pm.Payload)
	l := pm.L()
	lus := make([]float64, 0, len(l))
	for _, v := range l {
		if !math.IsNaN(v) {
			lus = append(lus, v/1000)
		}
	}
	lat := plots.Series(lus, plots.SeriesPoints, title+": latency L_n = I_n − O_n")
	lat.X.Label.Text = "Message number n (delivered)"
	lat.Y.Label.Text = "Latency [µs]"
	rates, err := linesAgainstN(fmt.Sprintf("%s: throughput over M = %d messages", title, pm.M), "Throughput [msg/s]",
		[]nCurve{{"ST_n (sender)", pm.ST()}, {"RT_n (receiver)", pm.RT()}})
	if err != nil {
		return nil, err
	}
	var cpu []nCurve
	broker := "broker (" + pm.BrokerWhat + ")"
	switch {
	case pm.NoBroker:
		broker = RestOfProcessLabel + " (less sender and receiver; no broker)"
	case pm.BrokerInProcess:
		broker = "broker (this process less sender and receiver)"
	}
	for _, c := range []struct {
		name string
		s    CPUSeries
	}{{"sender thread", pm.Sender}, {"receiver thread", pm.Receiver}, {"client process (all threads)", pm.Client}, {broker, pm.Broker}} {
		y := slices.Repeat([]float64{math.NaN()}, len(pm.O))
		for j, u := range c.s.Windows(pm.CPUEvery) {
			y[(j+1)*pm.CPUEvery-1] = u.Percent
		}
		cpu = append(cpu, nCurve{c.name, y})
	}
	cpuUse, err := linesAgainstN(fmt.Sprintf("%s: CPU usage over %d-message windows", title, pm.CPUEvery), "CPU [% of a core]", cpu)
	if err != nil {
		return nil, err
	}
	_, rt := finite(pm.RT())
	rtHist := plots.Histogram(rt, 60, title+": receiver throughput RT_n")
	rtHist.X.Label.Text = "RT_n [msg/s]"
	var out []string
	for _, f := range []struct {
		p      *plot.Plot
		suffix string
	}{{lat, "_latency.png"}, {rates, "_rates.png"}, {cpuUse, "_cpu.png"},
		{plots.Histogram(lus, 60, title+": latency"), "_latency_hist.png"}, {rtHist, "_rt_hist.png"}} {
		path := filepath.Join(dir, fmt.Sprintf("%s_%d%s", typ, pm.Payload, f.suffix))
		out = append(out, path)
		if err := plots.Save(f.p, path, plots.FormatPNG); err != nil {
			return out, err
		}
	}
	return out, nil
}

// nCurve is a named series against the message number (NaN: no point).
type nCurve struct {
	name string
	y    []float64
}

// curveColours are the Okabe–Ito colours of the curves, in order.
var curveColours = []color.RGBA{{0, 114, 178, 255}, {213, 94, 0, 255}, {0, 158, 115, 255}}

// linesAgainstN draws curves against the message number n on one graph,
// from 0 up, with room above for the legend.
func linesAgainstN(title, yLabel string, curves []nCurve) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "Message number n"
	p.Y.Label.Text = yLabel
	p.Add(plotter.NewGrid())
	top := 0.0
	for i, c := range curves {
		xs, ys := finite(c.y)
		if len(xs) == 0 {
			continue // nothing measured (a CPU below resolution)
		}
		xs, ys = plots.LTTB(xs, ys, plots.SeriesPoints)
		pts := make(plotter.XYs, len(xs))
		for i := range xs {
			pts[i].X, pts[i].Y = xs[i], ys[i]
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		top = max(top, slices.Max(ys))
		line.Color, line.Width = curveColours[i%len(curveColours)], vg.Points(0.7)
		p.Add(line)
		p.Legend.Add(c.name, line)
	}
	p.Legend.Top = true
	p.Y.Min, p.Y.Max = 0, 1.25*top
	if top == 0 {
		p.Y.Max = 1
	}
	return p, nil
}

// PlotVsSize writes the overall receive rate and the median of RT against
// the message size, in msg/s and in Mb/s, and returns the paths.
func PlotVsSize(dir, typ string, pms []*Record) ([]string, error) {
	var cats []string
	var msgs, mbps, all, allMbps []float64
	for _, pm := range pms {
		a := Aggregated(pm.RT())
		cats = append(cats, strconv.Itoa(pm.Payload))
		msgs = append(msgs, a.Median)
		mbps = append(mbps, result.Mbps(a.Median, pm.Payload))
		all = append(all, pm.OverallReceive())
		allMbps = append(allMbps, result.Mbps(pm.OverallReceive(), pm.Payload))
	}
	var out []string
	for _, f := range []struct {
		suffix, unit string
		y, overall   []float64
	}{{"_msgs_vs_size.png", "msg/s", msgs, all}, {"_mbps_vs_size.png", "Mb/s", mbps, allMbps}} {
		// The overall rate is what the link carried; the median of the
		// windows is the rate within bursts where the two disagree.
		p := plots.CategoryLines(fmt.Sprintf("%s: receiver throughput", typ), "Payload [Bytes]", "Throughput ["+f.unit+"]", cats,
			[]plots.Line{{Name: "overall", Y: f.overall}, {Name: "median RT_n", Y: f.y}})
		path := filepath.Join(dir, typ+f.suffix)
		out = append(out, path)
		if err := plots.Save(p, path, plots.FormatPNG); err != nil {
			return out, err
		}
	}
	return out, nil
}
