package throughput

import (
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/load"
)

// TestLoadRowsWholeIntervals: a load run's rate samples are its whole
// intervals, as its warning counts them: 1.5 s in intervals of 1 s is one
// sample (the last 0.5 s counted as much as a whole interval, and the
// warning said 1 where the file held 2); a period shorter than one interval
// is one sample.
func TestLoadRowsWholeIntervals(t *testing.T) {
	tick := func(period time.Duration, received uint64, drain bool) load.Tick {
		tk := load.Tick{Period: period, Drain: drain}
		tk.Delta.MessagesReceived = received
		return tk
	}
	for _, c := range []struct {
		duration time.Duration
		ticks    []load.Tick
		samples  int
		median   float64
	}{
		{1500 * time.Millisecond, []load.Tick{tick(time.Second, 1000, false), tick(500*time.Millisecond, 100, false), tick(time.Second, 5, true)}, 1, 1000},
		{2 * time.Second, []load.Tick{tick(time.Second, 1000, false), tick(time.Second, 800, false)}, 2, 900},
		{300 * time.Millisecond, []load.Tick{tick(300*time.Millisecond, 30, false)}, 1, 100},
	} {
		cfg := load.Config{Duration: c.duration, Interval: time.Second, Rate: 1000}
		rows := LoadRows(cfg, []load.PayloadResult{{Payload: 16, Ticks: c.ticks}})
		if len(rows) != 1 || rows[0].Samples != c.samples || rows[0].Median != c.median {
			t.Errorf("%v: %+v, want %d samples, median %v", c.duration, rows, c.samples, c.median)
		}
		if got := cfg.RateWindows(); got != c.samples {
			t.Errorf("%v: RateWindows %d, the file holds %d", c.duration, got, c.samples)
		}
	}
}
