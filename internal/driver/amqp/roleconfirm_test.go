package amqp

import (
	"strings"
	"testing"
	"time"
)

// TestRoleTxFlushCommits: a role's client that publishes in transactions
// commits the open one at Flush, best effort too: the last messages of a
// pub, its end markers among them, were never committed.
func TestRoleTxFlushCommits(t *testing.T) {
	url := brokerURL(t)
	for _, reliable := range []bool{false, true} {
		t.Run(map[bool]string{false: "best_effort", true: "reliable"}[reliable], func(t *testing.T) {
			c, err := Transport{}.DialClient(t.Context(), []string{url}, opts(reliable, FlagTxSize, "100"), 2*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			topic := "mqgate-test.tx." + strings.ReplaceAll(t.Name(), "/", "_")
			got := make(chan struct{}, 10)
			stop, err := c.Subscribe(topic, func(string, []byte, time.Time) { got <- struct{}{} })
			if err != nil {
				t.Fatal(err)
			}
			defer stop()
			if err := c.Publish(topic, []byte("one of a transaction of 100")); err != nil {
				t.Fatal(err)
			}
			if err := c.Flush(2 * time.Second); err != nil {
				t.Fatal(err)
			}
			select {
			case <-got:
			case <-time.After(2 * time.Second):
				t.Fatal("the message of the open transaction was not delivered after Flush: it was never committed")
			}
		})
	}
}
