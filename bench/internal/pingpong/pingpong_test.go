package pingpong

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParsePing(t *testing.T) {
	for _, c := range []struct {
		args    []string
		at, min int
		want    Ping
		err     string
	}{
		{args: []string{"ping", "u", "q", "100"}, at: 3, min: 1, want: Ping{N: 100, Size: 16, Warmup: 10, CPU: -1}},
		{args: []string{"ping", "u", "q", "5", "8", "0", "3"}, at: 3, min: 8, want: Ping{N: 5, Size: 8, Warmup: 0, CPU: 3}},
		{args: []string{"9", "7", "1"}, at: 1, min: 1, want: Ping{N: 7, Size: 1, Warmup: 0, CPU: -1}},
		{args: []string{"ping", "u", "q", "0"}, at: 3, min: 1, err: "N must be at least 1"},
		{args: []string{"ping", "u", "q", "x"}, at: 3, min: 1, err: "N must be at least 1"},
		{args: []string{"ping", "u", "q", "10", "7"}, at: 3, min: 8, err: "SIZE must be at least 8"},
		{args: []string{"ping", "u", "q", "10", "0"}, at: 3, min: 1, err: "SIZE must be at least 1"},
		{args: []string{"ping", "u", "q", "10", "16", "-1"}, at: 3, min: 1, err: `argument 6: "-1" is not a count`},
		{args: []string{"ping", "u", "q", "10", "16", "1", "cpu"}, at: 3, min: 1, err: `argument 7: "cpu" is not a count`},
	} {
		got, err := ParsePing(c.args, c.at, c.min)
		switch {
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("ParsePing(%q): error %v, want %q", c.args, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("ParsePing(%q) = %+v, %v, want %+v", c.args, got, err, c.want)
		}
	}
}

// TestMedian: the warm-up trips are run and dropped, the median is
// numpy's (the mean of the two middle values for an even N), and a
// trip's error ends the loop.
func TestMedian(t *testing.T) {
	for _, c := range []struct {
		warmup int
		times  []time.Duration
		want   float64
	}{
		{2, []time.Duration{1000, 900, 40, 10, 30}, 30},
		{1, []time.Duration{1000, 40, 10, 30, 20}, 25},
		{0, []time.Duration{7, 4}, 5.5},
		{3, []time.Duration{1, 1, 1, 9}, 9},
	} {
		p := Ping{N: len(c.times) - c.warmup, Warmup: c.warmup}
		var ran []int
		got, err := p.Median(func(i int) (time.Duration, error) {
			ran = append(ran, i)
			return c.times[i], nil
		})
		if err != nil || got != c.want {
			t.Errorf("%+v over %v = %v, %v, want %v", p, c.times, got, err, c.want)
		}
		if len(ran) != len(c.times) || !slices.IsSorted(ran) || ran[0] != 0 {
			t.Errorf("%+v ran trips %v", p, ran)
		}
	}
	boom := errors.New("boom")
	calls := 0
	if _, err := (Ping{N: 5, Warmup: 1}).Median(func(i int) (time.Duration, error) {
		calls++
		if i == 2 {
			return 0, boom
		}
		return 1, nil
	}); err != boom || calls != 3 {
		t.Errorf("error after %d trips: %v, want boom after 3", calls, err)
	}
}

// TestNoClientLibrary: the floors share this package so that each measures
// its own client library; this package depends on none.
func TestNoClientLibrary(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep != "github.com/mqgate/mqgate/bench/internal/pingpong" && !strings.HasPrefix(dep, "golang.org/x/sys/") {
			t.Errorf("pingpong depends on %s", dep)
		}
	}
}
