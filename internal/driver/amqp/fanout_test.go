package amqp

import "testing"

// TestCheckFanOut: more subscribers than topics need an exchange; an
// exchange of spaces is none (the settings trim it, and the run went on
// the default exchange, each message to one of the queues).
func TestCheckFanOut(t *testing.T) {
	for _, c := range []struct {
		exchange string
		ok       bool
	}{{"", false}, {"  ", false}, {"amq.direct", true}} {
		err := Transport{}.CheckFanOut(3, 1, map[string]string{FlagExchange: c.exchange})
		if (err == nil) != c.ok {
			t.Errorf("exchange %q: %v", c.exchange, err)
		}
	}
	if err := (Transport{}).CheckFanOut(1, 1, map[string]string{}); err != nil {
		t.Errorf("one subscriber a topic: %v", err)
	}
}
