package throughput

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/intraprocess"
	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/load"
)

// The values below were computed with numpy and scipy.stats (skew and
// kurtosis with bias=False) and are committed as numbers.
func TestAggregated(t *testing.T) {
	for _, c := range []struct {
		x                         []float64
		bc, median, lower, robust float64
	}{
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.3185437997724687, 5.5, 5, 2.5},
		{[]float64{1, 1, 1, 1, 10, 10, 10, 10, 5}, 0.46856375186429944, 5, 5, 4},
		{[]float64{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5}, 0.2991299962173749, 4, 4, 1.8181818181818181},
	} {
		a := Aggregated(append(c.x, math.NaN()))
		if math.Abs(a.Bimodality-c.bc) > 1e-12 || a.Median != c.median || a.LowerMedian != c.lower || math.Abs(a.RobustDev-c.robust) > 1e-12 || a.Count != len(c.x) {
			t.Errorf("%v: %+v", c.x, a)
		}
	}
	// A large sample of one normal is unimodal (b ≈ 1/3); two well apart
	// are not (b > 5/9).
	rng := rand.New(rand.NewPCG(5, 6))
	one, two := make([]float64, 20000), make([]float64, 20000)
	for i := range one {
		one[i] = rng.NormFloat64()
		two[i] = rng.NormFloat64() + float64(6*(i%2))
	}
	if a := Aggregated(one); a.Multimodal || a.Bimodality > 0.4 {
		t.Errorf("one normal: %+v", a)
	}
	if a := Aggregated(two); !a.Multimodal {
		t.Errorf("two normals: %+v", a)
	}
	if a := Aggregated([]float64{1, 2}); !math.IsNaN(a.Bimodality) || a.Multimodal {
		t.Errorf("two values: %+v", a)
	}
}

func TestWindowRates(t *testing.T) {
	pm := &PerMessage{M: 2, O: []int64{0, 1e6, 2e6, 4e6}, I: []int64{5e5, -1, 3e6, 3.5e6}}
	st, rt, l := pm.ST(), pm.RT(), pm.L()
	// ST_2 = 2 / (2 ms) = 1000/s; ST_3 = 2 / 3 ms.
	if !math.IsNaN(st[1]) || st[2] != 1000 || math.Abs(st[3]-2/0.003) > 1e-9 {
		t.Fatalf("ST %v", st)
	}
	// RT_2 = 2 / 2.5 ms; RT_3 needs I_1, lost.
	if math.Abs(rt[2]-800) > 1e-9 || !math.IsNaN(rt[3]) {
		t.Fatalf("RT %v", rt)
	}
	if l[0] != 5e5 || !math.IsNaN(l[1]) || l[3] != -5e5 {
		t.Fatalf("L %v", l)
	}
}

func TestPerMessageIntraprocess(t *testing.T) {
	tp, _ := load.NewTopology(load.FanIn, 1, 1, 1)
	links := load.Links{Transport: intraprocess.Transport{}, Publish: driver.Options{Reliable: true}, Subscribe: driver.Options{Reliable: true, QueueDepth: 256}}
	ends, err := links.Open(context.Background(), tp, 32)
	if err != nil {
		t.Fatal(err)
	}
	defer ends.Close()
	cfg := PerMessageConfig{Count: 5000, Window: 50, CPUEvery: 500, Timeout: 10 * time.Second}.WithDefaults()
	src := CPUSource{What: "this process", Read: processCPU}
	cfg.Broker = &src
	pm, err := MeasurePerMessage(context.Background(), ends, 32, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if pm.Lost != 0 || len(pm.CPU) != 10 {
		t.Fatalf("lost %d, %d CPU samples", pm.Lost, len(pm.CPU))
	}
	for n := range pm.O {
		if pm.I[n] < pm.O[n] || (n > 0 && pm.O[n] < pm.O[n-1]) {
			t.Fatalf("message %d: O %d I %d", n, pm.O[n], pm.I[n])
		}
	}
	for _, c := range pm.CPU {
		if c.Sender < 0 || c.Receiver < 0 || c.Broker < 0 {
			t.Fatalf("CPU sample %+v", c)
		}
	}
	// Files round trip and plots are drawn.
	for _, tab := range []struct {
		t    Table
		hdr  []string
		text []string
	}{{PerMessageTable([]*PerMessage{pm}), PerMessageHeader, nil}, {CPUTable([]*PerMessage{pm}), CPUHeader, nil},
		{AggregateTable([]*PerMessage{pm}), AggregateHeader, []string{"Quantity", "Multimodal"}}} {
		var b bytes.Buffer
		if err := WriteTable(&b, tab.t); err != nil {
			t.Fatal(err)
		}
		back, err := ReadTable(bytes.NewReader(b.Bytes()), "f.csv", tab.hdr, tab.text...)
		if err != nil {
			t.Fatal(err)
		}
		if len(back.Rows) != len(tab.t.Rows) || strings.Join(back.Rows[len(back.Rows)-1], ",") != strings.Join(tab.t.Rows[len(tab.t.Rows)-1], ",") {
			t.Fatalf("%v: rows differ after a round trip", tab.hdr)
		}
	}
	dir := t.TempDir()
	paths, err := PlotPerMessage(dir, "intraprocess_reliable", pm)
	if err != nil {
		t.Fatal(err)
	}
	more, err := PlotVsSize(dir, "intraprocess_reliable", []*PerMessage{pm})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append(paths, more...) {
		if st, err := os.Stat(p); err != nil || st.Size() < 1000 || filepath.Ext(p) != ".png" {
			t.Errorf("%s: %v", p, err)
		}
	}
}

func TestReadTableErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "f.csv: empty file"},
		{"a,b\n", "f.csv:1: header"},
		{strings.Join(CPUHeader, ",") + "\n16,1,2,3\n", "f.csv:2: 4 columns"},
		{strings.Join(CPUHeader, ",") + "\n16,1,x,3,4\n", `f.csv:2: column "Sender CPU [ns/msg]": "x" is not a number`},
	} {
		if _, err := ReadTable(strings.NewReader(c.in), "f.csv", CPUHeader); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}

// ReadTable reads a CSV written by WriteTable with header: every cell of
// a column not in text must be empty or a finite number. Errors name file,
// line and column.
func ReadTable(r io.Reader, file string, header []string, text ...string) (Table, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	t := Table{Header: header}
	isText := map[int]bool{}
	for i, h := range header {
		for _, x := range text {
			if h == x {
				isText[i] = true
			}
		}
	}
	for line := 1; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			if line == 1 {
				return t, fileerr.New(file, 0, "", "empty file: expected the header %q", strings.Join(header, ","))
			}
			return t, nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return t, fileerr.New(file, pe.Line, "", "%v", pe.Err)
			}
			return t, fmt.Errorf("%s: %w", file, err)
		}
		if line == 1 {
			if strings.Join(rec, ",") != strings.Join(header, ",") {
				return t, fileerr.New(file, 1, "", "header %q, expected %q", strings.Join(rec, ","), strings.Join(header, ","))
			}
			continue
		}
		if len(rec) != len(header) {
			return t, fileerr.New(file, line, "", "%d columns, expected %d", len(rec), len(header))
		}
		for i, c := range rec {
			if isText[i] || c == "" {
				continue
			}
			if v, err := strconv.ParseFloat(c, 64); err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return t, fileerr.New(file, line, header[i], "%q is not a number (empty for a missing value)", c)
			}
		}
		t.Rows = append(t.Rows, rec)
	}
}
