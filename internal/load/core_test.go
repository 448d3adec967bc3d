package load

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

func TestHeaderRoundTrip(t *testing.T) {
	h := Header{SendNs: 1_700_000_000_123_456_789, Seq: MaxSeq - 3, Publisher: 513, Flags: FlagWarmup | FlagProbe, Topic: 7, RunID: 0xdeadbeef}
	for _, n := range []int{16, 23, 24, 100} {
		msg := make([]byte, n)
		h.Put(msg)
		Fill(msg)
		got, full, err := Parse(msg)
		if err != nil {
			t.Fatalf("%d B: %v", n, err)
		}
		want := h
		if n < HeaderSize {
			want.Topic, want.RunID = 0, 0
		}
		if got != want || full != (n >= HeaderSize) {
			t.Fatalf("%d B: got %+v full %v, want %+v", n, got, full, want)
		}
	}
	// The layout is formats §9's: bytes 0–7 the time, 8–15 the sequence word.
	msg := make([]byte, 24)
	Header{SendNs: 1, Seq: 2, Publisher: 3, Flags: 4, Topic: 5, RunID: 6}.Put(msg)
	want := []byte{1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0, 4, Version, 0, 5, 0, 6, 0, 0, 0}
	if string(msg) != string(want) {
		t.Fatalf("bytes % x, want % x", msg, want)
	}
	if _, _, err := Parse(msg[:15]); err == nil {
		t.Error("a 15-byte message parsed")
	}
	msg[16] = 9
	if _, _, err := Parse(msg); err == nil {
		t.Error("version 9 parsed")
	}
}

func TestTracker(t *testing.T) {
	var tr Tracker
	for _, s := range []uint64{0, 1, 2, 5, 3, 3, 7, 6, 0} {
		tr.Observe(s)
	}
	// 0 1 2 5 (gap 3,4) 3 (ooo) 3 (dup) 7 (gap 6) 6 (ooo) 0 (dup)
	if tr.Unique != 7 || tr.Duplicates != 2 || tr.OutOfOrder != 2 || tr.Gaps != 1 {
		t.Fatalf("%+v", tr)
	}
	if l := tr.Lost(8); l != 1 {
		t.Fatalf("lost of 8 = %d, want 1 (4 never arrived)", l)
	}
	if l := tr.Lost(10); l != 3 {
		t.Fatalf("lost of 10 = %d, want 3", l)
	}
	// A jump beyond the window clears it: nothing older is a duplicate.
	var big Tracker
	big.Observe(0)
	big.Observe(SeqWindow * 3)
	if !big.Observe(1) || big.Duplicates != 0 || big.OutOfOrder != 1 {
		t.Fatalf("%+v", big)
	}
	// Random permutation with duplicates: counts match a map.
	rng := rand.New(rand.NewPCG(1, 2))
	var tr2 Tracker
	seen := map[uint64]bool{}
	dups := 0
	for range 20000 {
		s := uint64(rng.IntN(5000))
		if seen[s] {
			dups++
		}
		seen[s] = true
		tr2.Observe(s)
	}
	if tr2.Unique != uint64(len(seen)) || tr2.Duplicates != uint64(dups) {
		t.Fatalf("unique %d dups %d, want %d %d", tr2.Unique, tr2.Duplicates, len(seen), dups)
	}
}

