package amqp

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
)

func subscribe(t *testing.T, addr string, o driver.Options) driver.Subscriber {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), drivertest.Watchdog)
	defer cancel()
	s, err := Transport{}.Subscribe(ctx, addr, o)
	if err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func publish(t *testing.T, addr string, o driver.Options) driver.Publisher {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), drivertest.Watchdog)
	defer cancel()
	p, err := Transport{}.Publish(ctx, addr, o)
	if err != nil {
		t.Fatalf("Publish: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// ackCounter counts OnAck calls.
type ackCounter struct {
	mu         sync.Mutex
	acks, errs int
	last       error
}

func (a *ackCounter) f(err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err != nil {
		a.errs++
		a.last = err
	} else {
		a.acks++
	}
}

func (a *ackCounter) get() (int, int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.acks, a.errs, a.last
}

// TestOneWay sends messages stamped with their send time one way and
// checks that each arrives intact, in order, with an arrival time between
// its send time and the return of Receive.
func TestOneWay(t *testing.T) {
	url := brokerURL(t)
	for _, reliable := range []bool{false, true} {
		t.Run(fmt.Sprint("reliable=", reliable), func(t *testing.T) {
			o := opts(reliable)
			sub := subscribe(t, url, o)
			pub := publish(t, sub.Addr(), o)
			_, acking := pub.(driver.AckSender)
			if acking != reliable {
				t.Fatalf("publisher is an AckSender: %v, want %v (confirms when reliable)", acking, reliable)
			}
			base := time.Now()
			const n = 300
			rng := rand.New(rand.NewPCG(3, 4))
			sizes := make([]int, n)
			sent := make([]time.Duration, n)
			for i := range n {
				sizes[i] = 16 + rng.IntN(16384-16)
				msg := make([]byte, sizes[i])
				sent[i] = time.Since(base)
				binary.LittleEndian.PutUint64(msg, uint64(i))
				binary.LittleEndian.PutUint64(msg[8:], uint64(sent[i]))
				if err := pub.Send(msg); err != nil {
					t.Fatal(err)
				}
			}
			buf := make([]byte, 16384)
			var last time.Time
			for i := range n {
				k, at, err := sub.Receive(buf, time.Now().Add(drivertest.ReceiveDeadline))
				returned := time.Now()
				if err != nil {
					t.Fatalf("message %d: %v", i, err)
				}
				seq := binary.LittleEndian.Uint64(buf)
				if k != sizes[i] || seq != uint64(i) {
					t.Fatalf("message %d: got %d B with sequence %d, want %d B", i, k, seq, sizes[i])
				}
				if at.Sub(base) < sent[i] || at.After(returned) || at.Before(last) {
					t.Fatalf("message %d: arrival %v after start is not between its send time %v and Receive's return %v, or before the previous arrival",
						i, at.Sub(base), sent[i], returned.Sub(base))
				}
				last = at
			}
			if _, _, err := sub.Receive(buf, time.Now().Add(100*time.Millisecond)); !errors.Is(err, driver.ErrTimeout) {
				t.Fatalf("Receive after the last message = %v, want a timeout", err)
			}
		})
	}
}

// TestConfirmsCounted checks that every message a reliable publisher sends
// is confirmed to OnAck exactly once.
func TestConfirmsCounted(t *testing.T) {
	url := brokerURL(t)
	o := opts(true)
	sub := subscribe(t, url, o)
	pub := publish(t, sub.Addr(), o).(driver.AckSender)
	var ac ackCounter
	pub.OnAck(ac.f)
	const n = 500
	msg := make([]byte, 100)
	for range n {
		if err := pub.Send(msg); err != nil {
			t.Fatal(err)
		}
	}
	if err := pub.WaitAcks(time.Now().Add(drivertest.Watchdog)); err != nil {
		t.Fatal(err)
	}
	if acks, errs, _ := ac.get(); acks != n || errs != 0 {
		t.Fatalf("%d messages: %d acks, %d refusals", n, acks, errs)
	}
	buf := make([]byte, 100)
	for i := range n {
		if _, _, err := sub.Receive(buf, time.Now().Add(drivertest.ReceiveDeadline)); err != nil {
			t.Fatalf("message %d of %d: %v", i, n, err)
		}
	}
	if c := pub.(driver.CounterReader).Counters(); c != (driver.Counters{}) {
		t.Errorf("counters %+v, want none", c)
	}
}

// TestNacks makes RabbitMQ refuse messages: a queue of at most one message
// that rejects publishes when full.
func TestNacks(t *testing.T) {
	url := brokerURL(t)
	ch := rawConn(t, url)
	q, err := ch.QueueDeclare("", false, true, true, false, amqp091.Table{"x-max-length": int32(1), "x-overflow": "reject-publish"})
	if err != nil {
		t.Fatal(err)
	}
	pub := publish(t, withQueue(url, q.Name), opts(true)).(driver.AckSender)
	var ac ackCounter
	pub.OnAck(ac.f)
	for range 3 {
		if err := pub.Send(make([]byte, 16)); err != nil {
			t.Fatal(err)
		}
	}
	if err := pub.WaitAcks(time.Now().Add(drivertest.Watchdog)); err != nil {
		t.Fatal(err)
	}
	acks, errs, last := ac.get()
	if acks != 1 || errs != 2 || !errors.Is(last, ErrNacked) {
		t.Fatalf("3 messages to a full queue of 1: %d acks, %d refusals (%v); want 1 and 2 nacks", acks, errs, last)
	}
	if c := pub.(driver.CounterReader).Counters(); c.Errors != 2 || c.Dropped != 0 {
		t.Errorf("counters %+v, want 2 errors", c)
	}
}

// TestMandatoryReturns publishes to a queue that does not exist.
func TestMandatoryReturns(t *testing.T) {
	url := brokerURL(t)
	nowhere := withQueue(url, fmt.Sprintf("mqgate-no-such-queue-%d", time.Now().UnixNano()))
	for _, tc := range []struct {
		reliable, mandatory bool
	}{{true, true}, {false, true}, {true, false}} {
		t.Run(fmt.Sprintf("reliable=%v,mandatory=%v", tc.reliable, tc.mandatory), func(t *testing.T) {
			pub := publish(t, nowhere, opts(tc.reliable, FlagMandatory, fmt.Sprint(tc.mandatory)))
			// One message: a Send after a return fails (TestMandatoryOneWay).
			const n = 1
			for range n {
				if err := pub.Send(make([]byte, 32)); err != nil {
					t.Fatal(err)
				}
			}
			want := uint64(0)
			if tc.mandatory {
				want = n
			}
			counters := pub.(driver.CounterReader).Counters
			if tc.reliable {
				// A return comes before its confirmation: once all are
				// confirmed, all returns are counted, and reported.
				err := pub.(driver.AckSender).WaitAcks(time.Now().Add(drivertest.Watchdog))
				if tc.mandatory != (err != nil) || (err != nil && !strings.Contains(err.Error(), fmt.Sprintf("returned %d message(s)", n))) {
					t.Fatalf("WaitAcks: %v", err)
				}
			} else {
				// No confirmation to wait for: poll, under the watchdog.
				for start := time.Now(); counters().Dropped < want && time.Since(start) < drivertest.Watchdog; {
					time.Sleep(10 * time.Millisecond)
				}
			}
			if c := counters(); c.Dropped != want || c.Errors != 0 {
				t.Fatalf("counters %+v, want %d dropped", c, want)
			}
		})
	}
}

// TestTransactions publishes in transactions of 3: a message is routed
// only when its transaction commits.
func TestTransactions(t *testing.T) {
	url := brokerURL(t)
	for _, reliable := range []bool{false, true} {
		t.Run(fmt.Sprint("reliable=", reliable), func(t *testing.T) {
			o := opts(reliable, FlagTxSize, "3")
			sub := subscribe(t, url, o)
			p := publish(t, sub.Addr(), o)
			pub, ok := p.(driver.AckSender)
			if !ok {
				t.Fatal("a transactional publisher is not an AckSender")
			}
			if pub.(*ackPublisher).pub.confirms != nil {
				t.Fatal("the transactional channel is in confirm mode too")
			}
			var ac ackCounter
			pub.OnAck(ac.f)
			buf := make([]byte, 16)
			for i := range 7 {
				msg := make([]byte, 16)
				msg[0] = byte(i)
				if err := pub.Send(msg); err != nil {
					t.Fatal(err)
				}
			}
			// Two transactions of 3 were committed, the 7th message is in
			// an open one.
			if acks, errs, _ := ac.get(); acks != 6 || errs != 0 {
				t.Fatalf("after 7 sends: %d acks, %d refusals; want the 6 committed", acks, errs)
			}
			for i := range 6 {
				if _, _, err := sub.Receive(buf, time.Now().Add(drivertest.ReceiveDeadline)); err != nil || buf[0] != byte(i) {
					t.Fatalf("committed message %d: %v (got %d)", i, err, buf[0])
				}
			}
			// An uncommitted message is never delivered.
			if _, _, err := sub.Receive(buf, time.Now().Add(200*time.Millisecond)); !errors.Is(err, driver.ErrTimeout) {
				t.Fatalf("Receive of an uncommitted message = %v, want a timeout", err)
			}
			if err := pub.WaitAcks(time.Now().Add(drivertest.Watchdog)); err != nil {
				t.Fatal(err)
			}
			if acks, _, _ := ac.get(); acks != 7 {
				t.Fatalf("after WaitAcks: %d acks, want 7", acks)
			}
			if _, _, err := sub.Receive(buf, time.Now().Add(drivertest.ReceiveDeadline)); err != nil || buf[0] != 6 {
				t.Fatalf("message committed by WaitAcks: %v (got %d)", err, buf[0])
			}
		})
	}
}

// TestPrefetch checks that basic.qos limits the unacknowledged deliveries
// of a reliable subscriber: with a prefetch of 2 and 5 messages queued,
// the broker hands over 2 and keeps 3 ready until Receive acknowledges.
func TestPrefetch(t *testing.T) {
	url := brokerURL(t)
	o := opts(true, FlagPrefetch, "2")
	sub := subscribe(t, url, o)
	pub := publish(t, sub.Addr(), o).(driver.AckSender)
	for range 5 {
		if err := pub.Send(make([]byte, 16)); err != nil {
			t.Fatal(err)
		}
	}
	if err := pub.WaitAcks(time.Now().Add(drivertest.Watchdog)); err != nil {
		t.Fatal(err)
	}
	// The queue is exclusive: inspect it on the subscriber's own channel.
	ch := sub.(*subscriber).con.ch
	ready := func() int {
		q, err := ch.QueueDeclarePassive(sub.(*subscriber).con.queue, true, true, true, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		return q.Messages
	}
	// Deliveries leave the ready count as the broker sends them; without
	// the limit it would reach 0.
	for start := time.Now(); ready() > 3 && time.Since(start) < drivertest.Watchdog; {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // a broker ignoring the limit would go on
	if n := ready(); n != 3 {
		t.Fatalf("with prefetch 2 and 5 messages, %d stay ready, want 3", n)
	}
	buf := make([]byte, 16)
	for i := range 5 {
		if _, _, err := sub.Receive(buf, time.Now().Add(drivertest.ReceiveDeadline)); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
	}
	if n := ready(); n != 0 {
		t.Fatalf("%d ready after receiving all", n)
	}
}

// TestExchange routes one-way messages through amq.topic by topic.
func TestExchange(t *testing.T) {
	url := brokerURL(t)
	topic := fmt.Sprintf("mqgate.test.%d", time.Now().UnixNano())
	o := opts(false, FlagExchange, "amq.topic")
	o.Topic = topic
	subs := []driver.Subscriber{subscribe(t, url, o), subscribe(t, url, o)}
	pub := publish(t, url, o) // the broker URL and the topic, no queue
	if err := pub.Send([]byte("0123456789abcdef")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	for i, s := range subs {
		if n, _, err := s.Receive(buf, time.Now().Add(drivertest.ReceiveDeadline)); err != nil || string(buf[:n]) != "0123456789abcdef" {
			t.Fatalf("subscriber %d of topic %s: %q, %v", i, topic, buf[:n], err)
		}
	}
}

// TestTopicQueue subscribes on the default exchange with a topic: the
// queue takes the topic's name, and a publisher given the broker URL and
// the topic reaches it.
func TestTopicQueue(t *testing.T) {
	url := brokerURL(t)
	o := opts(false)
	o.Topic = fmt.Sprintf("mqgate-test-%d", time.Now().UnixNano())
	sub := subscribe(t, url, o)
	if !strings.HasSuffix(sub.Addr(), "#"+o.Topic) {
		t.Fatalf("Addr %s does not name the queue %s", driver.RedactURL(sub.Addr()), o.Topic)
	}
	pub := publish(t, url, o)
	if err := pub.Send([]byte("0123456789abcdef")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := sub.Receive(make([]byte, 16), time.Now().Add(drivertest.ReceiveDeadline)); err != nil {
		t.Fatal(err)
	}
	if _, err := (Transport{}).Publish(context.Background(), url, opts(false)); err == nil || !strings.Contains(err.Error(), "nothing to publish to") {
		t.Fatalf("Publish with neither queue nor topic: %v", err)
	}
}

func deadline() time.Time { return time.Now().Add(drivertest.ReceiveDeadline) }

// TestStreamConformance runs drivertest's one-way suite: best effort,
// reliable (a burst must arrive whole and in order), a commit per message,
// and through exchanges.
func TestStreamConformance(t *testing.T) {
	url := brokerURL(t)
	for _, tc := range []struct {
		name string
		o    driver.Options
	}{
		{"best_effort", opts(false)},
		{"reliable", opts(true)},
		// Larger transactions hold messages until they fill (TestTransactions).
		{"reliable_tx_1", opts(true, FlagTxSize, "1")},
		{"best_effort_amq.topic", opts(false, FlagExchange, "amq.topic")},
		{"reliable_amq.direct_prefetch_10", opts(true, FlagExchange, "amq.direct", FlagPrefetch, "10")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			drivertest.RunStream(t, drivertest.StreamConfig{Transport: Transport{}, Addr: url, Subscribe: tc.o, Publish: tc.o, Burst: 100})
		})
	}
}

// TestTransactionsRecordedWhenCommitted: a publisher in transactions of up
// to 10 says it committed transactions only once it did, and how many
// messages they held, as many as the subscriber received: 25 messages are
// two full transactions and one committed early by FlushBatch.
func TestTransactionsRecordedWhenCommitted(t *testing.T) {
	url := brokerURL(t)
	o := opts(false, FlagTxSize, "10")
	sub := subscribe(t, url, o)
	p := publish(t, sub.Addr(), o)
	mode := func() string { return p.(driver.InfoReporter).SystemInfo().Extra["mode"] }
	if m := mode(); strings.Contains(m, "committed") || !strings.Contains(m, "transactions of up to 10") {
		t.Errorf("before any message: mode %q", m)
	}
	for range 25 {
		if err := p.Send(make([]byte, 16)); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.(driver.BatchSender).FlushBatch(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	got := 0
	for ; ; got++ {
		if _, _, err := sub.Receive(buf, time.Now().Add(500*time.Millisecond)); err != nil {
			break
		}
	}
	want := fmt.Sprintf("transactions of up to 10: 3 committed, %d messages, %.1f a transaction", got, float64(got)/3)
	if m := mode(); got != 25 || !strings.Contains(m, want) {
		t.Errorf("after 25 sends, %d received: mode %q, want %q", got, m, want)
	}
}
