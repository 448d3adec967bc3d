package process_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/result"
)

// svgText is one text element of an SVG written by gonum: its left end and
// baseline, y up, and its text.
type svgText struct {
	x, y float64
	s    string
}

var textElement = regexp.MustCompile(`(?s)<text x="([^"]+)" y="([^"]+)"[^>]*>([^<]*)</text>`)

func svgTexts(t *testing.T, doc []byte) []svgText {
	t.Helper()
	var out []svgText
	for _, m := range textElement.FindAllSubmatch(doc, -1) {
		x, err1 := strconv.ParseFloat(string(m[1]), 64)
		y, err2 := strconv.ParseFloat(string(m[2]), 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("text %q at %q, %q", m[3], m[1], m[2])
		}
		out = append(out, svgText{x, -y, string(m[3])}) // gonum flips y with scale(1, -1)
	}
	return out
}

// TestComparisonHeatMap: the comparison plots of ten sub-experiments are
// one row per sub-experiment, named once, holding its value at every
// payload written in payload order, instead of ten tangled lines and a
// legend. The maxima jump by decades from one sub-experiment and payload
// to the next, as real maxima do.
func TestComparisonHeatMap(t *testing.T) {
	dir := t.TempDir()
	types := []string{
		"intraprocess_best_effort", "intraprocess_reliable", "interprocess_best_effort",
		"interprocess_best_effort_security", "interprocess_best_effort_tcp",
		"interprocess_best_effort_tcp_security", "interprocess_reliable",
		"interprocess_reliable_security", "interprocess_reliable_tcp", "interprocess_reliable_tcp_security",
	}
	slices.Sort(types) // the order of the files, and of the rows
	var payloads []int
	for p := 16; p <= 16384; p *= 2 {
		payloads = append(payloads, p)
	}
	// maxOf is the maximum of sub-experiment i at payload j: from 10 µs
	// to tens of ms, in no order.
	maxOf := func(i, j int) float64 { return 10 * float64(1+(i*7+j*3)%11) * float64(1+((i+j)%4)*((i+j)%4)*300) }
	for i, typ := range types {
		var b strings.Builder
		b.WriteString("Sample,Payload [Bytes],Latency [us]\n")
		n := 0
		for j, p := range payloads {
			for k := range 20 {
				n++
				v := 1 + float64(i)/10 + float64(k)/100
				if k == 7 {
					v = maxOf(i, j)
				}
				fmt.Fprintf(&b, "%d,%d,%g\n", n, p, v)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "measurements_"+typ+".csv"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, stderr := runProcess(t, "--format", "svg", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	doc, err := os.ReadFile(filepath.Join(dir, "plots", "comparison_max.svg"))
	if err != nil {
		t.Fatal(err)
	}
	texts := svgTexts(t, doc)

	// The x axis: one label per payload; beyond the last, the legend.
	var axis, right float64
	for _, p := range payloads {
		if i := slices.IndexFunc(texts, func(x svgText) bool { return x.s == strconv.Itoa(p) }); i < 0 {
			t.Fatalf("no x label %d", p)
		} else {
			axis, right = texts[i].y, texts[i].x+20
		}
	}
	// Each name once; its row's values below it, down to the next name.
	top := make([]float64, len(types))
	for i, typ := range types {
		var at []float64
		for _, x := range texts {
			if x.s == typ {
				at = append(at, x.y)
			}
		}
		if len(at) != 1 {
			t.Fatalf("%s named %d times, want once (one row per sub-experiment)", typ, len(at))
		}
		top[i] = at[0]
	}
	for i, typ := range types {
		bottom := axis
		if i+1 < len(types) {
			bottom = top[i+1]
		}
		if bottom >= top[i] {
			t.Fatalf("row %s is not above row %d", typ, i+1)
		}
		var cells []svgText
		for _, x := range texts {
			if x.y < top[i] && x.y > bottom && x.x < right {
				cells = append(cells, x)
			}
		}
		slices.SortFunc(cells, func(a, b svgText) int { return int(a.x - b.x) })
		var got, want []string
		for _, c := range cells {
			got = append(got, c.s)
		}
		for j := range payloads {
			want = append(want, result.Micros(maxOf(i, j)))
		}
		if !slices.Equal(got, want) {
			t.Errorf("row %s holds %q, want its maxima in payload order %q", typ, got, want)
		}
	}
}
