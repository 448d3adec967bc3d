package plots

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/goldenfile"
	"github.com/mqgate/mqgate/internal/result"

	"gonum.org/v1/plot"
)

// checkGolden compares got with testdata/<test name>.svg, or rewrites that
// file under -update.
func checkGolden(t *testing.T, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", filepath.FromSlash(t.Name())+".svg"), got)
}

// checkXML fails unless doc is well-formed XML.
func checkXML(t *testing.T, doc []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
	}
}

// payloadNames are the payloads of the Fast-RTPS latency tests.
func payloadNames() []string {
	var c []string
	for p := 16; p <= 16384; p *= 2 {
		c = append(c, strconv.Itoa(p))
	}
	return c
}

// experimentNames returns n experiment directory names, one a day.
func experimentNames(n int) []string {
	t0 := time.Date(2024, 1, 1, 3, 4, 5, 0, time.UTC)
	c := make([]string, n)
	for i := range c {
		c[i] = t0.AddDate(0, 0, i).Format("2006-01-02_15-04-05")
	}
	return c
}

func TestGoldenSVG(t *testing.T) {
	nan := math.NaN()
	subs := []string{
		"intraprocess_best_effort", "intraprocess_reliable", "interprocess_best_effort",
		"interprocess_best_effort_security", "interprocess_best_effort_tcp",
		"interprocess_best_effort_tcp_security", "interprocess_reliable",
		"interprocess_reliable_security", "interprocess_reliable_tcp", "interprocess_reliable_tcp_security",
	}
	for _, tc := range []struct {
		name string
		plot func() *plot.Plot
	}{
		{"histogram", func() *plot.Plot {
			return Histogram(latencies(2000, 10), 100, "Latency histogram - 1024 Bytes")
		}},
		{"histogram_outlier", func() *plot.Plot {
			x := latencies(2000, 12)
			x[700] = 1640
			return Histogram(x, 100, "Latency histogram - 16 Bytes")
		}},
		{"histogram_log", func() *plot.Plot {
			x := latencies(2000, 13)
			for i := range x {
				x[i] = x[i]/20 + 0.25
			}
			return Histogram(x, 100, "Latency histogram - 64 Bytes")
		}},
		{"histogram_one_sample", func() *plot.Plot {
			return Histogram([]float64{12.5}, 100, "Latency histogram - 16 Bytes")
		}},
		{"histogram_empty", func() *plot.Plot { return Histogram(nil, 100, "Latency histogram - 16 Bytes") }},
		{"series", func() *plot.Plot {
			return Series(latencies(3000, 11), 300, "Latency time series - 1024 Bytes")
		}},
		{"series_empty", func() *plot.Plot { return Series(nil, 300, "Latency time series - 16 Bytes") }},
		{"comparison", func() *plot.Plot {
			var lines []Line
			for i, s := range subs {
				y := latencies(11, uint64(20+i))
				for j := range y {
					y[j] += float64(i) + float64(j)/2
				}
				lines = append(lines, Line{Name: s, Y: y})
			}
			return CategoryLines("Median latency", "Payload [Bytes]", "Latency [µs]", payloadNames(), lines)
		}},
		{"comparison_log", func() *plot.Plot {
			// Maxima: intraprocess below 10 µs, security over TCP in the
			// hundreds, one 22 ms spike.
			var lines []Line
			for i, s := range subs {
				y := latencies(11, uint64(40+i))
				for j := range y {
					y[j] *= math.Pow(1.9, float64(i)) / 8
					y[j] += float64(j)
				}
				lines = append(lines, Line{Name: s, Y: y})
			}
			lines[9].Y[8] = 22031
			return CategoryLines("Maximum latency by payload", "Payload [Bytes]", "Latency [µs]", payloadNames(), lines)
		}},
		{"heatmap", func() *plot.Plot {
			// The maxima of comparison_log as cells: one value missing,
			// the highest of each payload capped.
			var rows []HeatRow
			for i, s := range subs {
				y := latencies(11, uint64(40+i))
				for j := range y {
					y[j] *= math.Pow(1.9, float64(i)) / 8
					y[j] += float64(j)
				}
				rows = append(rows, HeatRow{Name: s, Values: y, Marked: make([]bool, len(y))})
			}
			rows[9].Values[8] = 22031
			rows[2].Values[4] = nan
			for j := range 11 {
				top := 0
				for i := range rows {
					if rows[i].Values[j] > rows[top].Values[j] {
						top = i
					}
				}
				rows[top].Marked[j] = true
			}
			p := HeatMap("Maximum latency by sub-experiment and payload", "Payload [Bytes]", payloadNames(), rows, result.Micros)
			p.Legend.Add("highest at its payload", MarkedCellThumbnail{})
			return p
		}},
		{"requirement", func() *plot.Plot {
			y := []float64{10, 11, 10.5, nan, 12, 13, 20, 14, nan, 16, 18}
			req := []float64{12, 12, 12, 12, 13, 13, 15, 15, 16, 17, 17}
			marked := make([]bool, len(y))
			for i := range y {
				marked[i] = y[i] > req[i]
			}
			p := CategoryLines("interprocess_reliable: Median", "Payload [Bytes]", "Latency [µs]", payloadNames(),
				[]Line{{Name: "Median", Y: y, Marked: marked}, {Name: "Median requirement", Y: req, Dashed: true}})
			p.Legend.Add("over requirement", MarkThumbnail{})
			return p
		}},
		{"bubbles", func() *plot.Plot {
			var b []Bubble
			for i, d := range []float64{100, 1000, 10000} {
				for _, r := range []float64{0, 20, 40} {
					v := d * (1 + r/20) / 100
					b = append(b, Bubble{X: i, Y: r, Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
				}
			}
			return Bubbles("Throughput Scatterplot 8192 Bytes", "Demand [sample/burst]", "Recovery time [ms]",
				[]string{"100", "1000", "10000"}, b, RampThroughput)
		}},
		{"history", func() *plot.Plot {
			cats := experimentNames(300)
			var lines []Line
			for i, name := range []string{"16 B", "1024 B", "16384 B"} {
				y := latencies(len(cats), uint64(30+i))
				for j := range y {
					y[j] += 5 * float64(i)
				}
				lines = append(lines, Line{Name: name, Y: y})
			}
			return CategoryLines("interprocess_reliable: Median latency history", "Experiment", "Latency [µs]", cats, lines)
		}},
		{"many_series", func() *plot.Plot {
			var lines []Line
			for i := range 14 {
				y := make([]float64, 11)
				for j := range y {
					y[j] = float64(10+2*i) + float64(j)*0.5
				}
				lines = append(lines, Line{Name: fmt.Sprintf("series %d", i+1), Y: y})
			}
			return CategoryLines("Fourteen series", "Payload [Bytes]", "Latency [µs]", payloadNames(), lines)
		}},
		{"history_marked", func() *plot.Plot {
			cats := experimentNames(1000)
			y := latencies(len(cats), 40)
			req := make([]float64, len(y))
			marked := make([]bool, len(y))
			for i := range y {
				req[i] = 14
				marked[i] = y[i] > req[i]
				if i%97 == 5 {
					y[i] = nan
				}
			}
			return CategoryLines("interprocess_reliable, 16 Bytes: Median history", "Experiment", "Latency [µs]", cats,
				[]Line{{Name: "Median", Y: y, Marked: marked}, {Name: "Median requirement", Y: req, Dashed: true}})
		}},
		{"no_lines", func() *plot.Plot {
			return CategoryLines("Median latency", "Payload [Bytes]", "Latency [µs]", payloadNames(), nil)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The file (Save, Encode) and the page (SVG) layouts; the
			// page's drawing must leave the plot as it was for the file.
			p := tc.plot()
			page, err := SVG(p)
			if err != nil {
				t.Fatal(err)
			}
			var file bytes.Buffer
			if err := Encode(&file, p, FormatSVG); err != nil {
				t.Fatal(err)
			}
			var again bytes.Buffer
			if err := Encode(&again, tc.plot(), FormatSVG); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(file.Bytes(), again.Bytes()) {
				t.Fatal("a plot drawn for a page first draws differently in a file")
			}
			pageAgain, err := SVG(tc.plot())
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(page, pageAgain) {
				t.Fatal("two page renderings of the same plot differ")
			}
			checkXML(t, file.Bytes())
			checkXML(t, page)
			checkGolden(t, file.Bytes())
			goldenfile.Check(t, filepath.Join("testdata", filepath.FromSlash(t.Name())+".page.svg"), page)
			if *renderDir != "" {
				if err := Save(tc.plot(), filepath.Join(*renderDir, tc.name+".png"), FormatPNG); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(*renderDir, tc.name+".page.svg"), page, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
