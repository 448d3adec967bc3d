package amqp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
	"github.com/mqgate/mqgate/internal/testenv"
)

// brokerURL is the RabbitMQ the tests use (MQGATE_AMQP_URL), or skips the
// test when it is unreachable (fails under CI=true).
func brokerURL(t testing.TB) string {
	t.Helper()
	return testenv.Service(t, "RabbitMQ", testenv.Getenv(EnvURL, DefaultURL), "start it with: rabbitmq-server -detached")
}

// opts returns options with the given flags set.
func opts(reliable bool, params ...string) driver.Options {
	o := driver.Options{Reliable: reliable, Params: map[string]string{}}
	for i := 0; i+1 < len(params); i += 2 {
		o.Params[params[i]] = params[i+1]
	}
	return o
}

func withTopic(o driver.Options, topic string) driver.Options {
	o.Topic = fmt.Sprintf("%s-%d", topic, time.Now().UnixNano())
	return o
}

func conformance(url string, o driver.Options) drivertest.Config {
	return drivertest.Config{
		Transport: Transport{},
		Addr:      url,
		Listen:    o,
		Dial:      o,
		// amqp091 allocates every frame, delivery and confirmation it
		// handles; the count measures the library, not this driver.
		MaxAllocs: -1,
	}
}

func TestConformance(t *testing.T) {
	url := brokerURL(t)
	for _, tc := range []struct {
		name string
		o    driver.Options
		// deadEcho, when set, must hold for the error after the echoer
		// went away.
		deadEcho func(error) bool
	}{
		{name: "best_effort", o: opts(false)},
		{name: "reliable", o: opts(true)},
		{name: "reliable_prefetch_1", o: opts(true, FlagPrefetch, "1")},
		{name: "reliable_transient_queues", o: opts(true, FlagDurable, "false")},
		{name: "best_effort_durable_queues", o: opts(false, FlagDurable, "true")},
		// One transaction per message instead of confirms.
		{name: "reliable_tx", o: opts(true, FlagTxSize, "1")},
		{name: "best_effort_tx", o: opts(false, FlagTxSize, "1")},
		// Messages up to 16 KB span several 4 KiB frames.
		{name: "frame_max_4096", o: opts(false, FlagFrameMax, "4096")},
		{name: "exchange", o: opts(true, FlagExchange, "amq.direct")},
		{name: "topic", o: withTopic(opts(true), "mqgate-test-conformance")},
		{name: "topic_exchange", o: withTopic(opts(false, FlagExchange, "amq.topic"), "mqgate-test-conformance")},
		// With mandatory publishing a ping to a dead echoer comes back:
		// the pinger fails at once instead of timing out.
		{name: "mandatory", o: opts(true, FlagMandatory, "true"), deadEcho: func(err error) bool {
			return !errors.Is(err, driver.ErrTimeout) && strings.Contains(err.Error(), "NO_ROUTE")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := conformance(url, tc.o)
			c.DeadEchoErr = tc.deadEcho
			drivertest.Run(t, c)
		})
	}
}

// TestEchoProcess runs the echoer in a child process, as run places it.
func TestEchoProcess(t *testing.T) {
	url := brokerURL(t)
	for _, reliable := range []bool{false, true} {
		c := conformance(url, opts(reliable))
		ep := drivertest.StartEchoProcess(t, c)
		p := drivertest.Dial(t, c, ep.Addr)
		buf := make([]byte, 20000)
		for i, size := range []int{16, 1024, 16384} {
			msg := bytes.Repeat([]byte{byte(i + 1)}, size)
			n, err := drivertest.RoundTrip(p, msg, buf)
			if err != nil || !bytes.Equal(buf[:n], msg) {
				t.Fatalf("reliable=%v %d B through an echo process: %d B, %v", reliable, size, n, err)
			}
		}
	}
}

