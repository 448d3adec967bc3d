package session

import (
	"context"
	"net"
	"net/url"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/driver/drivertest/hub"
	_ "github.com/mqgate/mqgate/internal/driver/intraprocess"
	_ "github.com/mqgate/mqgate/internal/driver/secure"
	_ "github.com/mqgate/mqgate/internal/driver/tcp"
	"github.com/mqgate/mqgate/internal/engine"
	"github.com/mqgate/mqgate/internal/meta"
)

func init() { hub.Register() }

func TestParseTarget(t *testing.T) {
	tests := []struct {
		raw, transport, addr string
		url                  bool
		err                  string
	}{
		{raw: "otherhost:7400", addr: "otherhost:7400"},
		{raw: "tcp=10.0.0.1:7400", transport: "tcp", addr: "10.0.0.1:7400"},
		{raw: "hub://u:p@127.0.0.1:1/x?a=b", transport: "hub", addr: "hub://u:p@127.0.0.1:1/x?a=b", url: true},
		{raw: "hub=hubs://127.0.0.1:1", transport: "hub", addr: "hubs://127.0.0.1:1", url: true},
		{raw: "nohost", err: "expected HOST:PORT"},
		{raw: "pigeon=1.2.3.4:5", err: `transport "pigeon" is not available`},
		{raw: "gopher://h:1", err: "no registered transport takes gopher:// URLs (available: hub://, hubs://)"},
		{raw: "hub=127.0.0.1:1", err: "expected a URL (hub://HOST:PORT)"},
	}
	for _, tt := range tests {
		got, err := parseTarget(tt.raw)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("parseTarget(%q) error %v, want %q", tt.raw, err, tt.err)
			}
			continue
		}
		if err != nil || got.transport != tt.transport || got.addr != tt.addr || got.url != tt.url {
			t.Errorf("parseTarget(%q) = %+v, %v", tt.raw, got, err)
		}
	}
}

func TestRedactArgs(t *testing.T) {
	in := []string{"run", "--hub-password", "pw1", "--hub-password=pw2", "-hub-password", "pw3",
		"--target", "amqp://guest:guest@h:5672/", "--target=nats://a:b@h:4222", "amqp=amqps://u:p@h", "--samples", "10"}
	want := []string{"run", "--hub-password", "xxxxx", "--hub-password=xxxxx", "-hub-password", "xxxxx",
		"--target", "amqp://guest:xxxxx@h:5672/", "--target=nats://a:xxxxx@h:4222", "amqp=amqps://u:xxxxx@h", "--samples", "10"}
	if got := RedactArgs(in, map[string]bool{"hub-password": true}); !reflect.DeepEqual(got, want) {
		t.Errorf("RedactArgs:\n got %q\nwant %q", got, want)
	}
}

// TestSessionEmbedded prepares an embedded hub with an in-process echo and
// runs the engine over the session's sub-experiments directly.
func TestSessionEmbedded(t *testing.T) {
	cfg := Config{
		Scenarios: []string{"hub_reliable", "intraprocess_reliable"},
		Engine:    engine.Config{Payloads: []int{16, 256}, Samples: 100, Warmup: 5},
		Echo:      EchoInProcess,
		Broker:    BrokerEmbedded,
		Params:    map[string]string{hub.TagFlag: "green"},
	}
	s, err := Prepare(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dir := filepath.Join(t.TempDir(), "exp")
	m := &meta.Meta{Experiment: "exp"}
	if err := s.Run(context.Background(), Output{Dir: dir, Meta: m}); err != nil {
		t.Fatal(err)
	}
	if !m.Completed || len(m.SubExperiments) != 2 || m.Config.Broker != BrokerEmbedded || m.Config.Echo != engine.EchoInProcess {
		t.Fatalf("meta %+v", m)
	}
	h, in := m.SubExperiments[0], m.SubExperiments[1]
	if h.System == nil || !h.System.Embedded || h.Params[hub.TagFlag] != "green" || !h.Acknowledged || h.Topic == "" {
		t.Errorf("hub sub-experiment %+v", h)
	}
	if in.System != nil || in.Params != nil || in.Topic != "" || in.Acknowledged {
		t.Errorf("intraprocess sub-experiment records broker fields: %+v", in)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	// The embedded hub is gone once the session is closed.
	u, err := url.Parse(h.System.URL)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := net.Dial("tcp", u.Host); err == nil {
		c.Close()
		t.Errorf("the embedded hub at %s still accepts connections after Close", u.Host)
	}
}
