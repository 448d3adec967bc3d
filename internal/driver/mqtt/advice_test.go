package mqtt

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
	"github.com/mqgate/mqgate/internal/meta"
)

// TestAdviceRule: the warning comes for QoS 1 and 2 above nagleRTT only,
// and names Mosquitto's remedy.
func TestAdviceRule(t *testing.T) {
	mosquitto := &meta.SystemInfo{Product: "mosquitto", Version: "2.0.11"}
	for _, c := range []struct {
		name string
		qos  string
		sys  *meta.SystemInfo
		p50  time.Duration
		want []string // substrings; none: no advice
	}{
		{"qos0 slow", "0", mosquitto, 44 * time.Millisecond, nil},
		{"qos1 fast", "1", mosquitto, 150 * time.Microsecond, nil},
		{"qos1 at the bound", "1", mosquitto, nagleRTT, nil},
		{"qos1 slow", "1", mosquitto, 44 * time.Millisecond, []string{"44.0 ms", "QoS 1", "mosquitto 2.0.11", "Nagle", "delayed ACKs", "Mosquitto: set_tcp_nodelay true in mosquitto.conf"}},
		{"qos2 slow", "2", mosquitto, 88 * time.Millisecond, []string{"QoS 2", "set_tcp_nodelay true"}},
		{"other broker", "1", &meta.SystemInfo{Product: "unknown"}, 44 * time.Millisecond, []string{"against unknown", "TCP_NODELAY"}},
		{"no system", "1", nil, 44 * time.Millisecond, []string{"against the broker", "TCP_NODELAY"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Transport{}.Advice(meta.SubExperiment{Type: "mqtt_reliable", Params: map[string]string{ParamQoS: c.qos}, System: c.sys}, c.p50)
			if c.want == nil && got != "" {
				t.Errorf("advice %q, want none", got)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("advice %q lacks %q", got, w)
				}
			}
		})
	}
}

// TestAdviceAgainstMosquitto measures QoS 1 round trips through a real
// Mosquitto as it ships (set_tcp_nodelay false: Nagle on) and as the
// advice says to configure it: the first gets the warning run prints
// (driver.Advice, with the broker's product as the pinger reports it),
// the second, tens of times faster, none.
func TestAdviceAgainstMosquitto(t *testing.T) {
	for _, c := range []struct {
		nodelay string
		warn    bool
	}{{"false", true}, {"true", false}} {
		t.Run("set_tcp_nodelay="+c.nodelay, func(t *testing.T) {
			m := StartMosquitto(t, "allow_anonymous true", "set_tcp_nodelay "+c.nodelay)
			url, o := m.URL("mqtt"), options(t, "3.1.1", 1)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			e, err := Transport{}.Listen(dialCtx(t), url, o)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			go e.Serve(ctx)
			p, err := Transport{}.Dial(dialCtx(t), url, o)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			buf := make([]byte, 64)
			var res driver.PayloadResult
			for range 25 {
				start := time.Now()
				if _, err := drivertest.RoundTrip(p, []byte("0123456789abcdef"), buf); err != nil {
					t.Fatal(err)
				}
				res.Nanos = append(res.Nanos, time.Since(start).Nanoseconds())
			}
			sys := meta.SystemInfo{Product: "mosquitto"}
			if r, ok := p.(driver.InfoReporter); ok {
				sys = r.SystemInfo()
			}
			sub := meta.SubExperiment{Type: "mqtt_reliable", Transport: Name, Params: o.Params, System: &sys}
			got := driver.Advice(sub, []driver.PayloadResult{res})
			if c.warn != (got != "") {
				t.Errorf("set_tcp_nodelay %s: advice %q, want it %v (round trips %v)", c.nodelay, got, c.warn, res.Nanos)
			}
			if c.warn && (!strings.HasPrefix(got, "warning: mqtt_reliable: ") || !strings.Contains(got, "set_tcp_nodelay true")) {
				t.Errorf("the warning does not name the sub-experiment and the remedy: %q", got)
			}
		})
	}
}
