package permessage

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
	"github.com/mqgate/mqgate/internal/driver/drivertest"
	"github.com/mqgate/mqgate/internal/driver/intraprocess"
	"github.com/mqgate/mqgate/internal/driver/nats"
	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/permessagefile"
	"github.com/mqgate/mqgate/internal/result"
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
	pm := &Record{M: 2, O: []int64{0, 1e6, 2e6, 4e6}, I: []int64{5e5, Never, 3e6, 3.5e6}}
	st, rt, l, so, ro := pm.ST(), pm.RT(), pm.L(), pm.SO(), pm.RO()
	// SO_2 = 2 ms / 2, ST_2 = 1000/s; SO_3 = 3 ms / 2, ST_3 = 2 / 3 ms.
	if !math.IsNaN(st[1]) || st[2] != 1000 || math.Abs(st[3]-2/0.003) > 1e-9 || so[2] != 1e6 || so[3] != 1.5e6 || !math.IsNaN(so[1]) {
		t.Fatalf("ST %v SO %v", st, so)
	}
	// RT_2 = 2 / 2.5 ms; RT_3 needs I_1, lost.
	if math.Abs(rt[2]-800) > 1e-9 || !math.IsNaN(rt[3]) || ro[2] != 1.25e6 || !math.IsNaN(ro[3]) {
		t.Fatalf("RT %v RO %v", rt, ro)
	}
	if l[0] != 5e5 || !math.IsNaN(l[1]) || l[3] != -5e5 {
		t.Fatalf("L %v", l)
	}
	// Overall: 3 intervals in 4 ms; 2 intervals among the 3 delivered in 3 ms.
	if pm.OverallSend() != 750 || math.Abs(pm.OverallReceive()-2/0.003) > 1e-9 {
		t.Fatalf("overall send %g, receive %g", pm.OverallSend(), pm.OverallReceive())
	}
}

