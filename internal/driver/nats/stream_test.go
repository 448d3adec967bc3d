package nats

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
)

// oneWay publishes n messages carrying their send time (formats §2: the
// first 8 bytes, little-endian Unix nanoseconds) and a sequence number, and
// checks that the subscriber receives each once, in order, byte-exact, with
// an arrival time after its send time. It returns the publisher.
func oneWay(t *testing.T, url string, opts driver.Options, n, size int) driver.Publisher {
	t.Helper()
	tr := Transport{}
	sub, err := tr.Subscribe(dialCtx(t), url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sub.Close() })
	if sub.Addr() != url {
		t.Errorf("subscriber Addr = %q, want %q", sub.Addr(), url)
	}
	pub, err := tr.Publish(dialCtx(t), url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pub.Close() })
	var acks, refused atomic.Int64
	if a, ok := pub.(driver.AckSender); ok {
		a.OnAck(func(err error) {
			if err != nil {
				refused.Add(1)
			} else {
				acks.Add(1)
			}
		})
	}
	sent := make([]time.Time, n)
	go func() {
		msg := make([]byte, size)
		for i := range n {
			sent[i] = time.Now()
			binary.LittleEndian.PutUint64(msg, uint64(sent[i].UnixNano()))
			binary.LittleEndian.PutUint64(msg[8:], uint64(i))
			if err := pub.Send(msg); err != nil {
				t.Errorf("Send %d: %v", i, err)
				return
			}
		}
	}()
	buf := make([]byte, size)
	for i := range n {
		k, at, err := sub.Receive(buf, time.Now().Add(drivertest.ReceiveDeadline))
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if k != size || binary.LittleEndian.Uint64(buf[8:]) != uint64(i) {
			t.Fatalf("message %d: %d bytes, sequence %d", i, k, binary.LittleEndian.Uint64(buf[8:]))
		}
		sentAt := time.Unix(0, int64(binary.LittleEndian.Uint64(buf)))
		if at.Before(sentAt) || at.After(time.Now()) {
			t.Fatalf("message %d: arrival %v is not between its send time %v and now", i, at, sentAt)
		}
		if !bytes.Equal(buf[16:], make([]byte, size-16)) {
			t.Fatalf("message %d: corrupt payload", i)
		}
	}
	if _, _, err := sub.Receive(buf, time.Now().Add(50*time.Millisecond)); !errors.Is(err, driver.ErrTimeout) {
		t.Fatalf("Receive after the last message = %v, want a timeout", err)
	}
	if a, ok := pub.(driver.AckSender); ok {
		if err := a.WaitAcks(time.Now().Add(drivertest.Watchdog)); err != nil {
			t.Fatal(err)
		}
		if acks.Load() != int64(n) || refused.Load() != 0 {
			t.Fatalf("%d acknowledged and %d refused of %d published", acks.Load(), refused.Load(), n)
		}
	}
	return pub
}

func TestOneWay(t *testing.T) {
	for _, where := range []string{"embedded", "installed"} {
		t.Run(where, func(t *testing.T) {
			var url string
			if where == "embedded" {
				url = embeddedURL(t, driver.Options{})
			} else {
				url = installedURL(t)
			}
			for _, reliable := range []bool{false, true} {
				t.Run(fmt.Sprintf("reliable=%v", reliable), func(t *testing.T) {
					pub := oneWay(t, url, driver.Options{Reliable: reliable, Topic: topic(t)}, 2000, 100)
					if _, ok := pub.(driver.AckSender); ok != reliable {
						t.Errorf("publisher implements AckSender: %v, want %v", ok, reliable)
					}
				})
			}
		})
	}
}

func TestOneWaySecurity(t *testing.T) {
	srv, cli := pki(t)
	url := embeddedURL(t, driver.Options{Security: srv})
	for _, reliable := range []bool{false, true} {
		oneWay(t, url, driver.Options{Reliable: reliable, Security: cli, Topic: topic(t)}, 200, 16384)
	}
}

