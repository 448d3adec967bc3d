package driver

import (
	"testing"
	"time"
)

func TestParseDelay(t *testing.T) {
	for in, want := range map[string]Delay{
		"50us":         {Mean: 50 * time.Microsecond},
		"50µs±10µs":    {Mean: 50 * time.Microsecond, Jitter: 10 * time.Microsecond},
		"50us+-10us":   {Mean: 50 * time.Microsecond, Jitter: 10 * time.Microsecond},
		" 2ms ± 2ms ":  {Mean: 2 * time.Millisecond, Jitter: 2 * time.Millisecond},
		"0s":           {},
		"1.5ms+-0.5ms": {Mean: 1500 * time.Microsecond, Jitter: 500 * time.Microsecond},
	} {
		got, err := ParseDelay(in)
		if err != nil || got != want {
			t.Errorf("ParseDelay(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if err == nil && !got.IsZero() {
			if back, err := ParseDelay(got.String()); err != nil || back != got {
				t.Errorf("ParseDelay(%q.String() = %q) = %+v, %v", in, got.String(), back, err)
			}
		}
	}
	for _, in := range []string{"", "fast", "50", "-1ms", "1ms±2ms", "1ms±", "±1ms", "1ms+-x", "1ms±-1us", "2m"} {
		if d, err := ParseDelay(in); err == nil {
			t.Errorf("ParseDelay(%q) = %+v, want an error", in, d)
		}
	}
}

// TestDelayerDraws checks the jitter's range, its uniformity (mean and
// spread of many draws) and that a seed repeats its sequence.
func TestDelayerDraws(t *testing.T) {
	d := Delay{Mean: 100 * time.Microsecond, Jitter: 40 * time.Microsecond, Seed: 3}
	a, b := d.NewDelayer(), d.NewDelayer()
	const n = 100000
	var sum, sq float64
	lo, hi := time.Hour, time.Duration(0)
	for range n {
		x := a.Next()
		if y := b.Next(); x != y {
			t.Fatalf("two delayers with one seed differ: %v and %v", x, y)
		}
		lo, hi = min(lo, x), max(hi, x)
		f := float64(x - d.Mean)
		sum += f
		sq += f * f
	}
	if lo < 60*time.Microsecond || hi > 140*time.Microsecond || lo > 61*time.Microsecond || hi < 139*time.Microsecond {
		t.Errorf("draws span [%v, %v]; want [60µs, 140µs] covered", lo, hi)
	}
	// Uniform on [-J, J]: mean 0, variance J²/3; 100000 draws put the
	// sample mean within 1% of J and the variance within 2% of J²/3.
	j := float64(d.Jitter)
	if mean := sum / n; mean > 0.01*j || mean < -0.01*j {
		t.Errorf("mean offset %.0f ns; want about 0", mean)
	}
	if v := sq / n; v < 0.98*j*j/3 || v > 1.02*j*j/3 {
		t.Errorf("variance %.3g ns²; want about %.3g", v, j*j/3)
	}
	other := Delay{Mean: d.Mean, Jitter: d.Jitter, Seed: 4}.NewDelayer()
	same := 0
	c := d.NewDelayer()
	for range 100 {
		if c.Next() == other.Next() {
			same++
		}
	}
	if same > 10 {
		t.Errorf("seeds 3 and 4 agree on %d of 100 draws", same)
	}
}

// TestDelayerWait checks that Wait lasts at least the delay drawn (a loaded
// machine may make it longer, never shorter) and that no delay costs
// nothing.
func TestDelayerWait(t *testing.T) {
	var none *Delayer
	none.Wait()
	if (Delay{}).NewDelayer() != nil {
		t.Error("a zero delay makes a delayer")
	}
	for _, d := range []Delay{{Mean: 50 * time.Microsecond}, {Mean: 3 * time.Millisecond, Jitter: time.Millisecond}} {
		w, twin := d.NewDelayer(), d.NewDelayer()
		for range 20 {
			want := twin.Next()
			start := time.Now()
			w.Wait()
			if el := time.Since(start); el < want {
				t.Errorf("%v: Wait took %v; drew %v", d, el, want)
			}
		}
	}
}

// FuzzParseDelay: whatever the input, ParseDelay either refuses it or
// returns a delay that is never negative, whose jitter does not exceed it,
// and whose String reads back to the same delay.
func FuzzParseDelay(f *testing.F) {
	for _, s := range []string{"50us", "50us±10us", "50us+-10us", "1ms±2ms", "-1s", "±", "+-", "1h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDelay(s)
		if err != nil {
			return
		}
		if d.Mean < 0 || d.Jitter < 0 || d.Jitter > d.Mean || d.Mean > time.Minute {
			t.Fatalf("ParseDelay(%q) = %+v", s, d)
		}
		if back, err := ParseDelay(d.String()); err != nil || back != d {
			t.Fatalf("ParseDelay(%q) = %+v; its String %q reads back as %+v, %v", s, d, d.String(), back, err)
		}
		if x := (Delay{Mean: d.Mean, Jitter: d.Jitter, Seed: 9}).NewDelayer().Next(); !d.IsZero() && (x < d.Mean-d.Jitter || x > d.Mean+d.Jitter) {
			t.Fatalf("%+v drew %v", d, x)
		}
	})
}

// TestEchoWorkScales checks that the calibrated iterations grow with the
// work asked for and that no work means no loop.
func TestEchoWorkScales(t *testing.T) {
	if p := (Delay{Mean: time.Microsecond}).NewDelayer(); p.iters != 0 {
		t.Errorf("a delay without work runs %d iterations", p.iters)
	}
	a, b := Delay{Work: 10 * time.Microsecond}.NewDelayer(), Delay{Work: 100 * time.Microsecond}.NewDelayer()
	if r := float64(b.iters) / float64(a.iters); r < 3 || r > 30 {
		t.Errorf("10µs and 100µs of work calibrate to %d and %d iterations", a.iters, b.iters)
	}
}
