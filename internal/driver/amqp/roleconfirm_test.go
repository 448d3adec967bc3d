package amqp

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
)

// TestRoleConfirm: a role's client confirms what the broker has, not what
// it wrote to its socket: not while the link is stalled, again once it
// flows, and never once it was cut with messages published after the
// last confirmation; best effort (a round trip after them) and reliable
// (publisher confirms) alike. The broker is reached through a proxy the
// test stalls and cuts.
func TestRoleConfirm(t *testing.T) {
	url := brokerURL(t)
	for _, reliable := range []bool{false, true} {
		t.Run(map[bool]string{false: "best_effort", true: "reliable"}[reliable], func(t *testing.T) {
			px, via := drivertest.StartProxy(t, url)
			c, err := Transport{}.DialClient(t.Context(), []string{via}, opts(reliable), 2*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			b, ok := c.(driver.Confirmer)
			if !ok {
				t.Fatal("the role client is no driver.Confirmer: a pub counts what it took as sent")
			}
			topic := "mqgate-test.confirm." + strings.ReplaceAll(t.Name(), "/", "_")
			publish := func() {
				for range 100 {
					c.Publish(topic, make([]byte, 64))
				}
			}
			confirm := func(timeout time.Duration) error { return drivertest.Confirm(t, b, timeout) }
			publish()
			if err := confirm(2 * time.Second); err != nil {
				t.Fatalf("Confirm on a working link: %v", err)
			}
			release := px.Hold()
			publish()
			if err := confirm(300 * time.Millisecond); !errors.Is(err, driver.ErrTimeout) {
				t.Fatalf("Confirm while the broker could read nothing: %v, want a timeout", err)
			}
			release()
			if err := confirm(2 * time.Second); err != nil {
				t.Fatalf("Confirm once the link flows again: %v", err)
			}
			px.Hold() // what follows never reaches the broker
			publish()
			px.Kill()
			if err := confirm(2 * time.Second); err == nil || !strings.Contains(err.Error(), "did not confirm") {
				t.Fatalf("Confirm after the link was cut: %v, want an error", err)
			}
		})
	}
}

// TestRoleTxFlushCommits: a role's client that publishes in transactions
// commits the open one at Flush, best effort too: the last messages of a
// pub, its end markers among them, were never committed. It is no
// Confirmer: a Confirm would commit, changing the transactions measured.
func TestRoleTxFlushCommits(t *testing.T) {
	url := brokerURL(t)
	for _, reliable := range []bool{false, true} {
		t.Run(map[bool]string{false: "best_effort", true: "reliable"}[reliable], func(t *testing.T) {
			c, err := Transport{}.DialClient(t.Context(), []string{url}, opts(reliable, FlagTxSize, "100"), 2*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, ok := c.(driver.Confirmer); ok {
				t.Fatal("a transactional role client is a driver.Confirmer")
			}
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