func TestSchedule(t *testing.T) {
	start := time.Unix(1000, 0)
	s := NewSchedule(1000, start) // 1 ms period
	due, sk := s.Next(start)
	if !due.Equal(start) || sk != 0 {
		t.Fatalf("first slot %v skipped %d", due, sk)
	}
	due, sk = s.Next(start.Add(500 * time.Microsecond))
	if !due.Equal(start.Add(time.Millisecond)) || sk != 0 {
		t.Fatalf("second slot %v skipped %d", due, sk)
	}
	// Less than one period behind: no skip, the late slot keeps its time.
	due, sk = s.Next(start.Add(2900 * time.Microsecond))
	if !due.Equal(start.Add(2*time.Millisecond)) || sk != 0 {
		t.Fatalf("third slot %v skipped %d", due, sk)
	}
	// A stall to 10.5 ms: slots 3..9 skipped, slot 10 due at 10 ms.
	due, sk = s.Next(start.Add(10500 * time.Microsecond))
	if !due.Equal(start.Add(10*time.Millisecond)) || sk != 7 {
		t.Fatalf("after a stall: slot %v skipped %d, want 10ms and 7", due.Sub(start), sk)
	}
	u := NewSchedule(0, start)
	now := start.Add(time.Hour)
	if due, sk := u.Next(now); !due.Equal(now) || sk != 0 {
		t.Fatalf("unpaced: %v %d", due, sk)
	}
}

func TestRecorderConcurrent(t *testing.T) {
	r := NewRecorder()
	var wg sync.WaitGroup
	const per = 20000
	for g := range 4 {
		sh := r.Shard()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				sh.Record(int64(1000 * (1 + (i+g*per)%1000))) // 1..1000 µs, uniform
			}
		}()
	}
	// Snapshots while recording are safe (run with -race).
	for range 10 {
		r.Snapshot()
		r.Interval()
	}
	wg.Wait()
	h, above := r.Snapshot()
	st := StatsOf(h, above)
	if st.Count != 4*per || st.MinNs != 1000 || st.AboveRange != 0 {
		t.Fatalf("%+v", st)
	}
	// Uniform 1..1000 µs: p50 ≈ 500 µs, p99 ≈ 990 µs within 3 significant digits.
	if st.P50Ns < 499_000 || st.P50Ns > 501_500 || st.P99Ns < 989_000 || st.P99Ns > 991_500 {
		t.Fatalf("percentiles %+v", st)
	}
	if st.MaxNs < 999_000 || st.MaxNs > 1_001_000 || st.MeanNs < 499_000 || st.MeanNs > 502_000 {
		t.Fatalf("max/mean %+v", st)
	}
	sh := r.Shard()
	sh.Record(20 * HighestNs)
	if _, above := r.Snapshot(); above != 1 {
		t.Fatalf("above range %d", above)
	}
	if v, c := Clamp(-5); v != 0 || !c {
		t.Fatal("Clamp(-5)")
	}
	r.Reset()
	if h, _ := r.Snapshot(); h.TotalCount() != 0 {
		t.Fatal("Reset left values")
	}
}

// TestCountsIndex holds Shard's layout of the counts to hdrhistogram-go's.
// Each value from 4,990 up, one at a time, lands in the count whose
// histogram has it as an equivalent of its minimum and maximum. And a shard
// fed many values (every value below 5,000, the powers of two and their
// neighbours, the range's ends, a spread over every magnitude up to
// HighestNs) gives the histogram the library's own recording gives, count
// for count, over intervals taken and not.
func TestCountsIndex(t *testing.T) {
	var values []int64
	for v := range int64(5000) {
		values = append(values, v)
	}
	for p := int64(1); p <= HighestNs; p *= 2 {
		values = append(values, p-1, p, p+1, min(3*p/2, HighestNs))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		values = append(values, int64(math.Exp(rng.Float64()*math.Log(HighestNs))))
	}
	values = append(values, HighestNs-1, HighestNs)
	one := make([]int64, countsLen)
	for _, v := range values[4990:] {
		i := countsIndex(v)
		if i < 0 || i >= countsLen {
			t.Fatalf("%d: index %d outside %d counts", v, i, countsLen)
		}
		one[i] = 1
		h := hdrhistogram.Import(&hdrhistogram.Snapshot{LowestTrackableValue: LowestNs, HighestTrackableValue: HighestNs, SignificantFigures: SigFigs, Counts: one})
		one[i] = 0
		if !h.ValuesAreEquivalent(h.Min(), v) || !h.ValuesAreEquivalent(h.Max(), v) {
			t.Fatalf("%d: recorded in the count of %d..%d", v, h.Min(), h.Max())
		}
	}
	r, want := NewRecorder(), NewHistogram()
	sh := r.Shard()
	for k, v := range values {
		for range 1 + k%3 {
			sh.Record(v)
			if err := want.RecordValue(v); err != nil {
				t.Fatal(err)
			}
		}
		if k%1000 == 0 {
			r.Interval()
		}
	}
	got, _ := r.Snapshot()
	if !slices.Equal(got.Export().Counts, want.Export().Counts) || got.TotalCount() != want.TotalCount() {
		t.Fatalf("the shard's histogram differs from hdrhistogram's: %d and %d values, min %d and %d, max %d and %d",
			got.TotalCount(), want.TotalCount(), got.Min(), want.Min(), got.Max(), want.Max())
	}
}

