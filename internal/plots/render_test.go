package plots

import (
	"bufio"
	"flag"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

var renderDir = flag.String("render", "", "also write PNGs of the real-data plots to this `directory`, to look at them")

// payloadSamples holds the latencies of one payload of a raw file.
type payloadSamples struct {
	Payload   int
	Latencies []float64
}

// readRaw reads a raw measurements file (formats §2), payloads in file order.
// It is a minimal test helper, not a validating parser.
func readRaw(t testing.TB, path string) []payloadSamples {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []payloadSamples
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for line := 2; sc.Scan(); line++ {
		fields := strings.Split(sc.Text(), ",")
		if len(fields) != 3 {
			t.Fatalf("%s:%d: want 3 fields", path, line)
		}
		payload, err1 := strconv.Atoi(fields[1])
		lat, err2 := strconv.ParseFloat(fields[2], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s:%d: bad row %q", path, line, sc.Text())
		}
		if len(out) == 0 || out[len(out)-1].Payload != payload {
			out = append(out, payloadSamples{Payload: payload})
		}
		out[len(out)-1].Latencies = append(out[len(out)-1].Latencies, lat)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRenderRealData renders every kind of plot from the Fast-RTPS v1.9.2
// data and checks what a reader relies on: the histogram counts every
// sample, the time series reaches the maximum latency, the images decode.
// With -render DIR it renders every payload into DIR, to look at them.
func TestRenderRealData(t *testing.T) {
	data := readRaw(t, filepath.Join("testdata", "measurements_interprocess_reliable.csv"))
	dir := *renderDir
	if dir == "" {
		dir = t.TempDir()
	}
	save := func(p *plot.Plot, name string) {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := Save(p, path, FormatPNG); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := png.Decode(f); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	var cats []string
	stats := map[string][]float64{}
	for i, ps := range data {
		cats = append(cats, strconv.Itoa(ps.Payload))
		sorted := slices.Sorted(slices.Values(ps.Latencies))
		n := len(sorted)
		stats["Minimum"] = append(stats["Minimum"], sorted[0])
		stats["Median"] = append(stats["Median"], (sorted[(n-1)/2]+sorted[n/2])/2)
		stats["Maximum"] = append(stats["Maximum"], sorted[n-1])
		stats["99th percentile"] = append(stats["99th percentile"], sorted[n*99/100])
		if *renderDir == "" && i%5 != 0 {
			continue // a few payloads suffice unless asked to look
		}

		h := Histogram(ps.Latencies, 100, fmt.Sprintf("Latency histogram - %d Bytes", ps.Payload))
		if b := BodyBins(ps.Latencies, 100); sum(b.Counts)+b.Over != n || b.Min != sorted[0] {
			t.Errorf("%d B: histogram holds %d samples from %g, want %d from %g", ps.Payload, sum(b.Counts)+b.Over, b.Min, n, sorted[0])
		}
		save(h, fmt.Sprintf("histogram_%d.png", ps.Payload))

		// The series reaches the maximum, or, when a spike would flatten
		// it, ends above the body and names the maximum in its title.
		s := Series(ps.Latencies, SeriesPoints, fmt.Sprintf("Latency time series - %d Bytes", ps.Payload))
		top := sorted[n-1]
		if clip, above, highest := spikeClip(ps.Latencies); above > 0 {
			top = clip
			if highest != sorted[n-1] || !strings.Contains(s.Title.Text, "up to "+FormatLatency(highest)+" µs") {
				t.Errorf("%d B: clipped series titled %q, want its maximum %g named", ps.Payload, s.Title.Text, sorted[n-1])
			}
		}
		if s.Y.Max != top || s.Y.Min != sorted[0] || s.X.Min != 1 || s.X.Max != float64(n) {
			t.Errorf("%d B: series spans x [%g, %g] y [%g, %g], want [1, %d] [%g, %g]",
				ps.Payload, s.X.Min, s.X.Max, s.Y.Min, s.Y.Max, n, sorted[0], top)
		}
		save(s, fmt.Sprintf("series_%d.png", ps.Payload))
	}
	// One real sub-experiment and two made-up neighbours, to see several
	// series side by side.
	for stat, y := range stats {
		lines := []Line{{Name: "interprocess_reliable", Y: y}}
		for k, f := range []float64{0.8, 1.3} {
			z := make([]float64, len(y))
			for i := range z {
				z[i] = y[i] * (f + 0.02*float64(i%3))
			}
			lines = append(lines, Line{Name: fmt.Sprintf("synthetic_%d", k+1), Y: z})
		}
		p := CategoryLines(stat+" latency", "Payload [Bytes]", "Latency [µs]", cats, lines)
		save(p, "comparison_"+strings.ReplaceAll(stat, " ", "_")+".png")
	}
}

// TestSeriesSpike: one spike of 1,148 µs among 5,000 samples near 10 µs no
// longer flattens the series: the axis ends a quarter of the body's range
// above the body's top, the samples above it are counted and marked, and a
// series without a spike keeps its full range.
func TestSeriesSpike(t *testing.T) {
	x := make([]float64, 5000)
	for i := range x {
		x[i] = 9 + float64(i%300)/100 // 9 to 11.99 µs
	}
	x[3100], x[4000] = 1148, 300
	s := Series(x, SeriesPoints, "Latency series - nats_best_effort - 16 Bytes")
	if s.Y.Max != 11.99+0.25*2.99 {
		t.Errorf("axis up to %g, want %g", s.Y.Max, 11.99+0.25*2.99)
	}
	if want := "Latency series - nats_best_effort - 16 Bytes\naxis clipped at 12.74 µs: 2 samples above (▲), up to 1148 µs"; s.Title.Text != want {
		t.Errorf("title %q, want %q", s.Title.Text, want)
	}
	x[3100], x[4000] = 12, 12.5
	if s := Series(x, SeriesPoints, "t"); s.Y.Max != 12.5 || s.Title.Text != "t" {
		t.Errorf("no spike: axis up to %g, title %q; want the maximum and no note", s.Y.Max, s.Title.Text)
	}
}
