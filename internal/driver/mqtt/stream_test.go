package mqtt

import (
	"encoding/binary"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mochi-mqtt/server/v2/hooks/auth"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
)

// acks counts a publisher's acknowledgements.
type acks struct {
	mu      sync.Mutex
	ok      int
	refused []error
}

func (a *acks) f(err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err != nil {
		a.refused = append(a.refused, err)
	} else {
		a.ok++
	}
}

func (a *acks) counts() (int, []error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.ok, append([]error(nil), a.refused...)
}

func openStream(t *testing.T, url string, o driver.Options) (driver.Subscriber, driver.Publisher) {
	t.Helper()
	sub, err := Transport{}.Subscribe(dialCtx(t), url, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sub.Close() })
	if sub.Addr() != url {
		t.Errorf("Subscriber.Addr() = %s, want %s", sub.Addr(), url)
	}
	pub, err := Transport{}.Publish(dialCtx(t), sub.Addr(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pub.Close() })
	return sub, pub
}

// oneWay publishes n sequence-numbered messages and checks what the
// subscriber receives: in order, byte-exact, each arriving after it was
// sent; all of them at QoS 1 and 2. At QoS 1 and 2 every message is
// acknowledged.
func oneWay(t *testing.T, url string, o driver.Options) {
	const n, size = 300, 100
	qos := int(o.Params[ParamQoS][0] - '0')
	sub, pub := openStream(t, url, o)
	as, isAck := pub.(driver.AckSender)
	if isAck != (qos > 0) {
		t.Fatalf("publisher at QoS %d: AckSender %v", qos, isAck)
	}
	var got acks
	if isAck {
		as.OnAck(got.f)
	}
	sent := make([]time.Time, n)
	received := 0
	buf := make([]byte, size)
	next := uint64(0)
	check := func(deadline time.Time) error {
		m, at, err := sub.Receive(buf, deadline)
		if err != nil {
			return err
		}
		seq := binary.BigEndian.Uint64(buf)
		if m != size || seq >= n || seq < next {
			t.Fatalf("message %d: %d bytes, sequence %d; want %d bytes, sequence at least %d", received, m, seq, size, next)
		}
		for i := 8; i < size; i++ {
			if buf[i] != byte(seq)+byte(i) {
				t.Fatalf("message %d differs at byte %d", seq, i)
			}
		}
		if at.Before(sent[seq]) {
			t.Fatalf("message %d arrived at %v, before it was sent at %v", seq, at, sent[seq])
		}
		next = seq + 1
		received++
		return nil
	}
	msg := make([]byte, size)
	for i := range n {
		binary.BigEndian.PutUint64(msg, uint64(i))
		for j := 8; j < size; j++ {
			msg[j] = byte(i) + byte(j)
		}
		sent[i] = time.Now()
		if err := pub.Send(msg); err != nil {
			t.Fatalf("Send %d: %v", i, err)
		}
	}
	deadline := time.Now().Add(drivertest.Watchdog)
	for received < n {
		if err := check(deadline); err != nil {
			if qos == 0 && received > 0 {
				break // best effort: the rest may be lost
			}
			t.Fatalf("after %d messages: %v", received, err)
		}
	}
	t.Logf("QoS %d: %d of %d messages received", qos, received, n)
	if isAck {
		if err := as.WaitAcks(time.Now().Add(drivertest.Watchdog)); err != nil {
			t.Fatal(err)
		}
		ok, refused := got.counts()
		if ok != n || len(refused) != 0 {
			t.Fatalf("acknowledgements: %d, refusals %v; want %d and none", ok, refused, n)
		}
	}
}

func TestOneWayEmbedded(t *testing.T) {
	forEach(t, func(t *testing.T, version string, qos int) {
		oneWay(t, embedded(t, nil), options(t, version, qos))
	})
}

func TestOneWayEmbeddedTLS(t *testing.T) {
	brokerSec, clientSec := pki(t)
	url := embedded(t, brokerSec)
	forEach(t, func(t *testing.T, version string, qos int) {
		o := options(t, version, qos)
		o.Security = clientSec
		oneWay(t, url, o)
	})
}

func TestOneWayMosquitto(t *testing.T) {
	url := mosquittoURL(t)
	forEach(t, func(t *testing.T, version string, qos int) {
		oneWay(t, url, options(t, version, qos))
	})
}

