package flagrange

import (
	"context"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/exit"
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

// TestCheck runs a command whose flags have ranges: a value given outside
// the range is a usage error naming the flag and the range, and the
// action never runs; defaults outside the range (a sentinel) and values
// inside pass; --help states the ranges.
func TestCheck(t *testing.T) {
	newApp := func(ran *bool) *cli.App {
		flags := []cli.Flag{
			Of(&cli.IntFlag{Name: "port", Usage: "a port"}, Int(1, 65535).OrZero("off")),
			Of(&cli.IntFlag{Name: "cpu", Value: -1, Usage: "a CPU"}, Int(0, 7)),
			Of(&cli.Float64Flag{Name: "rate", Value: 1, Usage: "a rate"}, Float(0, 1e9).Above()),
			Of(&cli.DurationFlag{Name: "timeout", Value: time.Second, Usage: "a timeout"}, Duration(time.Millisecond, time.Hour)),
			// A driver's settings are text flags holding a number.
			Of(&cli.StringFlag{Name: "prefetch", Value: "0", Usage: "a count"}, Int(0, 65535)),
			Of(&cli.StringFlag{Name: "keepalive", Value: "30s", Usage: "a period"}, Duration(time.Second, time.Hour)),
			Of(&cli.StringFlag{Name: "ratio", Value: "0.5", Usage: "a ratio"}, Float(0, 1)),
		}
		return &cli.App{Name: "t", Flags: flags, Action: Checked(flags, func(*cli.Context) error { *ran = true; return nil })}
	}
	for _, c := range []struct {
		args []string
		want string // "" for success
	}{
		{nil, ""},
		{[]string{"--port", "0", "--cpu", "7", "--rate", "1e9", "--timeout", "1h"}, ""},
		{[]string{"--port", "65536"}, "--port 65536: expected 0 (off) or 1 to 65535"},
		{[]string{"--cpu", "-1"}, "--cpu -1: expected 0 to 7"},
		{[]string{"--rate", "NaN"}, "--rate NaN: expected more than 0, up to 1000000000"},
		{[]string{"--rate", "1e308"}, "--rate 1e+308: expected"},
		{[]string{"--rate", "0"}, "--rate 0: expected"},
		{[]string{"--timeout", "0s"}, "--timeout 0s: expected 1ms to 1h"},
		{[]string{"--timeout", "-5s"}, "--timeout -5s: expected 1ms to 1h"},
		{[]string{"--prefetch", "65535", "--keepalive", " 1h ", "--ratio", "1"}, ""},
		{[]string{"--prefetch", "-1"}, "--prefetch -1: expected 0 to 65535"},
		{[]string{"--prefetch", "99999999999999999999"}, "--prefetch 99999999999999999999: expected 0 to 65535"},
		{[]string{"--prefetch", "1e3"}, `--prefetch "1e3": expected a whole number, 0 to 65535`},
		{[]string{"--prefetch", ""}, `--prefetch "": expected a whole number, 0 to 65535`},
		{[]string{"--keepalive", "0s"}, "--keepalive 0s: expected 1s to 1h"},
		{[]string{"--keepalive", "NaN"}, `--keepalive "NaN": expected a duration such as 10s, 1s to 1h`},
		{[]string{"--ratio", "NaN"}, "--ratio NaN: expected 0 to 1"},
		{[]string{"--ratio", "ten"}, `--ratio "ten": expected a number, 0 to 1`},
	} {
		ran := false
		var stderr strings.Builder
		code := cliapp.Run(context.Background(), newApp(&ran), append([]string{"t"}, c.args...), io.Discard, &stderr)
		if c.want == "" {
			if code != 0 || !ran {
				t.Errorf("%v: exit %d, ran %v: %s", c.args, code, ran, stderr.String())
			}
			continue
		}
		if code != exit.Usage || ran || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, ran %v, stderr %q; want exit 2 and %q", c.args, code, ran, stderr.String(), c.want)
		}
	}
	var help strings.Builder
	ran := false
	cliapp.Run(context.Background(), newApp(&ran), []string{"t", "--help"}, &help, io.Discard)
	for _, want := range []string{"a port (valid: 0 (off) or 1 to 65535)", "a timeout (valid: 1ms to 1h)", "a count (valid: 0 to 65535)"} {
		if !strings.Contains(help.String(), want) {
			t.Errorf("--help lacks %q:\n%s", want, help.String())
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