func TestScenarios(t *testing.T) {
	for _, tc := range []struct {
		typ                string
		reliable, security bool
	}{
		{"amqp_best_effort", false, false},
		{"amqp_reliable", true, false},
		{"amqp_best_effort_security", false, true},
		{"amqp_reliable_security", true, true},
	} {
		s, ok := driver.ScenarioOf(tc.typ)
		if !ok {
			t.Errorf("%s is not registered", tc.typ)
			continue
		}
		if s.Transport != Name || s.Reliable != tc.reliable || s.Security != tc.security || !s.Interprocess {
			t.Errorf("%s = %+v", tc.typ, s)
		}
	}
	if tr, err := driver.Lookup(Name); err != nil || tr.Name() != Name {
		t.Errorf("Lookup(%q) = %v, %v", Name, tr, err)
	}
}

func TestFlags(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range (Transport{}).Flags() {
		if !strings.HasPrefix(f.Name, Name+"-") || seen[f.Name] || f.Usage == "" {
			t.Errorf("flag %+v: want a unique %s- name and a usage", f, Name)
		}
		seen[f.Name] = true
		// Every default parses.
		if _, err := parseSettings(opts(false, f.Name, f.Default)); err != nil && f.Name != FlagURL {
			t.Errorf("default of --%s: %v", f.Name, err)
		}
		if f.Name == FlagURL && (!f.Secret || f.EnvVar != EnvURL || f.Default != DefaultURL) {
			t.Errorf("--%s = %+v: want the secret URL read from %s", FlagURL, f, EnvURL)
		}
	}
	for _, name := range []string{FlagURL, FlagTLSPort, FlagMandatory, FlagPrefetch, FlagTxSize, FlagExchange, FlagDurable, FlagFrameMax, FlagHeartbeat,
		FlagConsumerTxSize, FlagAutoAck, FlagPersistent, FlagImmediate, FlagQueue} {
		if !seen[name] {
			t.Errorf("no flag %s", name)
		}
	}
}

func TestBadSettings(t *testing.T) {
	for _, tc := range []struct{ flag, value string }{
		{FlagMandatory, "maybe"},
		{FlagPrefetch, "-1"},
		{FlagPrefetch, "x"},
		{FlagTxSize, "-2"},
		{FlagDurable, "yes"},
		{FlagAutoAck, "yes"},
		{FlagPersistent, "2"},
		{FlagImmediate, "maybe"},
		{FlagQueue, "named"},
		{FlagConsumerTxSize, "x"},
		{FlagFrameMax, "100"},
		{FlagHeartbeat, "500ms"},
		{FlagTLSPort, "70000"},
	} {
		_, err := parseSettings(opts(false, tc.flag, tc.value))
		if err == nil || !strings.Contains(err.Error(), "--"+tc.flag) || !strings.Contains(err.Error(), " "+tc.value) && !strings.Contains(err.Error(), strconv.Quote(tc.value)) {
			t.Errorf("--%s %q: %v, want an error naming the flag and the value", tc.flag, tc.value, err)
		}
	}
	o := opts(false)
	o.LargestMessage = DefaultMaxMessageSize + 1
	if _, err := parseSettings(o); err == nil || !strings.Contains(err.Error(), "max_message_size") {
		t.Errorf("a message over 128 MiB: %v", err)
	}
}

func TestAddresses(t *testing.T) {
	plain, _ := parseSettings(opts(false))
	secure, _ := parseSettings(driver.Options{Security: &driver.Security{}, Params: map[string]string{FlagTLSPort: "5999"}})
	for _, tc := range []struct {
		s               *settings
		addr, broker, q string
		wantErr         string
	}{
		{s: plain, addr: "", broker: DefaultURL},
		{s: plain, addr: "amqp://u:p@h:1234/v#amq.gen-X_y", broker: "amqp://u:p@h:1234/v", q: "amq.gen-X_y"},
		{s: secure, addr: "amqp://u:p@h:5672/v#q", broker: "amqps://u:p@h:5999/v", q: "q"},
		{s: secure, addr: "amqps://u:p@h:7000/", broker: "amqps://u:p@h:7000/"},
		{s: plain, addr: "amqps://u:secret@h/", wantErr: "not a _security one"},
		{s: plain, addr: "http://u:secret@h/", wantErr: "expected an amqp://"},
		{s: plain, addr: "amqp://u:secret@h:notaport/", wantErr: "amqp://u:xxxxx@h:notaport/"},
	} {
		a, err := parseAddress(tc.addr, tc.s)
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "secret") {
				t.Errorf("%q: %v, want an error with %q and no password", tc.addr, err, tc.wantErr)
			}
		case err != nil || a.broker != tc.broker || a.queue != tc.q:
			t.Errorf("%q = %+v, %v; want %s # %s", tc.addr, a, err, tc.broker, tc.q)
		}
	}
	if got := withQueue("amqp://u:p@h:1/v", "amq.gen-a/b"); got != "amqp://u:p@h:1/v#amq.gen-a%2Fb" && got != "amqp://u:p@h:1/v#amq.gen-a/b" {
		t.Errorf("withQueue = %q", got)
	}
	a, err := parseAddress(withQueue("amqp://u:p@h:1/v", "amq.gen-a/b#c"), plain)
	if err != nil || a.queue != "amq.gen-a/b#c" {
		t.Errorf("queue name round trip: %+v, %v", a, err)
	}
}

