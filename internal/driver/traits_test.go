package driver

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/meta"
)

// brokerTransport declares a broker with schemes, and its URL flag.
type brokerTransport struct {
	fakeTransport
	schemes []string
}

func (b brokerTransport) Capabilities() Capabilities {
	return Capabilities{Broker: true, Schemes: b.schemes}
}
func (b brokerTransport) Flags() []Flag {
	return []Flag{{Name: URLFlag(b.name), EnvVar: URLEnv(b.name)}, {Name: b.name + "-password", Secret: true}}
}
func (b brokerTransport) MessageLimit(Options) int { return 1 << 20 }

// brokerByName declares a broker without schemes: its name is its scheme.
type brokerByName struct{ fakeTransport }

func (brokerByName) Capabilities() Capabilities { return Capabilities{Broker: true} }

// urlFlagOnly declares a flag named like a broker's URL flag but no
// broker: the flag's name makes nothing a broker.
type urlFlagOnly struct{ fakeTransport }

func (u urlFlagOnly) Flags() []Flag { return []Flag{{Name: URLFlag(u.name)}} }

// declared is a transport with the capabilities it is given.
type declared struct {
	fakeTransport
	caps Capabilities
}

func (d declared) Capabilities() Capabilities { return d.caps }

func TestTraits(t *testing.T) {
	n := strconv.FormatInt(registrations.Add(1), 10)
	b := brokerTransport{fakeTransport{"tb" + n}, []string{"tb" + n, "tbs" + n}}
	bn := brokerByName{fakeTransport{"tn" + n}}
	u := urlFlagOnly{fakeTransport{"tu" + n}}
	Register(b)
	Register(bn)
	Register(u)
	if !IsBroker(b) || !IsBroker(bn) || IsBroker(u) || IsBroker(fakeTransport{"x"}) {
		t.Error("IsBroker reads the declared capabilities alone")
	}
	if got := SchemesOf(bn); len(got) != 1 || got[0] != bn.name {
		t.Errorf("SchemesOf(broker without schemes) = %v", got)
	}
	if got := SchemesOf(u); got != nil {
		t.Errorf("SchemesOf(no broker) = %v", got)
	}
	for _, s := range b.schemes {
		if tr, err := ForScheme(s); err != nil || tr.Name() != b.name {
			t.Errorf("ForScheme(%s) = %v, %v", s, tr, err)
		}
	}
	if _, err := ForScheme(u.name); err == nil {
		t.Errorf("ForScheme(%s) took a transport that is no broker", u.name)
	}
	if _, err := ForScheme("nosuch"); err == nil || !strings.Contains(err.Error(), b.schemes[1]+"://") {
		t.Errorf("ForScheme(nosuch) error %v should list the schemes", err)
	}
	if MessageLimitOf(b, Options{}) != 1<<20 || MessageLimitOf(u, Options{}) != 0 {
		t.Error("MessageLimitOf")
	}
	pb := declared{fakeTransport{"tp" + n}, Capabilities{ProcessBound: true, EchoDelay: true}}
	if IsProcessBound(b) || !IsProcessBound(pb) || HonoursEchoDelay(b) || !HonoursEchoDelay(pb) {
		t.Error("IsProcessBound and HonoursEchoDelay read the declared capabilities")
	}
	if URLEnv("nats") != "MQGATE_NATS_URL" || EnvName("amqp-prefetch") != "MQGATE_AMQP_PREFETCH" || URLFlag("mqtt") != "mqtt-url" {
		t.Error("flag and environment names")
	}
}

// TestRegisterChecksCapabilities: Register refuses capabilities that
// contradict themselves or claim another transport's URL scheme.
func TestRegisterChecksCapabilities(t *testing.T) {
	n := strconv.FormatInt(registrations.Add(1), 10)
	Register(declared{fakeTransport{"cs" + n}, Capabilities{Broker: true, Schemes: []string{"cs" + n}}})
	for _, c := range []struct {
		caps Capabilities
		want string
	}{
		{Capabilities{Schemes: []string{"x" + n}}, "not a broker"},
		{Capabilities{Broker: true, ProcessBound: true}, "share a process"},
		{Capabilities{Broker: true, Schemes: []string{"X" + n}}, "lower-case"},
		{Capabilities{Broker: true, Schemes: []string{"y" + n + "://"}}, "lower-case"},
		{Capabilities{Broker: true, Schemes: []string{"z" + n, "z" + n}}, "twice"},
		{Capabilities{Broker: true, Schemes: []string{"w" + n, "cs" + n}}, "which transport cs" + n + " has"},
	} {
		name := "cc" + strconv.FormatInt(registrations.Add(1), 10)
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), c.want) {
					t.Errorf("Register(%+v) panicked with %v, want %q", c.caps, r, c.want)
				}
			}()
			Register(declared{fakeTransport{name}, c.caps})
		}()
		if _, err := Lookup(name); err == nil {
			t.Errorf("Register(%+v) registered the transport", c.caps)
		}
	}
}

func TestCapabilitiesString(t *testing.T) {
	for _, c := range []struct {
		caps Capabilities
		want string
	}{
		{Capabilities{}, "-"},
		{Capabilities{Broker: true, Schemes: []string{"nats", "tls"}, EchoDelay: true}, "broker (nats, tls), echo delay"},
		{Capabilities{Broker: true}, "broker"},
		{Capabilities{ProcessBound: true, EchoDelay: true}, "process-bound, echo delay"},
	} {
		if got := c.caps.String(); got != c.want {
			t.Errorf("%+v.String() = %q, want %q", c.caps, got, c.want)
		}
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
