package throughput

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/intraprocess"
	"github.com/mqgate/mqgate/internal/driver/nats"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/result"
)

// curve is a unimodal throughput curve peaking at peak: the search must
// land within its precision of the peak, with steps as the method says.
func curve(peak float64) MeasureFunc {
	return func(f int) (Point, error) {
		x := math.Log(float64(f) / peak)
		v := 1e5 * math.Exp(-x*x)
		p := Point{Payload: 100, F: f, Samples: []float64{v, v, v}, Delivered: int(math.Round(v * 3)), Period: 3 * time.Second}
		p.Summarise()
		return p, nil
	}
}

func TestSearchFindsThePeak(t *testing.T) {
	for _, peak := range []float64{1, 7, 42, 350, 2500} {
		var phases []string
		out, steps, err := Search(curve(peak), Config{}, func(s Step) { phases = append(phases, s.Phase) })
		if err != nil {
			t.Fatal(err)
		}
		if rel := math.Abs(float64(out.F)-peak) / peak; rel > 0.02 && math.Abs(float64(out.F)-peak) > 1 {
			t.Errorf("peak %g: chosen F %d", peak, out.F)
		}
		// The bracket met the precision (or closed on whole windows), F is
		// its mean, and F was measured again.
		if w := out.Hi - out.Lo; float64(w) >= 0.01*float64(out.Hi+out.Lo)/2 && w > 2 {
			t.Errorf("peak %g: bracket %d–%d wider than 1%% of its mean", peak, out.Lo, out.Hi)
		}
		if out.F != int(math.Round(float64(out.Lo+out.Hi)/2)) || len(out.Periods) != DefaultPeriods || out.Periods[0].F != out.F {
			t.Errorf("peak %g: F %d, bracket %d–%d, %d periods", peak, out.F, out.Lo, out.Hi, len(out.Periods))
		}
		// The exponential phase comes first, 1, 10, 100, … and stops at
		// the first fall.
		var scale []int
		for _, s := range steps {
			if s.Phase == "exponential" {
				scale = append(scale, s.F)
			}
		}
		for i, f := range scale {
			if f != int(math.Pow10(i)) {
				t.Fatalf("peak %g: exponential steps %v", peak, scale)
			}
		}
		if len(phases) != len(steps) {
			t.Fatalf("reported %d steps of %d", len(phases), len(steps))
		}
		// No F is measured twice by the search but to measure the noise;
		// the confirmation comes last, the chosen F's periods first.
		seen := map[int]bool{}
		var confirm []int
		for _, s := range steps {
			switch {
			case s.Phase == "confirmation":
				confirm = append(confirm, s.F)
				continue
			case s.Phase == "noise" && seen[s.F]:
				continue
			}
			if seen[s.F] || len(confirm) > 0 {
				t.Fatalf("peak %g: F %d measured twice, or after the confirmation", peak, s.F)
			}
			seen[s.F] = true
		}
		if len(confirm) != DefaultPeriods+len(out.Neighbours) || confirm[0] != out.F || confirm[DefaultPeriods-1] != out.F {
			t.Fatalf("peak %g: confirmation steps %v, F %d, neighbours %d", peak, confirm, out.F, len(out.Neighbours))
		}
	}
}

func TestMeasureIntraprocess(t *testing.T) {
	tp, _ := load.NewTopology(load.FanIn, 1, 1, 1)
	links := load.Links{Transport: intraprocess.Transport{}, Publish: driver.Options{Reliable: true}, Subscribe: driver.Options{Reliable: true, QueueDepth: 256}}
	cfg := Config{MinWindow: time.Millisecond, Windows: 20}.WithDefaults()
	for _, f := range []int{1, 16} {
		ends, err := links.Open(context.Background(), tp, 64)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Measure(context.Background(), ends, 64, f, cfg)
		ends.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Samples) != 20 || p.Median <= 0 || p.Lost != 0 || p.Mean <= 0 {
			t.Fatalf("F %d: %+v", f, p)
		}
	}
}

