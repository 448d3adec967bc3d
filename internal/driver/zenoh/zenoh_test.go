package zenoh

import (
	"context"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/driver"
)

// TestParse checks the flag values each end accepts and the errors that
// name the flag.
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		params map[string]string
		topic  string
		want   settings
		err    string
	}{
		{params: map[string]string{}, want: settings{mode: "peer", key: "mqgate/bench"}},
		{params: map[string]string{FlagMode: "client"}, topic: "mqgate-1-zenoh_reliable", want: settings{mode: "client", key: "mqgate/mqgate-1-zenoh_reliable"}},
		{params: map[string]string{FlagMode: "client", FlagEndpoint: "tcp/10.0.0.1:7447"}, want: settings{mode: "client", endpoint: "tcp/10.0.0.1:7447", key: "mqgate/bench"}},
		{params: map[string]string{FlagMode: "router"}, err: `--zenoh-mode "router": expected peer or client`},
		{params: map[string]string{FlagEndpoint: "tcp/10.0.0.1:7447"}, err: "a router endpoint needs --zenoh-mode client"},
		{params: map[string]string{FlagMode: "client", FlagEndpoint: "udp/x"}, err: "expected tcp/HOST:PORT"},
		{params: map[string]string{FlagKey: "a/**"}, err: "--zenoh-key"},
		{params: map[string]string{FlagHelper: "/nonexistent/mqgate-zenoh"}, err: "--zenoh-helper /nonexistent/mqgate-zenoh: not an executable file"},
	} {
		if _, ok := tc.params[FlagHelper]; !ok {
			tc.params[FlagHelper] = "/bin/sh" // any executable: parse does not run it
			tc.want.bin = "/bin/sh"
		}
		got, err := parse(driver.Options{Params: tc.params, Topic: tc.topic})
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: err = %v, want %q", tc.params, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%v: got %+v, %v; want %+v", tc.params, got, err, tc.want)
		}
	}
}

// TestHostPort checks the endpoint forms Listen and Dial take.
func TestHostPort(t *testing.T) {
	for in, want := range map[string]string{"tcp/127.0.0.1:7447": "127.0.0.1:7447", "10.0.0.2:80": "10.0.0.2:80", "tcp/[::1]:7447": "[::1]:7447"} {
		if got, err := hostPort(in); err != nil || got != want {
			t.Errorf("hostPort(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"udp/1.2.3.4:5", "tcp/nohost", "x"} {
		if _, err := hostPort(in); err == nil {
			t.Errorf("hostPort(%q): no error", in)
		}
	}
	if endpoint("1.2.3.4:5") != "tcp/1.2.3.4:5" || endpoint("tcp/1.2.3.4:5") != "tcp/1.2.3.4:5" {
		t.Error("endpoint")
	}
}

// TestSelfMeasuringPinger checks that the pinger refuses to carry bytes
// itself and that Dial refuses an address where nothing listens.
func TestSelfMeasuringPinger(t *testing.T) {
	p := &Pinger{}
	if err := p.Send(nil); err != ErrSelfMeasuring {
		t.Errorf("Send: %v", err)
	}
	if _, _, err := p.Receive(nil, timeNow()); err != ErrSelfMeasuring {
		t.Errorf("Receive: %v", err)
	}
	_, err := Transport{}.Dial(context.Background(), "127.0.0.1:1", driver.Options{Params: map[string]string{FlagHelper: "/bin/sh"}})
	if err == nil || !strings.Contains(err.Error(), "nothing accepts Zenoh connections at tcp/127.0.0.1:1") {
		t.Errorf("Dial: %v", err)
	}
}