// TestArrivalTimeFromHandler: the arrival time is when the library handed
// the message over, not when Receive was called.
func TestArrivalTimeFromHandler(t *testing.T) {
	url := embedded(t, nil)
	for _, v := range versions {
		t.Run("v"+v, func(t *testing.T) {
			sub, pub := openStream(t, url, options(t, v, 1))
			if err := pub.Send([]byte("0123456789abcdef")); err != nil {
				t.Fatal(err)
			}
			in := sub.(*Subscriber).in
			deadline := time.Now().Add(drivertest.Watchdog)
			for in.Queued() == 0 {
				if time.Now().After(deadline) {
					t.Fatal("the message never arrived")
				}
				time.Sleep(time.Millisecond)
			}
			called := time.Now()
			_, at, err := sub.Receive(make([]byte, 64), time.Now().Add(time.Second))
			if err != nil {
				t.Fatal(err)
			}
			if !at.Before(called) {
				t.Fatalf("arrival %v is not before the Receive call at %v", at, called)
			}
		})
	}
}

// TestBestEffortDropsCounted: at QoS 0 a subscriber that does not keep up
// drops what its queue cannot hold, counts it, and keeps the oldest.
func TestBestEffortDropsCounted(t *testing.T) {
	url := embedded(t, nil)
	for _, v := range versions {
		t.Run("v"+v, func(t *testing.T) {
			const n, depth = 100, 4
			o := options(t, v, 0)
			o.QueueDepth = depth
			sub, pub := openStream(t, url, o)
			msg := make([]byte, 16)
			for i := range n {
				binary.BigEndian.PutUint64(msg, uint64(i))
				if err := pub.Send(msg); err != nil {
					t.Fatal(err)
				}
			}
			cr := sub.(driver.CounterReader)
			deadline := time.Now().Add(drivertest.Watchdog)
			for cr.Counters().Dropped < n-depth {
				if time.Now().After(deadline) {
					t.Fatalf("dropped %d of %d, want %d", cr.Counters().Dropped, n, n-depth)
				}
				time.Sleep(time.Millisecond)
			}
			buf := make([]byte, 16)
			for i := range depth {
				if _, _, err := sub.Receive(buf, time.Now().Add(time.Second)); err != nil {
					t.Fatal(err)
				}
				if seq := binary.BigEndian.Uint64(buf); seq != uint64(i) {
					t.Fatalf("kept message %d has sequence %d", i, seq)
				}
			}
			if d := cr.Counters().Dropped; d != n-depth {
				t.Fatalf("Dropped = %d, want %d", d, n-depth)
			}
		})
	}
}

// TestAcksRefused: an MQTT 5 broker refuses publishes its ACL forbids
// with a PUBACK (QoS 1) or PUBREC (QoS 2) reason code; each is reported
// as a refusal. An MQTT 3.1.1 broker can only disconnect: the messages
// outstanding are refused with the lost connection.
func TestAcksRefused(t *testing.T) {
	ledger := &auth.Ledger{
		Auth: auth.AuthRules{{Allow: true}},
		ACL:  auth.ACLRules{{Filters: auth.Filters{"mqgate-test/#": auth.ReadOnly}}},
	}
	url, stop, err := StartBroker(nil, new(auth.Hook), &auth.Options{Ledger: ledger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop() })
	for _, v := range versions {
		for _, qos := range []int{1, 2} {
			t.Run("v"+v+"/qos"+string(rune('0'+qos)), func(t *testing.T) {
				const n = 20
				pub, err := Transport{}.Publish(dialCtx(t), url, options(t, v, qos))
				if err != nil {
					t.Fatal(err)
				}
				defer pub.Close()
				var got acks
				as := pub.(driver.AckSender)
				as.OnAck(got.f)
				sent := 0
				for range n {
					if err := pub.Send([]byte("0123456789abcdef")); err != nil {
						t.Logf("Send: %v", err) // 3.1.1: the broker disconnected
						break
					}
					sent++
				}
				werr := as.WaitAcks(time.Now().Add(drivertest.Watchdog))
				ok, refused := got.counts()
				if ok != 0 || len(refused) != sent || sent == 0 {
					t.Fatalf("sent %d: %d acknowledged, %d refused; want all refused", sent, ok, len(refused))
				}
				// MQTT 3.1.1: the connection is lost, noticed first by
				// the library (no acknowledgement) or by the client.
				want := map[string][]string{
					"5":     {[]string{"", "PUBACK reason code 0x87", "PUBREC reason code 0x87"}[qos]},
					"3.1.1": {"no acknowledgement from " + url, "lost the connection to " + url},
				}[v]
				says := func(err error) bool {
					for _, w := range want {
						if err != nil && strings.Contains(err.Error(), w) {
							return true
						}
					}
					return false
				}
				for _, err := range refused {
					if !says(err) {
						t.Fatalf("refusal %q does not say %q", err, want)
					}
				}
				if !says(werr) {
					t.Fatalf("WaitAcks = %v, want the refusals (%q)", werr, want)
				}
				t.Logf("sent %d, refused: %v", sent, refused[0])
			})
		}
	}
}

