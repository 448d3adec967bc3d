package amqp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
)

// TestPersistentDeliveryMode: --amqp-persistent sets the delivery mode of
// the consumed message whatever the sub-experiment, and auto follows it.
func TestPersistentDeliveryMode(t *testing.T) {
	url := brokerURL(t)
	for _, tc := range []struct {
		reliable   bool
		persistent string
		want       uint8
	}{
		{false, "auto", 1},
		{true, "auto", 2},
		{false, "true", 2},
		{true, "false", 1},
	} {
		t.Run(fmt.Sprintf("reliable=%v,persistent=%s", tc.reliable, tc.persistent), func(t *testing.T) {
			ch := rawConn(t, url)
			q, err := ch.QueueDeclare("", false, true, true, false, nil)
			if err != nil {
				t.Fatal(err)
			}
			deliveries, err := ch.Consume(q.Name, "", true, true, false, false, nil)
			if err != nil {
				t.Fatal(err)
			}
			pub := publish(t, withQueue(url, q.Name), opts(tc.reliable, FlagPersistent, tc.persistent))
			if err := pub.Send(make([]byte, 16)); err != nil {
				t.Fatal(err)
			}
			if b, ok := pub.(driver.BatchSender); ok {
				b.FlushBatch()
			}
			select {
			case d := <-deliveries:
				if d.DeliveryMode != tc.want {
					t.Fatalf("delivery mode %d, want %d", d.DeliveryMode, tc.want)
				}
			case <-time.After(drivertest.Watchdog):
				t.Fatal("nothing delivered")
			}
		})
	}
	if _, err := parseSettings(opts(false, FlagPersistent, "2")); err == nil || !strings.Contains(err.Error(), "--"+FlagPersistent) {
		t.Errorf("--%s 2: %v, want an error naming the flag", FlagPersistent, err)
	}
}

