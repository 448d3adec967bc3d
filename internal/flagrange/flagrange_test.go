package flagrange

import (
	"math"
	"testing"
	"time"
)

func TestRangeContainsAndString(t *testing.T) {
	for _, c := range []struct {
		r    Range
		text string
		in   []float64
		out  []float64
	}{
		{Int(1, 65535), "1 to 65535", []float64{1, 65535}, []float64{0, -1, 65536, 1.5, math.NaN()}},
		{Int(1, 65535).OrZero("off"), "0 (off) or 1 to 65535", []float64{0, 1, 65535}, []float64{-1, 65536}},
		{Float(0, 1).Above().Below(), "more than 0 and less than 1", []float64{0.5, 1e-9}, []float64{0, 1, math.NaN(), math.Inf(1)}},
		{Float(0, 1e9).Above().OrZero("as fast as possible"), "0 (as fast as possible) to 1000000000", []float64{0, 1e9, 0.1}, []float64{-1, 1e308, math.NaN(), math.Inf(1), math.Inf(-1)}},
		{Duration(time.Millisecond, time.Hour), "1ms to 1h", []float64{float64(time.Millisecond), float64(time.Hour)}, []float64{0, -1, float64(time.Hour + 1)}},
		{Duration(time.Second, 90*time.Second), "1s to 1m30s", nil, nil},
		{Uint64(), "0 to 18446744073709551615", []float64{0, math.MaxUint64}, []float64{-1, math.NaN()}},
	} {
		if got := c.r.String(); got != c.text {
			t.Errorf("String() = %q, want %q", got, c.text)
		}
		for _, v := range c.in {
			if !c.r.Contains(v) {
				t.Errorf("%s: Contains(%v) = false", c.text, v)
			}
		}
		for _, v := range c.out {
			if c.r.Contains(v) {
				t.Errorf("%s: Contains(%v) = true", c.text, v)
			}
		}
	}
}

func TestOutside(t *testing.T) {
	for _, r := range []Range{Int(1, 100), Int(0, 10).OrZero("x"), Float(0, 1).Above().Below(), Duration(time.Millisecond, time.Hour), Uint64()} {
		vals := r.Outside()
		if len(vals) < 2 {
			t.Errorf("%s: Outside() = %v", r, vals)
		}
	}
}
