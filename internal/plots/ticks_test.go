package plots

import (
	"math"
	"strings"
	"testing"
)

func TestNiceTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi  float64
		integer bool
		labels  []string
	}{
		{0, 1, false, []string{"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"}},
		{0, 1.05, true, []string{"0", "1"}},
		{7.03, 122.6, false, []string{"20", "40", "60", "80", "100", "120"}},
		{0, 8400, true, []string{"0", "2000", "4000", "6000", "8000"}},
		{1, 10000, true, []string{"2000", "4000", "6000", "8000", "10000"}},
		{0, 12, true, []string{"0", "2", "4", "6", "8", "10", "12"}},
		{-3, 3, false, []string{"-3", "-2", "-1", "0", "1", "2", "3"}},
		{0.001, 0.0042, false, []string{"0.001", "0.002", "0.003", "0.004"}},
		{0, 0.25, false, []string{"0.00", "0.05", "0.10", "0.15", "0.20", "0.25"}},
		{0, 2.5, false, []string{"0.0", "0.5", "1.0", "1.5", "2.0", "2.5"}},
		{0, 14, false, []string{"0.0", "2.5", "5.0", "7.5", "10.0", "12.5"}},
		{5, 5, false, []string{"5"}},
	} {
		var labels []string
		ticks := niceTicks{Integer: tc.integer}.Ticks(tc.lo, tc.hi)
		for _, tk := range ticks {
			if tk.Value < tc.lo-1e-9 || tk.Value > tc.hi+1e-9 {
				t.Errorf("[%g, %g]: tick %g out of range", tc.lo, tc.hi, tk.Value)
			}
			if tc.integer && tk.Value != math.Round(tk.Value) {
				t.Errorf("[%g, %g]: integer axis has tick %g", tc.lo, tc.hi, tk.Value)
			}
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if join(labels) != join(tc.labels) {
			t.Errorf("[%g, %g] integer=%v: labels %q, want %q", tc.lo, tc.hi, tc.integer, labels, tc.labels)
		}
	}
}

func join(s []string) string { return strings.Join(s, " ") }

func TestCategoryTicks(t *testing.T) {
	for _, n := range []int{0, 1, 11, 20, 21, 100, 101, 1000} {
		cats := experimentNames(n)
		ticks := categoryTicks(cats)
		labels := 0
		for _, tk := range ticks {
			if tk.Label != "" {
				labels++
				if i := int(tk.Value); cats[i] != tk.Label {
					t.Errorf("n=%d: tick at %d labelled %q, want %q", n, i, tk.Label, cats[i])
				}
			}
		}
		if n > 0 && ticks[len(ticks)-1].Label != cats[n-1] {
			t.Errorf("n=%d: last category not labelled", n)
		}
		if labels > maxTickLabels || (n > 0 && labels < min(n, maxTickLabels/2)) {
			t.Errorf("n=%d: %d labels, want between %d and %d", n, labels, min(n, maxTickLabels/2), maxTickLabels)
		}
	}
	// Long labels are rotated, short ones are not.
	sty := newPlot("", "", "").X.Tick.Label
	if categoryTickStyle(sty, payloadNames()).Rotation != 0 {
		t.Error("payload labels rotated")
	}
	if categoryTickStyle(sty, experimentNames(30)).Rotation == 0 {
		t.Error("30 experiment names not rotated")
	}
}

func TestLogTicks(t *testing.T) {
	labels := func(lo, hi float64) string {
		var l []string
		for _, tk := range (logTicks{}).Ticks(lo, hi) {
			if tk.Label != "" {
				l = append(l, tk.Label)
			}
		}
		return strings.Join(l, " ")
	}
	for _, tc := range []struct {
		lo, hi float64
		want   string
	}{
		{0.6, 22031, "1 10 100 1000 10000"},
		{6, 3000, "10 100 1000"},
		{7, 124, "10 20 50 100"},
		{0.6, 6.5, "0.6 0.7 0.8 0.9 1 2 3 4 5 6"},
		{0.02, 0.9, "0.02 0.05 0.1 0.2 0.5"},
		{0.35, 4, "0.4 0.5 0.6 0.7 0.8 0.9 1 2 3 4"},
		{150, 170, "150 155 160 165 170"}, // no two ticks of its own: linear
	} {
		if got := labels(tc.lo, tc.hi); got != tc.want {
			t.Errorf("log ticks of [%g, %g]: labels %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
	// Minor ticks at every multiple of the powers of ten.
	if n := len((logTicks{}).Ticks(1, 100)); n != 19 {
		t.Errorf("[1, 100]: %d ticks, want 19 (1–9, 10–90, 100)", n)
	}
	if ticks := (logTicks{}).Ticks(0, 0); ticks != nil {
		t.Errorf("empty range: ticks %v, want none", ticks)
	}
}