func TestDialWithoutQueue(t *testing.T) {
	_, err := Transport{}.Dial(context.Background(), "amqp://guest:secret@127.0.0.1:5672/", opts(false))
	if err == nil || !strings.Contains(err.Error(), "URL#QUEUE") || strings.Contains(err.Error(), "secret") {
		t.Fatalf("Dial without a topic or an echo queue: %v", err)
	}
}

// TestTopicRoundTrip: the echoer and the pinger meet by topic, both given
// only the broker URL, as run places them; a second echoer of the topic is
// refused.
func TestTopicRoundTrip(t *testing.T) {
	url := brokerURL(t)
	for _, reliable := range []bool{false, true} {
		o := opts(reliable)
		o.Topic = fmt.Sprintf("mqgate-test-%d-topic", time.Now().UnixNano())
		c := conformance(url, o)
		e := drivertest.StartEcho(t, c)
		if want := "#" + o.Topic + PingSuffix; !strings.HasSuffix(e.Addr(), want) {
			t.Fatalf("echo address %s, want the queue %s", driver.RedactURL(e.Addr()), want)
		}
		// A pinger before any message: what run's probe does.
		probe := drivertest.Dial(t, c, url)
		probe.Close()
		p := drivertest.Dial(t, c, url)
		buf := make([]byte, 1024)
		for i := range 10 {
			msg := bytes.Repeat([]byte{byte(i)}, 1000)
			if n, err := drivertest.RoundTrip(p, msg, buf); err != nil || !bytes.Equal(buf[:n], msg) {
				t.Fatalf("round trip %d by topic: %v", i, err)
			}
		}
		_, err := Transport{}.Listen(context.Background(), url, o)
		if err == nil || !strings.Contains(err.Error(), "another echo or subscriber of this topic") {
			t.Fatalf("a second echoer of the topic: %v", err)
		}
	}
}

func TestRoundTripRefusesLargeTransactions(t *testing.T) {
	for _, f := range []func() error{
		func() error {
			_, err := Transport{}.Listen(context.Background(), DefaultURL, opts(true, FlagTxSize, "2"))
			return err
		},
		func() error {
			_, err := Transport{}.Dial(context.Background(), DefaultURL+"#q", opts(true, FlagTxSize, "2"))
			return err
		},
	} {
		if err := f(); err == nil || !strings.Contains(err.Error(), "--"+FlagTxSize) {
			t.Errorf("round trip with transactions of 2: %v", err)
		}
	}
}

// unusedPort returns a loopback port nothing listens on.
func unusedPort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

func TestBrokerUnreachable(t *testing.T) {
	url := fmt.Sprintf("amqp://guest:secret@127.0.0.1:%d/", unusedPort(t))
	want := "cannot connect to RabbitMQ at " + driver.RedactURL(url)
	ctx, cancel := context.WithTimeout(context.Background(), drivertest.Watchdog)
	defer cancel()
	for name, f := range map[string]func() error{
		"Listen":    func() error { _, err := Transport{}.Listen(ctx, url, opts(false)); return err },
		"Dial":      func() error { _, err := Transport{}.Dial(ctx, url+"#q", opts(true)); return err },
		"Subscribe": func() error { _, err := Transport{}.Subscribe(ctx, url, opts(false)); return err },
		"Publish":   func() error { _, err := Transport{}.Publish(ctx, url+"#q", opts(true)); return err },
	} {
		err := f()
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "connection refused") || strings.Contains(err.Error(), "secret") {
			t.Errorf("%s to a closed port: %v\nwant an error with %q, the cause and no password", name, err, want)
		}
	}
}