// TestAcksRefused: messages the stream cannot take (it was deleted) are
// reported to OnAck as refused, and a pinger's Receive returns that error
// instead of a timeout.
func TestAcksRefused(t *testing.T) {
	url := embeddedURL(t, driver.Options{})
	tp := topic(t)
	opts := driver.Options{Reliable: true, Topic: tp}
	pub, err := Transport{}.Publish(dialCtx(t), url, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	var mu sync.Mutex
	var ackErrs []error
	pub.(driver.AckSender).OnAck(func(err error) {
		mu.Lock()
		ackErrs = append(ackErrs, err)
		mu.Unlock()
	})
	js := jsClient(t, url)
	if err := js.DeleteStream(dialCtx(t), StreamName(tp)); err != nil {
		t.Fatal(err)
	}
	if err := pub.Send([]byte("0123456789abcdef")); err != nil {
		t.Fatal(err)
	}
	if err := pub.(driver.AckSender).WaitAcks(time.Now().Add(drivertest.Watchdog)); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(ackErrs) != 1 || ackErrs[0] == nil || !strings.Contains(ackErrs[0].Error(), tp) {
		t.Fatalf("OnAck calls: %v, want one refusal naming %s", ackErrs, tp)
	}
	t.Log(ackErrs[0])
	if err := pub.Send([]byte("0123456789abcdef")); err == nil {
		t.Fatal("Send after a refusal succeeded")
	}
}

// jsClient is a plain JetStream client of url for inspecting streams.
func jsClient(t *testing.T, url string) jetstream.JetStream {
	t.Helper()
	nc, err := natsgo.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// TestStreamLifecycle: the stream has the documented settings while the
// ends run, each end's durable consumer is gone when it closes, and the
// stream when its creator (the echo) closes.
func TestStreamLifecycle(t *testing.T) {
	for _, where := range []string{"embedded", "installed"} {
		t.Run(where, func(t *testing.T) {
			var url string
			if where == "embedded" {
				url = embeddedURL(t, driver.Options{})
			} else {
				url = installedURL(t)
			}
			for _, storage := range []string{"file", "memory"} {
				tp := topic(t)
				opts := driver.Options{Reliable: true, Topic: tp, Params: map[string]string{FlagStorage: storage, FlagDoubleAck: "true"}}
				cfg := drivertest.Config{Transport: Transport{}, Addr: url, Listen: opts, Dial: opts}
				e := drivertest.StartEcho(t, cfg)
				p := drivertest.Dial(t, cfg, e.Addr())
				buf := make([]byte, 64)
				for i := range 20 {
					msg := fmt.Appendf(nil, "%016d", i)
					if _, err := drivertest.RoundTrip(p, msg, buf); err != nil {
						t.Fatal(err)
					}
				}
				js := jsClient(t, url)
				s, err := js.Stream(dialCtx(t), StreamName(tp))
				if err != nil {
					t.Fatal(err)
				}
				info, err := s.Info(dialCtx(t))
				if err != nil {
					t.Fatal(err)
				}
				c := info.Config
				if c.Retention != jetstream.InterestPolicy || c.Storage.String() != map[string]string{"file": "File", "memory": "Memory"}[storage] ||
					fmt.Sprint(c.Subjects) != fmt.Sprintf("[%s %s.>]", tp, tp) {
					t.Errorf("stream config: retention %v, storage %v, subjects %v", c.Retention, c.Storage, c.Subjects)
				}
				if info.State.Consumers != 2 {
					t.Errorf("stream has %d consumers, want 2 (echo and pinger)", info.State.Consumers)
				}
				si := p.(driver.InfoReporter).SystemInfo()
				if si.Extra["jetstream_storage"] != storage || si.Extra["jetstream_stream"] != StreamName(tp) {
					t.Errorf("SystemInfo: %+v", si)
				}
				if err := p.Close(); err != nil {
					t.Fatal(err)
				}
				if info, err := s.Info(dialCtx(t)); err != nil || info.State.Consumers != 1 {
					t.Errorf("after the pinger closed: %v consumers (%v), want 1", info.State.Consumers, err)
				}
				e.Stop(t)
				if _, err := js.Stream(dialCtx(t), StreamName(tp)); !errors.Is(err, jetstream.ErrStreamNotFound) {
					t.Errorf("stream after the echo closed: %v, want it deleted", err)
				}
			}
		})
	}
}

// TestExistingStreamMismatch: a leftover stream of the same name with other
// settings is reported, not silently used.
func TestExistingStreamMismatch(t *testing.T) {
	url := embeddedURL(t, driver.Options{})
	tp := topic(t)
	js := jsClient(t, url)
	if _, err := js.CreateStream(dialCtx(t), jetstream.StreamConfig{Name: StreamName(tp), Subjects: []string{tp}, Storage: jetstream.MemoryStorage}); err != nil {
		t.Fatal(err)
	}
	_, err := Transport{}.Dial(dialCtx(t), url, driver.Options{Reliable: true, Topic: tp})
	if err == nil || !strings.Contains(err.Error(), "exists with other settings") || !strings.Contains(err.Error(), StreamName(tp)) {
		t.Fatalf("Dial with a mismatching stream = %v", err)
	}
}

// TestRedelivered reads the delivery count of real acknowledgement subjects:
// a message not acknowledged within the consumer's AckWait comes again.
func TestRedelivered(t *testing.T) {
	url := embeddedURL(t, driver.Options{})
	js := jsClient(t, url)
	tp := topic(t)
	ctx := dialCtx(t)
	s, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: StreamName(tp), Subjects: []string{tp}})
	if err != nil {
		t.Fatal(err)
	}
	cons, err := s.CreateConsumer(ctx, jetstream.ConsumerConfig{AckPolicy: jetstream.AckExplicitPolicy, AckWait: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(ctx, tp, []byte("x")); err != nil {
		t.Fatal(err)
	}
	for want := range []bool{false, true} {
		m, err := cons.Next(jetstream.FetchMaxWait(drivertest.Watchdog))
		if err != nil {
			t.Fatal(err)
		}
		md, err := m.Metadata()
		if err != nil {
			t.Fatal(err)
		}
		if got := redelivered(m.Reply()); got != (want == 1) || got != (md.NumDelivered > 1) {
			t.Errorf("redelivered(%q) = %v, delivered %d times", m.Reply(), got, md.NumDelivered)
		}
	}
	for reply, want := range map[string]bool{
		"$JS.ACK.S.C.1.2.3.4.0":               false,
		"$JS.ACK.S.C.3.2.3.4.0":               true,
		"$JS.ACK.dom.acc.S.C.2.9.9.1700.0.xy": true,
		"$JS.ACK.dom.acc.S.C.1.9.9.1700.0":    false,
		"_INBOX.abc":                          false,
	} {
		if got := redelivered(reply); got != want {
			t.Errorf("redelivered(%q) = %v", reply, got)
		}
	}
}

// TestSystemInfo: what meta.json records of the server.
func TestSystemInfo(t *testing.T) {
	url := embeddedURL(t, driver.Options{})
	host := strings.TrimPrefix(url, "nats://")
	for _, reliable := range []bool{false, true} {
		cfg := config(t, url, scenario{reliable: reliable}, nil, nil, -1)
		e := drivertest.StartEcho(t, cfg)
		p := drivertest.Dial(t, cfg, e.Addr())
		si := p.(driver.InfoReporter).SystemInfo()
		if si.Product != "nats-server" || si.Version == "" || si.URL != url || !si.Embedded ||
			si.Extra["server_name"] != "mqgate-embedded" || si.Extra["server_id"] == "" || si.Extra["jetstream"] != "true" ||
			si.Extra["max_payload"] != "1048576" || si.Extra["tls"] != "false" {
			t.Errorf("SystemInfo = %+v", si)
		}
	}
	// Credentials in the URL are not recorded; a server this process did
	// not start is not embedded.
	si := (&conn{url: "nats://u:pw@" + host, redacted: redact("nats://u:pw@" + host)}).redacted
	if strings.Contains(si, "pw") {
		t.Errorf("redacted URL %q", si)
	}
	installed := installedURL(t)
	cfg := config(t, installed, scenario{}, nil, nil, -1)
	e := drivertest.StartEcho(t, cfg)
	p := drivertest.Dial(t, cfg, e.Addr())
	if got := p.(driver.InfoReporter).SystemInfo(); got.Embedded || got.Version == "" {
		t.Errorf("installed server's SystemInfo = %+v", got)
	}
}

func TestFlags(t *testing.T) {
	fl := Transport{}.Flags()
	seen := map[string]driver.Flag{}
	for _, f := range fl {
		if !strings.HasPrefix(f.Name, "nats-") || f.Usage == "" {
			t.Errorf("flag %+v", f)
		}
		seen[f.Name] = f
	}
	if u := seen[FlagURL]; u.Default != DefaultURL || u.EnvVar != "MQGATE_NATS_URL" {
		t.Errorf("nats-url flag %+v", u)
	}
	for _, name := range []string{FlagPassword, FlagToken} {
		if !seen[name].Secret {
			t.Errorf("%s is not secret", name)
		}
	}
	// Every default parses.
	if _, err := parseParams(nil); err != nil {
		t.Fatal(err)
	}
	p, err := parseParams(map[string]string{FlagStorage: "memory", FlagReplicas: "3", FlagDoubleAck: "true", FlagPullBatch: "1", FlagWriteBuffer: "1", FlagConnectTimeout: "1s"})
	if err != nil || p.storage != "memory" || p.replicas != 3 || !p.doubleAck || p.pullBatch != 1 || p.writeBuffer != 1 || p.connectTimeout != time.Second {
		t.Fatalf("parseParams = %+v, %v", p, err)
	}
}

// TestWriteBufferOne runs the round trip with nats.go writing each message
// from the sending goroutine.
func TestWriteBufferOne(t *testing.T) {
	url := embeddedURL(t, driver.Options{})
	for _, sc := range scenarios[:2] {
		cfg := config(t, url, sc, nil, nil, -1)
		cfg.Listen.Params = map[string]string{FlagWriteBuffer: "1"}
		cfg.Dial.Params = cfg.Listen.Params
		e := drivertest.StartEcho(t, cfg)
		p := drivertest.Dial(t, cfg, e.Addr())
		for _, size := range []int{16, 16384} {
			msg := bytes.Repeat([]byte{byte(size)}, size)
			buf := make([]byte, size)
			if n, err := drivertest.RoundTrip(p, msg, buf); err != nil || !bytes.Equal(buf[:n], msg) {
				t.Fatalf("%s %d B: %v", sc.name, size, err)
			}
		}
	}
}

var _ = context.Background

// TestQueueDepthDrops: a best-effort subscriber with a queue of
// Options.QueueDepth messages that does not keep up loses the rest, and
// counts them as Dropped; the link keeps working.
func TestQueueDepthDrops(t *testing.T) {
	url := embeddedURL(t, driver.Options{})
	opts := driver.Options{Topic: topic(t), QueueDepth: 10}
	sub, err := Transport{}.Subscribe(dialCtx(t), url, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	pub, err := Transport{}.Publish(dialCtx(t), url, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	const n = 1000
	for i := range n {
		if err := pub.Send(binary.LittleEndian.AppendUint64(nil, uint64(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := pub.Close(); err != nil { // flushes
		t.Fatal(err)
	}
	cr := sub.(driver.CounterReader)
	buf := make([]byte, 8)
	got := 0
	for {
		_, _, err := sub.Receive(buf, time.Now().Add(300*time.Millisecond))
		if errors.Is(err, driver.ErrTimeout) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got++
	}
	c := cr.Counters()
	if got == 0 || c.Dropped == 0 || uint64(got)+c.Dropped != n || c.Errors != 0 {
		t.Fatalf("received %d, counters %+v, of %d published with a queue of 10", got, c, n)
	}
	t.Logf("received %d, dropped %d", got, c.Dropped)
}
