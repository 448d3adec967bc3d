package plots

import (
	"io"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"git.sr.ht/~sbinet/gg"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// latencies returns n latency-like samples (µs): a tight bulk near 8 with a
// long tail and a few large spikes, from a fixed seed.
func latencies(n int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	x := make([]float64, n)
	for i := range x {
		x[i] = 7 + r.ExpFloat64()
		if r.IntN(100) == 0 {
			x[i] += 20 + 100*r.Float64()
		}
	}
	return x
}

func benchmarkEncode(b *testing.B, build func() *plot.Plot) {
	b.Helper()
	b.ReportAllocs()
	var w countingWriter
	start := cpuTime()
	for b.Loop() {
		w = 0
		if err := Encode(&w, build(), FormatPNG); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
	b.ReportMetric(float64(w), "png-bytes")
}

// countingWriter counts the bytes written to it.
type countingWriter int

func (w *countingWriter) Write(p []byte) (int, error) {
	*w += countingWriter(len(p))
	return len(p), nil
}

func BenchmarkHistogramPNG(b *testing.B) {
	x := latencies(10000, 1)
	benchmarkEncode(b, func() *plot.Plot { return Histogram(x, 100, "Latency histogram - 1024 Bytes") })
}

func BenchmarkSeriesPNG(b *testing.B) {
	x := latencies(10000, 2)
	benchmarkEncode(b, func() *plot.Plot { return Series(x, SeriesPoints, "Latency time series - 1024 Bytes") })
}

func BenchmarkCategoryLinesPNG(b *testing.B) {
	var cats []string
	for p := 16; p <= 16384; p *= 2 {
		cats = append(cats, strconv.Itoa(p))
	}
	var lines []Line
	for i := range 10 {
		lines = append(lines, Line{Name: "sub_experiment_" + strconv.Itoa(i), Y: latencies(len(cats), uint64(i))})
	}
	benchmarkEncode(b, func() *plot.Plot {
		return CategoryLines("Median latency", "Payload [Bytes]", "Latency [µs]", cats, lines)
	})
}

// BenchmarkHistoryPNG draws a magnitude history of 1,000 experiments: eleven
// lines of a thousand points, every 50th experiment named.
func BenchmarkHistoryPNG(b *testing.B) {
	cats := experimentNames(1000)
	var lines []Line
	for i, p := range payloadNames() {
		lines = append(lines, Line{Name: p + " bytes", Y: latencies(len(cats), uint64(i))})
	}
	benchmarkEncode(b, func() *plot.Plot {
		return CategoryLines("Median latency history", "Experiment", "Latency [µs]", cats, lines)
	})
}

func BenchmarkLTTB(b *testing.B) {
	y := latencies(10000, 3)
	x := make([]float64, len(y))
	for i := range x {
		x[i] = float64(i + 1)
	}
	b.ReportAllocs()
	for b.Loop() {
		LTTB(x, y, SeriesPoints)
	}
}

// BenchmarkExperimentPlots renders what process draws for one experiment of
// 10 sub-experiments × 11 payloads × 10,000 samples: 110 histograms, 110
// time series and 4 comparison plots, on GOMAXPROCS goroutines. One op is
// the whole experiment.
func BenchmarkExperimentPlots(b *testing.B) {
	const subs, payloads = 10, 11
	data := make([][]float64, subs*payloads)
	for i := range data {
		data[i] = latencies(10000, uint64(i))
	}
	var lines []Line
	for s := range subs {
		lines = append(lines, Line{Name: "sub_experiment_" + strconv.Itoa(s), Y: latencies(payloads, uint64(s))})
	}
	cats := payloadNames()
	jobs := make([]func() *plot.Plot, 0, 2*len(data)+4)
	for i, x := range data {
		title := strconv.Itoa(i)
		jobs = append(jobs,
			func() *plot.Plot { return Histogram(x, 100, "Latency histogram - "+title) },
			func() *plot.Plot { return Series(x, SeriesPoints, "Latency time series - "+title) })
	}
	for range 4 {
		jobs = append(jobs, func() *plot.Plot {
			return CategoryLines("Median latency", "Payload [Bytes]", "Latency [µs]", cats, lines)
		})
	}
	workers := runtime.GOMAXPROCS(0)
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		next := make(chan func() *plot.Plot)
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for job := range next {
					if err := Encode(io.Discard, job(), FormatPNG); err != nil {
						b.Error(err)
					}
				}
			})
		}
		for _, job := range jobs {
			next <- job
		}
		close(next)
		wg.Wait()
	}
	reportCPU(b, start)
}

func BenchmarkEncodePNG(b *testing.B) {
	img := getImage(DefaultWidth, DefaultHeight)
	ctx := gg.NewContextForRGBA(img)
	ctx.InvertY()
	c := vgimg.NewWith(vgimg.UseImageWithContext(img, ctx), vgimg.UseDPI(DefaultDPI))
	Series(latencies(10000, 5), SeriesPoints, "t").Draw(draw.New(c))
	b.ReportAllocs()
	var w countingWriter
	start := cpuTime()
	for b.Loop() {
		w = 0
		if err := encodePNG(&w, img); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
	b.ReportMetric(float64(w), "png-bytes")
}

// reportCPU reports the CPU time per op since start (see cpuTime).
func reportCPU(b *testing.B, start int64) {
	if cpu := cpuTime() - start; cpu > 0 && start > 0 {
		b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkPageSVG lays out and renders a comparison plot of ten
// sub-experiments for an HTML page.
func BenchmarkPageSVG(b *testing.B) {
	var lines []Line
	for i := range 10 {
		lines = append(lines, Line{Name: "sub_experiment_" + strconv.Itoa(i), Y: latencies(11, uint64(i))})
	}
	p := CategoryLines("Median latency", "Payload [Bytes]", "Latency [µs]", payloadNames(), lines)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := SVG(p); err != nil {
			b.Fatal(err)
		}
	}
}