func TestWrongCredentials(t *testing.T) {
	url := brokerURL(t)
	bad := strings.Replace(url, "guest:guest@", "guest:wrong-password@", 1)
	if bad == url {
		t.Skipf("%s does not use guest:guest; cannot derive wrong credentials", driver.RedactURL(url))
	}
	_, err := Transport{}.Listen(context.Background(), bad, opts(false))
	if err == nil || !strings.Contains(err.Error(), "ACCESS_REFUSED") || !strings.Contains(err.Error(), driver.RedactURL(bad)) ||
		strings.Contains(err.Error(), "wrong-password") || !strings.Contains(err.Error(), "user name and password") {
		t.Fatalf("wrong password: %v\nwant ACCESS_REFUSED naming %s", err, driver.RedactURL(bad))
	}
	t.Log(err)
}

func TestUnknownVirtualHost(t *testing.T) {
	url := brokerURL(t)
	u := strings.TrimSuffix(url, "/") + "/mqgate-no-such-vhost"
	_, err := Transport{}.Listen(context.Background(), u, opts(false))
	if err == nil || !strings.Contains(err.Error(), "NOT_ALLOWED") || !strings.Contains(err.Error(), "virtual host") {
		t.Fatalf("unknown virtual host: %v", err)
	}
	t.Log(err)
}

func TestUnknownExchange(t *testing.T) {
	url := brokerURL(t)
	_, err := Transport{}.Listen(context.Background(), url, opts(false, FlagExchange, "mqgate-no-such-exchange"))
	if err == nil || !strings.Contains(err.Error(), "NOT_FOUND") || !strings.Contains(err.Error(), "--"+FlagExchange) {
		t.Fatalf("unknown exchange: %v", err)
	}
}

func TestSystemInfo(t *testing.T) {
	url := brokerURL(t)
	e := drivertest.StartEcho(t, conformance(url, opts(true, FlagHeartbeat, "3s", FlagFrameMax, "8192", FlagPrefetch, "5")))
	p := drivertest.Dial(t, conformance(url, opts(true, FlagHeartbeat, "3s", FlagFrameMax, "8192", FlagPrefetch, "5")), e.Addr())
	si := p.(driver.InfoReporter).SystemInfo()
	if si.Product != "RabbitMQ" || si.Version == "" || si.URL != driver.RedactURL(url) || si.Extra["cluster_name"] == "" {
		t.Errorf("SystemInfo = %+v", si)
	}
	if strings.Contains(si.URL, ":guest@") {
		t.Errorf("SystemInfo URL has the password: %s", si.URL)
	}
	// The negotiated values, as the connection holds them.
	if si.Extra["frame_max"] != "8192" || si.Extra["heartbeat"] != "3s" || si.Extra["queues"] != "durable" {
		t.Errorf("negotiated: %v", si.Extra)
	}
	if want := "persistent messages, publisher confirms, manual ack, prefetch 5"; si.Extra["mode"] != want {
		t.Errorf("mode %q, want %q", si.Extra["mode"], want)
	}
	t.Logf("%s %s %v", si.Product, si.Version, si.Extra)
	ei := e.Echoer.(driver.InfoReporter).SystemInfo()
	if ei.Product != si.Product || ei.Version != si.Version {
		t.Errorf("echo SystemInfo = %+v", ei)
	}
}