func TestTopology(t *testing.T) {
	for _, c := range []struct {
		scenario           string
		pubs, subs, topics int
		want               string
		expected           uint64 // of 10 messages per publisher
	}{
		{FanIn, 4, 0, 0, "fan-in 4×1 on 1 topic", 40},
		{FanOut, 0, 3, 0, "fan-out 1×3 on 1 topic", 30},
		{StraightRun, 3, 0, 0, "straight-run 3×3 on 3 topics", 30},
		{RoundRobin, 4, 2, 0, "round-robin 4×2 on 2 topics", 40},
		{RoundRobin, 2, 4, 2, "round-robin 2×4 on 2 topics", 20},
		{RoundRobin, 3, 3, 1, "round-robin 3×3 on 1 topic", 30}, // each message to one subscriber
		{RoundRobin, 1, 3, 0, "round-robin 1×3 on 1 topic", 10},
	} {
		tp, err := NewTopology(c.scenario, c.pubs, c.subs, c.topics)
		if err != nil {
			t.Fatalf("%s: %v", c.want, err)
		}
		sent := make([]uint64, tp.Publishers)
		for i := range sent {
			sent[i] = 10
		}
		if tp.String() != c.want || tp.Expected(sent) != c.expected {
			t.Errorf("got %s expecting %d, want %s expecting %d", tp, tp.Expected(sent), c.want, c.expected)
		}
	}
	for _, bad := range []struct {
		scenario           string
		pubs, subs, topics int
	}{{FanIn, 2, 2, 0}, {FanOut, 2, 1, 0}, {StraightRun, 2, 3, 0}, {RoundRobin, 2, 2, 3}, {"mesh", 1, 1, 1}, {FanIn, -1, 0, 0}} {
		if _, err := NewTopology(bad.scenario, bad.pubs, bad.subs, bad.topics); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	for name, want := range map[string]string{"fanout": "did you mean fan-out?", "fan": "round-robin", "mesh": "round-robin"} {
		_, err := NewTopology(name, 1, 1, 1)
		if err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("scenario %q: error %v, want it to end %q", name, err, want)
		}
	}
}

// TestLastTickKeepsCounts: a message counted after a tick read the
// counters, its latency already taken by that tick's interval, is in the
// last tick; the ticks then hold every reception, as the run's counters do.
func TestLastTickKeepsCounts(t *testing.T) {
	r := &run{payload: 16, rec: NewRecorder(), t0: time.Now()}
	tk := &ticker{r: r, prevAt: r.t0}
	s := r.rec.Shard()
	r.c.MessagesReceived.Add(1)
	s.Record(1000)
	r.c.MessagesReceived.Add(1) // counted after the tick's counters...
	s.Record(2000)              // ...its latency before the tick's interval
	v := r.c.Load()
	v.MessagesReceived--
	tk.ticks = append(tk.ticks, Tick{Values: v, Delta: v, Latency: r.rec.Interval()})
	tk.prev = v
	tk.last()
	var lat int64
	var recv uint64
	for _, x := range tk.ticks {
		lat += x.Latency.TotalCount()
		recv += x.Delta.MessagesReceived
	}
	if len(tk.ticks) != 2 || lat != 2 || recv != 2 {
		t.Fatalf("%d ticks holding %d latencies and %d receptions, want 2, 2 and 2", len(tk.ticks), lat, recv)
	}
	tk.last()
	if len(tk.ticks) != 2 {
		t.Errorf("a last tick with nothing new: %d ticks", len(tk.ticks))
	}
}

