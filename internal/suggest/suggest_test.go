package suggest

import "testing"

func TestNearest(t *testing.T) {
	subs := [][]string{{"nats_best_effort"}, {"nats_reliable"}, {"mqtt_best_effort"}, {"mqtt_exactly_once"}}
	flags := [][]string{{"payloads", "p"}, {"samples", "n"}, {"subexperiments", "s"}}
	for _, c := range []struct {
		name   string
		groups [][]string
		want   string
	}{
		{"nats_besteffort", subs, "nats_best_effort"},        // a missing underscore
		{"NATS_RELIABLE", subs, "nats_reliable"},             // case
		{"mqtt_exactly_ocne", subs, "mqtt_exactly_once"},     // a transposition
		{"zenoh_best_effort", subs, ""},                      // too far from any
		{"paylods", flags, "payloads"},                       // a letter dropped
		{"sub", flags, "subexperiments"},                     // the only name it begins
		{"x", flags, ""},                                     // too short to guess from
		{"sampels", flags, "samples"},                        // a transposition
		{"sa", [][]string{{"samples"}, {"sample-rate"}}, ""}, // ambiguous, short
	} {
		if got := Nearest(c.name, c.groups...); got != c.want {
			t.Errorf("Nearest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"", "abc", 3}, {"abc", "abc", 0}, {"abc", "acb", 1}, {"kitten", "sitting", 3}, {"µs", "us", 1}} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