// rawConn opens a plain amqp091 connection and channel for a test to act
// on the broker beside the driver.
func rawConn(t *testing.T, url string) *amqp091.Channel {
	t.Helper()
	c, err := amqp091.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ch, err := c.Channel()
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// receiveErr waits for a Receive with a long deadline to fail and returns
// its error.
func receiveErr(t *testing.T, r driver.Receiver, act func()) error {
	t.Helper()
	errc := make(chan error, 1)
	go func() {
		_, _, err := r.Receive(make([]byte, 64), time.Now().Add(time.Minute))
		errc <- err
	}()
	act()
	select {
	case err := <-errc:
		if err == nil || errors.Is(err, driver.ErrTimeout) {
			t.Fatalf("Receive = %v, want a broken-link error", err)
		}
		return err
	case <-time.After(drivertest.Watchdog):
		t.Fatal("Receive still waits after the link broke")
	}
	return nil
}

func TestQueueDeletedUnderPinger(t *testing.T) {
	url := brokerURL(t)
	c := conformance(url, opts(true))
	e := drivertest.StartEcho(t, c)
	p := asPinger(drivertest.Dial(t, c, e.Addr()))
	// The queue is exclusive to its connection: delete it from there.
	err := receiveErr(t, p, func() {
		if _, err := p.con.ch.QueueDelete(p.con.queue, false, false, false); err != nil {
			t.Fatal(err)
		}
	})
	if !strings.Contains(err.Error(), "cancelled consumer") || !strings.Contains(err.Error(), p.con.queue) {
		t.Fatalf("after its queue was deleted: %v", err)
	}
	t.Log(err)
	// Every later call fails the same way, at once.
	if _, _, err2 := p.Receive(make([]byte, 64), time.Now().Add(time.Minute)); err2 == nil || err2.Error() != err.Error() {
		t.Errorf("second Receive = %v", err2)
	}
}

func TestServeFailsWhenQueueDeleted(t *testing.T) {
	url := brokerURL(t)
	e, err := Transport{}.Listen(context.Background(), url, opts(false))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	done := make(chan error, 1)
	go func() { done <- e.Serve(context.Background()) }()
	if _, err := e.(*echoer).con.ch.QueueDelete(e.(*echoer).con.queue, false, false, false); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "cancelled consumer") {
			t.Fatalf("Serve after its queue was deleted = %v", err)
		}
	case <-time.After(drivertest.Watchdog):
		t.Fatal("Serve did not return after its queue was deleted")
	}
}

// asPinger returns the pinger under an AckSender wrapper.
func asPinger(p driver.Pinger) *pinger {
	if a, ok := p.(*ackPinger); ok {
		return a.pinger
	}
	return p.(*pinger)
}

// TestPingerAcks: a reliable pinger's pings are confirmed (or committed),
// a best-effort pinger acknowledges nothing and says so by its type.
func TestPingerAcks(t *testing.T) {
	url := brokerURL(t)
	for _, tc := range []struct {
		name string
		o    driver.Options
		acks bool
	}{
		{"best_effort", opts(false), false},
		{"reliable", opts(true), true},
		{"reliable_tx", opts(true, FlagTxSize, "1"), true},
		{"best_effort_tx", opts(false, FlagTxSize, "1"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := conformance(url, tc.o)
			e := drivertest.StartEcho(t, c)
			p := drivertest.Dial(t, c, e.Addr())
			a, ok := p.(driver.AckSender)
			if ok != tc.acks {
				t.Fatalf("pinger is an AckSender: %v, want %v", ok, tc.acks)
			}
			var ac ackCounter
			if ok {
				a.OnAck(ac.f)
			}
			buf := make([]byte, 64)
			for i := range 20 {
				msg := make([]byte, 64)
				msg[0] = byte(i)
				if _, err := drivertest.RoundTrip(p, msg, buf); err != nil {
					t.Fatal(err)
				}
			}
			if !ok {
				return
			}
			if err := a.WaitAcks(time.Now().Add(drivertest.Watchdog)); err != nil {
				t.Fatal(err)
			}
			if acks, errs, _ := ac.get(); acks != 20 || errs != 0 {
				t.Fatalf("20 round trips: %d acks, %d refusals", acks, errs)
			}
		})
	}
}

func TestRunNames(t *testing.T) {
	if FlagURL != driver.URLFlag(Name) || EnvURL != driver.URLEnv(Name) {
		t.Errorf("URL flag %s (%s), want run's %s (%s)", FlagURL, EnvURL, driver.URLFlag(Name), driver.URLEnv(Name))
	}
	if !driver.IsBroker(Transport{}) || driver.MessageLimitOf(Transport{}, driver.Options{}) != 128<<20 {
		t.Error("not a broker of 128 MiB messages")
	}
}