// readyCount is the number of messages ready in sub's queue, read with a
// passive declare on the subscriber's own channel (the queue is exclusive).
func readyCount(t *testing.T, sub driver.Subscriber) int {
	t.Helper()
	c := sub.(*subscriber).con
	q, err := c.ch.QueueDeclarePassive(c.queue, c.s.durable, true, true, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	return q.Messages
}

// settle polls ready until it is at most want (or the watchdog), then waits
// a little for a broker that would go on, and returns the count.
func settle(t *testing.T, sub driver.Subscriber, want int) int {
	t.Helper()
	for start := time.Now(); readyCount(t, sub) > want && time.Since(start) < drivertest.Watchdog; {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(150 * time.Millisecond)
	return readyCount(t, sub)
}

func sendN(t *testing.T, pub driver.Publisher, n int) {
	t.Helper()
	for i := range n {
		msg := make([]byte, 16)
		msg[0] = byte(i)
		if err := pub.Send(msg); err != nil {
			t.Fatal(err)
		}
	}
	if as, ok := pub.(driver.AckSender); ok {
		if err := as.WaitAcks(time.Now().Add(drivertest.Watchdog)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAutoAck: an auto-ack consumer takes every message off the queue
// without acknowledging (the prefetch limit of acknowledged deliveries does
// not hold it back), whatever the sub-experiment; a manual one with a
// prefetch of 2 leaves the rest ready until it acknowledges.
func TestAutoAck(t *testing.T) {
	url := brokerURL(t)
	for _, tc := range []struct {
		reliable  bool
		autoAck   string
		wantReady int
	}{
		{true, "true", 0},
		{false, "false", 3},
		{false, "auto", 0},
		{true, "auto", 3},
	} {
		t.Run(fmt.Sprintf("reliable=%v,auto-ack=%s", tc.reliable, tc.autoAck), func(t *testing.T) {
			o := opts(tc.reliable, FlagAutoAck, tc.autoAck, FlagPrefetch, "2")
			sub := subscribe(t, url, o)
			sendN(t, publish(t, sub.Addr(), o), 5)
			if n := settle(t, sub, tc.wantReady); n != tc.wantReady {
				t.Fatalf("%d of 5 messages ready before any Receive, want %d", n, tc.wantReady)
			}
			want := "auto-ack"
			if tc.wantReady > 0 {
				want = "manual ack, prefetch 2"
			}
			if mode := sub.(driver.InfoReporter).SystemInfo().Extra["mode"]; !strings.HasSuffix(mode, want) {
				t.Errorf("mode %q, want it to end with %q", mode, want)
			}
			buf := make([]byte, 16)
			for i := range 5 {
				if _, _, err := sub.Receive(buf, deadline()); err != nil || buf[0] != byte(i) {
					t.Fatalf("message %d: %v (got %d)", i, err, buf[0])
				}
			}
		})
	}
}

// TestConsumerTransactions: acknowledgements in transactions of 3 take
// effect when the third commits. With a prefetch of 3 and 6 messages, the
// broker delivers 3 and keeps 3 ready; two acknowledged deliveries free
// nothing (their transaction is open), the third commits and the broker
// sends the rest. Without consumer transactions two acknowledgements free
// two places at once.
func TestConsumerTransactions(t *testing.T) {
	url := brokerURL(t)
	for _, tc := range []struct {
		txSize             string
		readyAfterTwo      int
		readyAfterThree    int
		wantModeConsumerTx bool
	}{
		{"3", 3, 0, true},
		{"0", 1, 0, false},
	} {
		t.Run("consumer-tx-size="+tc.txSize, func(t *testing.T) {
			o := opts(true, FlagConsumerTxSize, tc.txSize, FlagPrefetch, "3")
			sub := subscribe(t, url, o)
			sendN(t, publish(t, sub.Addr(), o), 6)
			if n := settle(t, sub, 3); n != 3 {
				t.Fatalf("%d of 6 ready with a prefetch of 3, want 3", n)
			}
			buf := make([]byte, 16)
			receive := func(i int) {
				if _, _, err := sub.Receive(buf, deadline()); err != nil || buf[0] != byte(i) {
					t.Fatalf("message %d: %v (got %d)", i, err, buf[0])
				}
			}
			receive(0)
			receive(1)
			if n := settle(t, sub, tc.readyAfterTwo); n != tc.readyAfterTwo {
				t.Fatalf("after 2 acknowledgements: %d ready, want %d", n, tc.readyAfterTwo)
			}
			receive(2)
			if n := settle(t, sub, tc.readyAfterThree); n != tc.readyAfterThree {
				t.Fatalf("after 3 acknowledgements: %d ready, want %d", n, tc.readyAfterThree)
			}
			for i := 3; i < 6; i++ {
				receive(i)
			}
			mode := sub.(driver.InfoReporter).SystemInfo().Extra["mode"]
			if got := strings.Contains(mode, "acknowledgement transactions of 3"); got != tc.wantModeConsumerTx {
				t.Errorf("mode %q", mode)
			}
		})
	}
	for _, tc := range []struct {
		params []string
		want   string
	}{
		{[]string{FlagConsumerTxSize, "2"}, "--" + FlagAutoAck + "=false"}, // best effort: auto-ack
		{[]string{FlagConsumerTxSize, "5", FlagAutoAck, "false", FlagPrefetch, "4"}, "exceeds --" + FlagPrefetch},
		{[]string{FlagConsumerTxSize, "-1"}, "--" + FlagConsumerTxSize},
	} {
		if _, err := parseSettings(opts(false, tc.params...)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error with %q", tc.params, err, tc.want)
		}
	}
}

// TestConsumerTransactionsRoundTrip: the echoer and the pinger acknowledge
// in transactions of 2 and the round trip goes on (acknowledgements do not
// hold deliveries back without a prefetch limit).
func TestConsumerTransactionsRoundTrip(t *testing.T) {
	url := brokerURL(t)
	c := conformance(url, opts(true, FlagConsumerTxSize, "2"))
	e := drivertest.StartEcho(t, c)
	p := drivertest.Dial(t, c, e.Addr())
	buf := make([]byte, 64)
	for i := range 7 {
		msg := []byte(fmt.Sprintf("ping %d", i))
		if n, err := drivertest.RoundTrip(p, msg, buf); err != nil || string(buf[:n]) != string(msg) {
			t.Fatalf("round trip %d: %q, %v", i, buf[:n], err)
		}
	}
}

// TestImmediateRefused: RabbitMQ removed immediate in 3.0; the flag is
// refused with that reason before anything connects.
func TestImmediateRefused(t *testing.T) {
	o := opts(false, FlagImmediate, "true")
	for name, err := range map[string]error{
		"CheckParams": Transport{}.CheckParams(o),
		"Publish": func() error {
			_, err := Transport{}.Publish(context.Background(), DefaultURL+"#q", o)
			return err
		}(),
	} {
		if err == nil || !strings.Contains(err.Error(), "--"+FlagImmediate) || !strings.Contains(err.Error(), "removed the immediate flag in 3.0") {
			t.Errorf("%s with --%s true: %v", name, FlagImmediate, err)
		}
	}
	if err := (Transport{}).CheckParams(opts(false, FlagImmediate, "false")); err != nil {
		t.Errorf("--%s false: %v", FlagImmediate, err)
	}
}

// TestMandatoryOneWay: a message no queue takes comes back and is counted;
// the next Send (and WaitAcks) fail with the count, so that a one-way run
// stops rather than measuring messages that went nowhere.
func TestMandatoryOneWay(t *testing.T) {
	url := brokerURL(t)
	nowhere := withQueue(url, fmt.Sprintf("mqgate-no-such-queue-%d", time.Now().UnixNano()))
	for _, o := range []driver.Options{
		opts(false, FlagMandatory, "true"),
		opts(true, FlagMandatory, "true"),
		opts(false, FlagMandatory, "true", FlagTxSize, "2"),
	} {
		t.Run(fmt.Sprintf("reliable=%v,tx=%s", o.Reliable, o.Params[FlagTxSize]), func(t *testing.T) {
			pub := publish(t, nowhere, o)
			as, acking := pub.(driver.AckSender)
			if acking {
				as.OnAck(func(error) {})
			}
			// The broker may return the first message before the second is
			// sent; the second Send then already stops with the count. Either
			// way every message sent is counted once as returned.
			sent := 0
			for range 2 {
				err := pub.Send(make([]byte, 32))
				if err != nil {
					if sent == 0 || !strings.Contains(err.Error(), "returned 1 message(s)") {
						t.Fatalf("Send %d: %v", sent+1, err)
					}
					break
				}
				sent++
			}
			want := fmt.Sprintf("returned %d message(s)", sent)
			counters := pub.(driver.CounterReader).Counters
			if acking {
				err := as.WaitAcks(time.Now().Add(drivertest.Watchdog))
				if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "NO_ROUTE") {
					t.Fatalf("WaitAcks after %d unroutable messages: %v", sent, err)
				}
			}
			for start := time.Now(); counters().Dropped < uint64(sent) && time.Since(start) < drivertest.Watchdog; {
				time.Sleep(10 * time.Millisecond)
			}
			if c := counters(); c.Dropped != uint64(sent) {
				t.Fatalf("counters %+v, want %d returned (dropped)", c, sent)
			}
			err := pub.Send(make([]byte, 32))
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "--"+FlagMandatory) {
				t.Fatalf("Send after %d returns: %v, want the count", sent, err)
			}
		})
	}
}

// TestServerNamedQueue: with --amqp-queue server a one-way subscriber's
// queue is named by the broker (amq.gen-…), exclusive and auto-delete on
// the default exchange, and a publisher given the broker URL and the topic
// reaches it by that name; a second subscriber of the topic and a group are
// refused, and the name is forgotten when the subscriber closes.
func TestServerNamedQueue(t *testing.T) {
	url := brokerURL(t)
	o := withTopic(opts(false, FlagQueue, "server"), "mqgate-test-server-named")
	sub := subscribe(t, url, o)
	a, err := parseAddress(sub.Addr(), &settings{})
	if err != nil || !strings.HasPrefix(a.queue, "amq.gen-") {
		t.Fatalf("subscriber queue %q (%v), want a name given by the broker, amq.gen-…", a.queue, err)
	}
	pub := publish(t, url, o) // the broker URL and the topic
	if err := pub.Send([]byte("0123456789abcdef")); err != nil {
		t.Fatal(err)
	}
	if n, _, err := sub.Receive(make([]byte, 16), deadline()); err != nil || n != 16 {
		t.Fatalf("through the broker-named queue: %d B, %v", n, err)
	}
	// Exclusive: another connection may not declare it.
	ch := rawConn(t, url)
	var ae *amqp091.Error
	if _, err := ch.QueueDeclarePassive(a.queue, false, true, true, false, nil); !errors.As(err, &ae) || ae.Code != amqp091.ResourceLocked {
		t.Errorf("passive declare of %s from another connection: %v, want RESOURCE_LOCKED (exclusive)", a.queue, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), drivertest.Watchdog)
	defer cancel()
	if _, err := (Transport{}).Subscribe(ctx, url, o); err == nil || !strings.Contains(err.Error(), "already has a subscriber") {
		t.Errorf("a second subscriber of the topic: %v", err)
	}
	g := o
	g.Group = "g"
	if err := (Transport{}).CanGroup(g); err == nil || !strings.Contains(err.Error(), "--"+FlagQueue) {
		t.Errorf("CanGroup with --%s server: %v", FlagQueue, err)
	}
	sub.Close()
	if _, err := (Transport{}).Publish(ctx, url, o); err == nil || !strings.Contains(err.Error(), "no subscriber in this process") {
		t.Errorf("Publish after the subscriber closed: %v", err)
	}
	// The topic's queue stays the default.
	def := subscribe(t, url, withTopic(opts(false), "mqgate-test-topic-named"))
	if strings.Contains(def.Addr(), "#amq.gen-") {
		t.Errorf("default subscriber queue %s, want the topic's", driver.RedactURL(def.Addr()))
	}
}

// TestTransactionFlush: a one-way publisher in transactions of 10 holds 3
// messages back until FlushBatch commits them.
func TestTransactionFlush(t *testing.T) {
	url := brokerURL(t)
	o := opts(false, FlagTxSize, "10")
	sub := subscribe(t, url, o)
	pub := publish(t, sub.Addr(), o)
	b, ok := pub.(driver.BatchSender)
	if !ok {
		t.Fatal("a transactional publisher is not a BatchSender")
	}
	for range 3 {
		if err := pub.Send(make([]byte, 16)); err != nil {
			t.Fatal(err)
		}
	}
	buf := make([]byte, 16)
	if _, _, err := sub.Receive(buf, time.Now().Add(200*time.Millisecond)); !errors.Is(err, driver.ErrTimeout) {
		t.Fatalf("before the commit: %v, want a timeout", err)
	}
	if err := b.FlushBatch(); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, _, err := sub.Receive(buf, deadline()); err != nil {
			t.Fatalf("message %d after FlushBatch: %v", i, err)
		}
	}
}
