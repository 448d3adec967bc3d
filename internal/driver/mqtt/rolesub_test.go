package mqtt

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mochi "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/packets"

	"github.com/mqgate/mqgate/internal/driver"
)

// refusingHook lets every client in and refuses subscriptions to the
// filters starting with prefix while refuse is set.
type refusingHook struct {
	mochi.HookBase
	prefix string
	refuse atomic.Bool
}

func (h *refusingHook) ID() string { return "refusing" }

func (h *refusingHook) Provides(b byte) bool {
	return b == mochi.OnConnectAuthenticate || b == mochi.OnACLCheck
}

func (h *refusingHook) OnConnectAuthenticate(*mochi.Client, packets.Packet) bool { return true }

func (h *refusingHook) OnACLCheck(_ *mochi.Client, topic string, write bool) bool {
	return write || !h.refuse.Load() || !strings.HasPrefix(topic, h.prefix)
}

// roleClientOf dials a role client to a broker with hook h.
func roleClientOf(t *testing.T, h mochi.Hook) driver.Client {
	t.Helper()
	url, stop, err := StartBroker(nil, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop() })
	c, err := Transport{}.DialClient(context.Background(), []string{url}, driver.Options{Params: map[string]string{}}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestRoleQueryAfterRefusedReplies: a query whose reply topic the broker
// refused fails, and the next one subscribes again and gets its reply
// (it was taken for subscribed, and every later query waited for replies
// that could not come).
func TestRoleQueryAfterRefusedReplies(t *testing.T) {
	h := &refusingHook{prefix: "mqgate/reply/"}
	c := roleClientOf(t, h)
	stop, err := c.Serve("svc/q", func(req []byte, _ time.Time) [][]byte { return [][]byte{append([]byte("re:"), req...)} })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	h.refuse.Store(true)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// f returns false: one reply is all the query waits for.
	if err := c.Query(ctx, "svc/q", []byte("a"), func([]byte, time.Time) bool { return false }); err == nil || !strings.Contains(err.Error(), "refused the subscription") {
		t.Fatalf("refused reply topic: %v", err)
	}
	h.refuse.Store(false)
	got := make(chan string, 1)
	qerr := c.Query(ctx, "svc/q", []byte("b"), func(r []byte, _ time.Time) bool { got <- string(r); return false })
	select {
	case r := <-got:
		if qerr != nil || r != "re:b" {
			t.Fatalf("query after the refusal: %q, %v", r, qerr)
		}
	default:
		// A query whose deadline passed ends without an error.
		t.Fatalf("query after the refusal: no reply (%v)", qerr)
	}
}

// TestRoleRefusedSubscriptionGetsNothing: a subscription the broker
// refused, and one ended, no longer receive what an overlapping
// subscription brings.
func TestRoleRefusedSubscriptionGetsNothing(t *testing.T) {
	h := &refusingHook{prefix: "data/#"}
	c := roleClientOf(t, h)
	var stale, ended atomic.Int64
	h.refuse.Store(true)
	if _, err := c.Subscribe("data/#", func(string, []byte, time.Time) { stale.Add(1) }); err == nil {
		t.Fatal("the refused subscription succeeded")
	}
	h.refuse.Store(false)
	stopOld, err := c.Subscribe("data/+", func(string, []byte, time.Time) { ended.Add(1) })
	if err != nil {
		t.Fatal(err)
	}
	if err := stopOld(); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	stop, err := c.Subscribe("data/x", func(topic string, _ []byte, _ time.Time) { got <- topic })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if err := c.Publish("data/x", []byte("m")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("nothing delivered")
	}
	time.Sleep(50 * time.Millisecond) // a stale handler runs in the same delivery
	if stale.Load() != 0 || ended.Load() != 0 {
		t.Errorf("the refused subscription got %d messages, the ended one %d", stale.Load(), ended.Load())
	}
}
