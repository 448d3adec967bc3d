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

// TestNearestName: each name of the list is an item of its own, so that a
// prefix of several names guesses none (given to Nearest as one group, the
// list was one item and "nats" got its first name, intraprocess_best_effort).
func TestNearestName(t *testing.T) {
	names := []string{"intraprocess_best_effort", "nats_best_effort", "nats_reliable", "zenoh_reliable"}
	for _, c := range []struct{ name, want string }{
		{"nats", ""},
		{"zenoh_rel", "zenoh_reliable"},
		{"nats_relaible", "nats_reliable"},
		{"intra", "intraprocess_best_effort"},
	} {
		if got := NearestName(c.name, names); got != c.want {
			t.Errorf("NearestName(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}