// TestCPUWindows: a ns clock gives every window its own figure; 10 ms
// ticks are merged into windows of at least 200 ms, the tail folded into
// the last, and a run shorter than that is below resolution.
func TestCPUWindows(t *testing.T) {
	const ms = int64(time.Millisecond)
	s := CPUSeries{Resolution: 1, R: []CPUReading{{0, 0}, {5 * ms, 10 * ms}, {5 * ms, 20 * ms}}}
	w := s.Windows(100)
	if w[0].Percent != 50 || w[0].PerMessage != 50_000 || w[1].Percent != 0 || s.Note() != "" {
		t.Fatalf("%+v %q", w, s.Note())
	}
	if o := s.Overall(100); o.Percent != 25 || o.PerMessage != 25_000 {
		t.Fatalf("overall %+v", o)
	}
	// 50 ms windows of ticks: 0–200 ms, then 200–350 ms is too short on
	// its own and joins it (the load assumed even over the merged window).
	s = CPUSeries{Resolution: 10 * ms, R: make([]CPUReading, 8)}
	for j := range s.R {
		s.R[j] = CPUReading{U: int64(j) * 10 * ms, T: int64(j) * 50 * ms}
	}
	w = s.Windows(10)
	for j, u := range w {
		if math.Abs(u.Percent-20) > 1e-9 || math.Abs(u.PerMessage-1e6) > 1e-3 {
			t.Fatalf("window %d: %+v", j, u)
		}
	}
	short := CPUSeries{Resolution: 10 * ms, R: []CPUReading{{0, 0}, {10 * ms, 40 * ms}, {-1, -1}}}
	if w := short.Windows(10); !math.IsNaN(w[0].Percent) || !math.IsNaN(short.Overall(10).Percent) ||
		short.Note() != "below resolution: 10.0 ms steps over a 40.0 ms run" {
		t.Fatalf("%+v %q", w, short.Note())
	}
	if n := (CPUSeries{Resolution: 1, R: []CPUReading{{-1, 0}, {-1, 5}}}).Note(); n != "not available" {
		t.Fatalf("note %q", n)
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
	cfg := Config{Count: 5000, Window: 50, CPUEvery: 500, Timeout: 10 * time.Second}.WithDefaults()
	src := BrokerCPU("")
	cfg.Broker = &src
	pm, err := Measure(context.Background(), ends, 32, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if pm.Lost != 0 || len(pm.Sender.R) != 11 || pm.Broker.Resolution != processTick() || pm.Sender.Resolution != 1 {
		t.Fatalf("lost %d, %d CPU readings, resolution %d", pm.Lost, len(pm.Sender.R), pm.Broker.Resolution)
	}
	for n := 1; n < len(pm.O); n++ {
		// O_n is read before the message is handed to Send: it
		// arrives after O_n.
		if pm.I[n] < pm.O[n] || pm.O[n] < pm.O[n-1] {
			t.Fatalf("message %d: O %d I %d, O_{n−1} %d", n, pm.O[n], pm.I[n], pm.O[n-1])
		}
	}
	for _, s := range []CPUSeries{pm.Sender, pm.Receiver, pm.Broker} {
		for _, r := range s.R {
			if r.U < 0 || r.T < 0 {
				t.Fatalf("CPU reading %+v", r)
			}
		}
	}
	// Files round trip and plots are drawn.
	for _, tab := range []struct {
		t    permessagefile.Table
		hdr  []string
		text []string
	}{{MessageTable([]*Record{pm}), permessagefile.Header, nil}, {CPUTable([]*Record{pm}), permessagefile.CPUHeader, nil},
		{AggregateTable([]*Record{pm}), permessagefile.SummaryHeader, []string{"Quantity", "Multimodal", "Note"}}} {
		var b bytes.Buffer
		if err := permessagefile.WriteTable(&b, tab.t); err != nil {
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
	// The aggregates' reader gives back every cell.
	agg := AggregateTable([]*Record{pm})
	path := filepath.Join(dir, permessagefile.SummaryFileName("intraprocess_reliable"))
	var b bytes.Buffer
	if err := permessagefile.WriteTable(&b, agg); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rows, err := permessagefile.ReadSummaryFile(path)
	if err != nil || len(rows) != len(agg.Rows) {
		t.Fatalf("%d rows of %d: %v", len(rows), len(agg.Rows), err)
	}
	for i, r := range rows {
		mm := map[bool]string{true: "yes", false: "no"}[r.Multimodal]
		got := []string{strconv.Itoa(r.Payload), r.Quantity, strconv.Itoa(r.Count), cell(r.Mean), cell(r.Median), cell(r.LowerMedian),
			cell(r.RobustDev), cell(r.Min), cell(r.Max), cell(r.P50), cell(r.P90), cell(r.P99), cell(r.Bimodality), mm, cell(r.Overall), r.Note}
		if strings.Join(got, ",") != strings.Join(agg.Rows[i], ",") {
			t.Errorf("row %d read back as %q, written %q", i+2, got, agg.Rows[i])
		}
	}
	paths, err := Plot(dir, "intraprocess_reliable", pm)
	if err != nil {
		t.Fatal(err)
	}
	more, err := PlotVsSize(dir, "intraprocess_reliable", []*Record{pm})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 5 {
		t.Errorf("figures %v", paths)
	}
	for _, p := range append(paths, more...) {
		if st, err := os.Stat(p); err != nil || st.Size() < 1000 || filepath.Ext(p) != ".png" {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// TestPerMessageSteady: a sender paced below the link's capacity makes a
// steady run, whose median window rates agree with the overall rates
// within the robust deviation the summary reports, in process and through
// a NATS server. Sent back to back, the messages go and come in bursts:
// the medians were 8–30× the overall rates on NATS (the figures before
// the overall rates were reported) and now say so.
func TestPerMessageSteady(t *testing.T) {
	natsURL, stop, err := nats.Transport{}.StartEmbedded(context.Background(), driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	topic := drivertest.TestTopic(t)
	for _, c := range []struct {
		name  string
		links load.Links
	}{
		{"intraprocess", load.Links{Transport: intraprocess.Transport{}, Publish: driver.Options{Reliable: true}, Subscribe: driver.Options{Reliable: true, QueueDepth: 4096}}},
		{"nats", load.Links{Transport: nats.Transport{}, URL: natsURL, Publish: driver.Options{Topic: topic}, Subscribe: driver.Options{Topic: topic}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// A run is steady when the sender held its pace: on a loaded
			// machine a stalled sender catches up in bursts, and the run
			// is measured again.
			for try := 1; ; try++ {
				a, rate := steadyRun(t, c.links)
				if st := a[qST]; !st.Agrees() || !a[qSO].Agrees() || math.Abs(st.Overall-rate) > 0.1*rate {
					if try < 8 {
						continue
					}
					t.Fatalf("no steady run in %d: ST median %g, overall %g, robust deviation %g (paced at %g)", try, st.Median, st.Overall, st.RobustDev, rate)
				}
				for _, q := range []int{qSO, qRO, qST, qRT, qRTMbps} {
					if s := a[q]; !s.Agrees() || !strings.HasPrefix(s.Note, "agrees with overall within ±10 %") {
						t.Errorf("%s: median %g, overall %g, robust deviation %g: %s", permessagefile.Quantities[q], s.Median, s.Overall, s.RobustDev, s.Note)
					}
				}
				if r := a[qRT].Overall; math.Abs(r-rate) > 0.1*rate {
					t.Errorf("overall receive rate %g msg/s, paced at %g", r, rate)
				}
				t.Logf("run %d: RT median %.0f, overall %.0f, robust deviation %.0f msg/s", try, a[qRT].Median, a[qRT].Overall, a[qRT].RobustDev)
				return
			}
		})
	}
}

// steadyRun measures 3000 messages paced at 5,000 msg/s over links and
// returns the summaries and the pace.
func steadyRun(t *testing.T, links load.Links) ([]permessagefile.Summary, float64) {
	tp, _ := load.NewTopology(load.FanIn, 1, 1, 1)
	ends, err := links.Open(context.Background(), tp, 64)
	if err != nil {
		t.Fatal(err)
	}
	defer ends.Close()
	src := BrokerCPU(links.URL)
	cfg := Config{Count: 3000, Window: 100, Rate: 5000, CPUEvery: 500, Timeout: 10 * time.Second, Broker: &src}.WithDefaults()
	pm, err := Measure(context.Background(), ends, 64, cfg)
	if err != nil || pm.Lost != 0 {
		t.Fatalf("%v, %d lost", err, pm.Lost)
	}
	return Aggregates(pm), cfg.Rate
}

// burstLink carries messages in bursts of size: nothing is delivered until
// size messages were sent, then all of them at once, timed as they are
// taken (as a client library that hands over a whole read).
type burstLink struct {
	size    int
	pending [][]byte
	batches chan [][]byte
	batch   [][]byte
}

func (l *burstLink) Send(msg []byte) error {
	l.pending = append(l.pending, bytes.Clone(msg))
	if len(l.pending) == l.size {
		l.batches <- l.pending
		l.pending = nil
	}
	return nil
}

func (l *burstLink) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	if len(l.batch) == 0 {
		select {
		case l.batch = <-l.batches:
		case <-time.After(time.Until(deadline)):
			return 0, time.Time{}, driver.ErrTimeout
		}
	}
	n := copy(buf, l.batch[0])
	l.batch = l.batch[1:]
	return n, time.Now(), nil
}

func (l *burstLink) Addr() string { return "burst" }
func (l *burstLink) Close() error { return nil }

// TestPerMessageBursts: over a link that delivers in bursts the median of
// the window rates is the rate within a burst, far above what the link
// carried; the summary gives the overall rate beside it and says that they
// disagree.
func TestPerMessageBursts(t *testing.T) {
	link := &burstLink{size: 500, batches: make(chan [][]byte, 100)}
	ends := &load.Ends{Pubs: []load.PubEnd{{Senders: []driver.Publisher{link}}}, Subs: []load.SubLink{{R: link}}}
	cfg := Config{Count: 6000, Window: 200, Rate: 20000, CPUEvery: 1000, Timeout: 5 * time.Second}.WithDefaults()
	pm, err := Measure(context.Background(), ends, 32, cfg)
	if err != nil || pm.Lost != 0 {
		t.Fatalf("%v, %d lost", err, pm.Lost)
	}
	rt := Aggregates(pm)[qRT]
	if math.Abs(rt.Overall-cfg.Rate) > 0.2*cfg.Rate || rt.Median < 3*rt.Overall || rt.Agrees() || !strings.HasPrefix(rt.Note, "disagrees with overall") {
		t.Fatalf("RT median %g, overall %g (paced at %g): %s", rt.Median, rt.Overall, cfg.Rate, rt.Note)
	}
	// The console leads with the overall rate, labels the windows' median
	// as the rate within bursts, says why once, and prints no NaN (the
	// burst link has no broker CPU).
	var out bytes.Buffer
	pp := &progressPrinter{w: &out}
	pp.print("burst", pm)
	pp.print("burst", pm)
	text := out.String()
	lines := strings.Split(strings.TrimSpace(text), "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "burst") && (!strings.Contains(l, "RT overall "+result.Thousands(rt.Overall)+" msg/s") || !strings.Contains(l, "within bursts")) {
			t.Errorf("row does not lead with the overall rate: %s", l)
		}
	}
	if n := strings.Count(text, "RT: the median of the receive windows disagrees"); n != 1 {
		t.Errorf("the reason printed %d times, want once:\n%s", n, text)
	}
	if strings.Contains(text, "NaN") {
		t.Errorf("NaN on the console:\n%s", text)
	}
}

func TestReadTableErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "f.csv: empty file"},
		{"a,b\n", "f.csv:1: header"},
		{strings.Join(permessagefile.CPUHeader, ",") + "\n16,1,2,3\n", "f.csv:2: 4 columns"},
		{strings.Join(permessagefile.CPUHeader, ",") + "\n16,1,x,3,4,5,6,7,8,9\n", `f.csv:2: column "Sender CPU [%]": "x" is not a number`},
	} {
		if _, err := ReadTable(strings.NewReader(c.in), "f.csv", permessagefile.CPUHeader); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}

// ReadTable reads a CSV written by WriteTable with header: every cell of
// a column not in text must be empty or a finite number. Errors name file,
// line and column.
func ReadTable(r io.Reader, file string, header []string, text ...string) (permessagefile.Table, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	t := permessagefile.Table{Header: header}
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