// TestAcksSettledWhenBrokerDies: every message sent is settled, one way or
// the other, when the broker goes away with acknowledgements outstanding.
func TestAcksSettledWhenBrokerDies(t *testing.T) {
	forEach(t, func(t *testing.T, version string, qos int) {
		if qos == 0 {
			return
		}
		url, stop, err := StartBroker(nil, new(auth.AllowHook), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		pub, err := Transport{}.Publish(dialCtx(t), url, options(t, version, qos))
		if err != nil {
			t.Fatal(err)
		}
		defer pub.Close()
		var got acks
		as := pub.(driver.AckSender)
		as.OnAck(got.f)
		sent := 0
		msg := make([]byte, 1000)
		for range 200 {
			if err := pub.Send(msg); err != nil {
				t.Fatal(err)
			}
			sent++
		}
		stop()
		for pub.Send(msg) == nil {
			sent++
			if sent > 100000 {
				t.Fatal("Send still succeeds long after the broker stopped")
			}
		}
		werr := as.WaitAcks(time.Now().Add(drivertest.Watchdog))
		ok, refused := got.counts()
		if ok+len(refused) != sent {
			t.Fatalf("sent %d: %d acknowledged + %d refused", sent, ok, len(refused))
		}
		if len(refused) > 0 && werr == nil {
			t.Fatalf("WaitAcks = nil with %d refusals", len(refused))
		}
		t.Logf("sent %d: %d acknowledged, %d refused; WaitAcks: %v", sent, ok, len(refused), werr)
	})
}

func TestWaitAcksTimesOut(t *testing.T) {
	a := newAckTracker()
	if err := a.add(); err != nil {
		t.Fatal(err)
	}
	err := a.WaitAcks(time.Now().Add(10 * time.Millisecond))
	wantErr := "1 messages not acknowledged before the deadline"
	if err == nil || !strings.Contains(err.Error(), wantErr) {
		t.Fatalf("wait = %v, want %q", err, wantErr)
	}
	if !strings.Contains(err.Error(), driver.ErrTimeout.Error()) {
		t.Fatalf("wait = %v, want it to wrap driver.ErrTimeout", err)
	}
	a.settle(nil)
	if err := a.WaitAcks(time.Now().Add(time.Second)); err != nil {
		t.Fatalf("wait after the acknowledgement = %v", err)
	}
}

// TestPingerAcks: a pinger acknowledges nothing at QoS 0; at QoS 1 and 2
// each ping is acknowledged by the broker, counted through OnAck.
func TestPingerAcks(t *testing.T) {
	url := embedded(t, nil)
	forEach(t, func(t *testing.T, version string, qos int) {
		o := options(t, version, qos)
		c := conformance(url, o)
		e := drivertest.StartEcho(t, c)
		p := drivertest.Dial(t, c, e.Addr())
		as, ok := p.(driver.AckSender)
		if ok != (qos > 0) {
			t.Fatalf("pinger at QoS %d: AckSender %v", qos, ok)
		}
		var got acks
		if ok {
			as.OnAck(got.f)
		}
		const n = 50
		buf := make([]byte, 64)
		for i := range n {
			msg := []byte("0123456789abcdef")
			msg[0] = byte(i)
			if _, err := drivertest.RoundTrip(p, msg, buf); err != nil {
				t.Fatal(err)
			}
		}
		if !ok {
			return
		}
		if err := as.WaitAcks(time.Now().Add(drivertest.Watchdog)); err != nil {
			t.Fatal(err)
		}
		if ok, refused := got.counts(); ok != n || len(refused) > 0 {
			t.Fatalf("%d acknowledged, refused %v; want %d", ok, refused, n)
		}
	})
}
