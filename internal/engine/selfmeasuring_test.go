package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/meta"
)

// selfTimed is a pinger whose samples are given, as an external program's
// output would give them: it never sends.
type selfTimed struct {
	latency string
	micros  map[int][]float64
	fail    int // payload whose Measure fails after its samples
	dir     string
}

func (s *selfTimed) Send([]byte) error { return errors.New("self-timed: Send called") }
func (s *selfTimed) Receive([]byte, time.Time) (int, time.Time, error) {
	return 0, time.Time{}, errors.New("self-timed: Receive called")
}
func (s *selfTimed) Close() error { return nil }
func (s *selfTimed) Workload(dir string) driver.SelfWorkload {
	s.dir = dir
	return selfTimedWorkload{s}
}

type selfTimedWorkload struct{ s *selfTimed }

func (selfTimedWorkload) Mode() string            { return "self-timed" }
func (w selfTimedWorkload) Latency(string) string { return w.s.latency }
func (selfTimedWorkload) Check(driver.Plan) error { return nil }
func (w selfTimedWorkload) Start(_ driver.Plan, system *meta.SystemInfo, _ *atomic.Bool, _ driver.TickFunc) driver.Measurer {
	return selfTimedMeasurer{w.s, system}
}

type selfTimedMeasurer struct {
	s      *selfTimed
	system *meta.SystemInfo
}

func (m selfTimedMeasurer) Measure(payload int, res *driver.PayloadResult) (int, error) {
	us := m.s.micros[payload]
	res.Micros = us
	res.Nanos = res.Nanos[:0]
	for _, v := range us {
		res.Nanos = append(res.Nanos, int64(v*2000+0.5))
	}
	res.Counts = meta.Payload{Bytes: payload, Samples: len(us), Completed: payload != m.s.fail}
	m.system.Extra["exit_status"] = "0"
	if payload == m.s.fail {
		return len(us), errors.New("the program exited with status 1")
	}
	return len(us), nil
}

var _ driver.SelfMeasuring = (*selfTimed)(nil)

func selfTimedSub(p *selfTimed) Sub {
	return Sub{Type: "program_reliable", Transport: "program", Echo: EchoInProcess,
		Open: func(context.Context) (*Link, error) {
			return &Link{Pinger: p, System: &meta.SystemInfo{Product: "program", Extra: map[string]string{}}}, nil
		}}
}

// TestSelfMeasuring checks that a self-timed pinger's workload replaces the
// ping loop, that its samples reach the raw file exactly as given, finer
// than a nanosecond, and that what it adds to the system info reaches
// meta.json.
func TestSelfMeasuring(t *testing.T) {
	p := &selfTimed{latency: meta.LatencyHalfRTT, micros: map[int][]float64{16: {58.625, 39.4555, 8.38503}, 32: {7.1}}}
	r := newRunner(t, Config{Payloads: []int{16, 32}, Samples: 2})
	if err := r.Run(context.Background(), []Sub{selfTimedSub(p)}); err != nil {
		t.Fatal(err)
	}
	if p.dir != r.Dir {
		t.Errorf("workload given directory %q, want %q", p.dir, r.Dir)
	}
	raw, err := os.ReadFile(filepath.Join(r.Dir, experiment.RawFileName("program_reliable")))
	if err != nil {
		t.Fatal(err)
	}
	want := "Sample,Payload [Bytes],Latency [us]\n1,16,58.625\n2,16,39.4555\n3,16,8.38503\n1,32,7.100\n"
	if string(raw) != want {
		t.Errorf("raw file:\n%s\nwant:\n%s", raw, want)
	}
	sub := r.Meta.SubExperiments[0]
	if !r.Meta.Completed || sub.System == nil || sub.System.Extra["exit_status"] != "0" || sub.Payloads[0].Samples != 3 {
		t.Errorf("meta: completed %v, sub %+v", r.Meta.Completed, sub)
	}
}

// TestSelfMeasuringStops checks that a failing self-timed workload keeps
// the samples measured before the failure, and that a workload whose
// latency definition is not the run's is refused before it measures.
func TestSelfMeasuringStops(t *testing.T) {
	p := &selfTimed{latency: meta.LatencyHalfRTT, micros: map[int][]float64{16: {1, 2}, 32: {3}}, fail: 32}
	r := newRunner(t, Config{Payloads: []int{16, 32, 64}, Samples: 2})
	err := r.Run(context.Background(), []Sub{selfTimedSub(p)})
	var se *StopError
	if !errors.As(err, &se) || se.Payload != 32 || !strings.Contains(err.Error(), "status 1") {
		t.Fatalf("err = %v", err)
	}
	raw, _ := readRaw(t, r.Dir, "program_reliable")
	if len(raw[16]) != 2 || len(raw[32]) != 1 || r.Meta.Completed {
		t.Errorf("raw %v, completed %v", raw, r.Meta.Completed)
	}

	p = &selfTimed{latency: meta.LatencyOneWay, micros: map[int][]float64{16: {1}}}
	r = newRunner(t, Config{Payloads: []int{16}, Samples: 1})
	err = r.Run(context.Background(), []Sub{selfTimedSub(p)})
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "its latencies are one-way and the run's half-rtt") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, experiment.RawFileName("program_reliable"))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a raw file was written: %v", err)
	}
}

var _ driver.Pinger = (*selfTimed)(nil)
