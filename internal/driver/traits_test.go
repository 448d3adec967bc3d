package driver

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/meta"
)

// brokerTransport declares schemes and a URL flag.
type brokerTransport struct {
	fakeTransport
	schemes []string
}

func (b brokerTransport) Schemes() []string { return b.schemes }
func (b brokerTransport) Flags() []Flag {
	return []Flag{{Name: URLFlag(b.name), EnvVar: URLEnv(b.name)}, {Name: b.name + "-password", Secret: true}}
}
func (b brokerTransport) MessageLimit(Options) int { return 1 << 20 }

// urlFlagOnly is a broker by its URL flag alone.
type urlFlagOnly struct{ fakeTransport }

func (u urlFlagOnly) Flags() []Flag { return []Flag{{Name: URLFlag(u.name)}} }

func TestTraits(t *testing.T) {
	n := strconv.FormatInt(registrations.Add(1), 10)
	b := brokerTransport{fakeTransport{"tb" + n}, []string{"tb" + n, "tbs" + n}}
	u := urlFlagOnly{fakeTransport{"tu" + n}}
	Register(b)
	Register(u)
	if !IsBroker(b) || !IsBroker(u) || IsBroker(fakeTransport{"x"}) {
		t.Error("IsBroker")
	}
	if got := SchemesOf(u); len(got) != 1 || got[0] != u.name {
		t.Errorf("SchemesOf(url flag only) = %v", got)
	}
	for _, s := range b.schemes {
		if tr, err := ForScheme(s); err != nil || tr.Name() != b.name {
			t.Errorf("ForScheme(%s) = %v, %v", s, tr, err)
		}
	}
	if _, err := ForScheme("nosuch"); err == nil || !strings.Contains(err.Error(), b.schemes[1]+"://") {
		t.Errorf("ForScheme(nosuch) error %v should list the schemes", err)
	}
	if MessageLimitOf(b, Options{}) != 1<<20 || MessageLimitOf(u, Options{}) != 0 {
		t.Error("MessageLimitOf")
	}
	if IsProcessBound(b) {
		t.Error("IsProcessBound")
	}
	if URLEnv("nats") != "MQGATE_NATS_URL" || EnvName("amqp-prefetch") != "MQGATE_AMQP_PREFETCH" || URLFlag("mqtt") != "mqtt-url" {
		t.Error("flag and environment names")
	}
}

func TestURLScheme(t *testing.T) {
	for in, want := range map[string]string{
		"nats://h:4222": "nats", "AMQPS://u:p@h/v": "amqps", "h:4222": "", "tcp=h:1": "", "://x": "", "mqtt://": "",
	} {
		if got := URLScheme(in); got != want {
			t.Errorf("URLScheme(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"amqp://guest:guest@h:5672/": "amqp://guest:xxxxx@h:5672/",
		"nats://tok@h:4222":          "nats://tok@h:4222",
		"127.0.0.1:4222":             "127.0.0.1:4222",
		"mqtt://h:1883":              "mqtt://h:1883",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRecorded: what meta.json records of a reported system has its URL
// redacted and is embedded when either the run or the driver says so; the
// reported value itself is left as it was.
func TestRecorded(t *testing.T) {
	info := meta.SystemInfo{Product: "RabbitMQ", Version: "3.12.1", URL: "amqp://guest:guest@h:5672/", Extra: map[string]string{"mode": "confirm"}}
	for _, c := range []struct{ reported, run, want bool }{{false, false, false}, {false, true, true}, {true, false, true}} {
		in := info
		in.Embedded = c.reported
		got := Recorded(in, c.run)
		want := meta.SystemInfo{Product: "RabbitMQ", Version: "3.12.1", URL: "amqp://guest:xxxxx@h:5672/", Embedded: c.want, Extra: info.Extra}
		if !reflect.DeepEqual(*got, want) {
			t.Errorf("Recorded(embedded %v, run embedded %v) = %+v, want %+v", c.reported, c.run, *got, want)
		}
		if in.URL != info.URL {
			t.Errorf("Recorded changed its argument's URL to %q", in.URL)
		}
	}
}