// TestWaitLearnsLateSleeps: on a host whose sleeps wake 800 µs late (a
// fake clock: each sleep takes 800 µs more than asked, each look at the
// clock while yielding 1 µs), a schedule of 500 msg/s returns from each
// wait after its slot and, once its first sleeps have shown how late they
// wake, within 10 µs of it, yielding for less than half a period; then,
// with the lateness gone, it sleeps again for most of each period.
func TestWaitLearnsLateSleeps(t *testing.T) {
	start := time.Unix(1000, 0)
	clock := start
	overshoot := 800 * time.Microsecond
	looks := 0
	s := NewSchedule(500, start) // 2 ms period
	s.now = func() time.Time { looks++; clock = clock.Add(time.Microsecond); return clock }
	s.sleep = func(d time.Duration) { clock = clock.Add(d + overshoot) }
	never := func() bool { return false }
	for k := range 200 {
		due, skipped := s.Next(clock)
		if skipped != 0 {
			t.Fatalf("slot %d: %d skipped", k, skipped)
		}
		looks = 0
		s.Wait(due, never)
		if late := clock.Sub(due); late < 0 || (k >= 20 && late > 10*time.Microsecond) {
			t.Fatalf("slot %d: returned %v after its time", k, late)
		}
		if k >= 20 && time.Duration(looks)*time.Microsecond > time.Millisecond {
			t.Fatalf("slot %d: yielded through %d µs of a 2 ms period", k, looks)
		}
	}
	overshoot = 0
	for k := range 200 {
		due, _ := s.Next(clock)
		looks = 0
		s.Wait(due, never)
		if k >= 50 && time.Duration(looks)*time.Microsecond > 300*time.Microsecond {
			t.Fatalf("punctual sleeps, slot %d: yielded through %d µs; want the wait asleep for most of the period", k, looks)
		}
	}
}

// TestWaitSleepsAtHighRates: at 20,000 msg/s (a 50 µs period) on a host
// whose sleeps wake 10 µs late (a fake clock: each look while yielding
// 1 µs), a publisher sleeps for most of each period and yields through at
// most a third of it. Yielding through every period, it kept a core busy
// all run long, which on two cores the broker it measured waited for:
// NATS p50 1–2.4 ms at 20,000 msg/s instead of 33 µs.
func TestWaitSleepsAtHighRates(t *testing.T) {
	start := time.Unix(1000, 0)
	clock := start
	looks := 0
	s := NewSchedule(20000, start)
	s.now = func() time.Time { looks++; clock = clock.Add(time.Microsecond); return clock }
	s.sleep = func(d time.Duration) { clock = clock.Add(d + 10*time.Microsecond) }
	never := func() bool { return false }
	yielded := 0
	for k := range 2000 {
		due, skipped := s.Next(clock)
		if skipped != 0 {
			t.Fatalf("slot %d: %d skipped", k, skipped)
		}
		looks = 0
		s.Wait(due, never)
		if late := clock.Sub(due); late < 0 || (k >= 50 && late > 10*time.Microsecond) {
			t.Fatalf("slot %d: returned %v after its time", k, late)
		}
		if k >= 50 {
			yielded += looks
		}
	}
	if per := float64(yielded) / 1950; per > 50.0/3 {
		t.Errorf("yielded through %.1f µs of each 50 µs period: the publisher keeps a core busy", per)
	}
}

// Reset empties every shard of r.
func (r *Recorder) Reset() {
	r.each(func(s *Shard) {
		s.total.Reset()
		for i := range s.interval {
			s.interval[i].Store(0)
		}
		s.above.Store(0)
	})
}