func TestRunnerEmbeddedNATS(t *testing.T) {
	url, stop, err := nats.Transport{}.StartEmbedded(context.Background(), driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	dir := t.TempDir()
	var progress bytes.Buffer
	m := &meta.Meta{Experiment: "x"}
	r := &Runner{Config: Config{MinWindow: time.Millisecond, Windows: 10, MaxF: 100, Precision: 0.2}, Payloads: []int{16, 256}, Dir: dir,
		Meta: m, Progress: &progress}
	sub := load.Sub{Type: "nats_best_effort", Transport: "nats", Links: load.Links{Transport: nats.Transport{}, URL: url,
		Publish: driver.Options{Topic: "tp"}, Subscribe: driver.Options{Topic: "tp"}}}
	if err := r.Run(context.Background(), []load.Sub{sub}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, experiment.ThroughputFileName("nats_best_effort")))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := result.ReadThroughput(f, f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Payload != 16 || rows[1].Payload != 256 || rows[0].Samples != DefaultPeriods || rows[0].Median <= 0 || rows[0].Mode != result.ModeWindow {
		t.Fatalf("%+v", rows)
	}
	if !m.Completed || len(m.SubExperiments) != 1 || len(m.SubExperiments[0].Payloads) != 2 {
		t.Fatalf("meta %+v", m)
	}
	if !strings.Contains(progress.String(), "exponential  F = 1 ") || !strings.Contains(progress.String(), "Mb/s over 5 periods") {
		t.Fatalf("the search was not printed:\n%s", progress.String())
	}
}

// TestMeasureWindowLargerThanQueue keeps more messages in flight than a
// reliable in-process queue holds: the publisher blocks in Send, and the
// measurement still ends.
func TestMeasureWindowLargerThanQueue(t *testing.T) {
	tp, _ := load.NewTopology(load.FanIn, 1, 1, 1)
	links := load.Links{Transport: intraprocess.Transport{}, Publish: driver.Options{Reliable: true}, Subscribe: driver.Options{Reliable: true, QueueDepth: 8}}
	ends, err := links.Open(context.Background(), tp, 16)
	if err != nil {
		t.Fatal(err)
	}
	defer ends.Close()
	p, err := Measure(context.Background(), ends, 16, 1000, Config{MinWindow: time.Millisecond, Windows: 5}.WithDefaults())
	if err != nil || len(p.Samples) != 5 {
		t.Fatalf("%v, %d samples", err, len(p.Samples))
	}
}

// arrivals records when each message was delivered, as the driver stamps
// it: the raw times the delivered rate is computed from here.
type arrivals struct {
	driver.Subscriber
	at []time.Time
}

func (a *arrivals) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	n, at, err := a.Subscriber.Receive(buf, deadline)
	if err == nil {
		a.at = append(a.at, at)
	}
	return n, at, err
}

// TestMeasureDeliveredRate: the measured period starts at the 2F-th
// delivery and Delivered messages follow it: the period is the time from
// that delivery to the Delivered-th after it, read from the driver's raw
// arrival stamps, and the windows cover it end to end.
func TestMeasureDeliveredRate(t *testing.T) {
	tp, _ := load.NewTopology(load.FanIn, 1, 1, 1)
	links := load.Links{Transport: intraprocess.Transport{}, Publish: driver.Options{Reliable: true}, Subscribe: driver.Options{Reliable: true, QueueDepth: 256}}
	ends, err := links.Open(context.Background(), tp, 64)
	if err != nil {
		t.Fatal(err)
	}
	defer ends.Close()
	rec := &arrivals{Subscriber: ends.Subs[0].R}
	ends.Subs[0].R = rec
	const f = 8
	p, err := Measure(context.Background(), ends, 64, f, Config{MinWindow: time.Millisecond, Windows: 20}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	start := 2*f - 1 // the 2F-th delivery, 0-based
	if p.Delivered < 20 || start+p.Delivered >= len(rec.at) {
		t.Fatalf("%d delivered, %d arrivals recorded", p.Delivered, len(rec.at))
	}
	if want := rec.at[start+p.Delivered].Sub(rec.at[start]); p.Period != want {
		t.Errorf("period %v, the arrivals say %v", p.Period, want)
	}
	if want := float64(p.Delivered) / p.Period.Seconds(); p.DeliveredRate() != want {
		t.Errorf("delivered rate %g, want %g", p.DeliveredRate(), want)
	}
}
