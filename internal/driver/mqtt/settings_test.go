package mqtt

import (
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/driver"
)

func TestRegistered(t *testing.T) {
	tr, err := driver.Lookup(Name)
	if err != nil || tr.Name() != Name {
		t.Fatalf("Lookup(mqtt) = %v, %v", tr, err)
	}
	if got, err := driver.ForScheme("mqtts"); err != nil || got.Name() != Name {
		t.Errorf("ForScheme(mqtts) = %v, %v", got, err)
	}
	want := map[string]struct {
		qos      string
		reliable bool
	}{
		"mqtt_best_effort": {"0", false}, "mqtt_reliable": {"1", true}, "mqtt_exactly_once": {"2", true},
	}
	for typ, w := range want {
		for _, sec := range []bool{false, true} {
			name := typ
			if sec {
				name += "_security"
			}
			s, ok := driver.ScenarioOf(name)
			if !ok || s.Transport != Name || s.Reliable != w.reliable || s.Security != sec || !s.Interprocess || s.Params[ParamQoS] != w.qos {
				t.Errorf("scenario %s = %+v, %v", name, s, ok)
			}
		}
	}
	flags := map[string]driver.Flag{}
	for _, f := range (Transport{}).Flags() {
		flags[f.Name] = f
	}
	if f := flags[driver.URLFlag(Name)]; f.EnvVar != "MQGATE_MQTT_URL" || f.Default != DefaultURL {
		t.Errorf("URL flag %+v", f)
	}
	if !flags[ParamPassword].Secret {
		t.Errorf("%s is not secret", ParamPassword)
	}
}

func TestMessageLimit(t *testing.T) {
	o := driver.Options{Topic: "abc"}
	// 268,435,455 − (2 + 2 + 1) − len("abc/ping")
	if got := (Transport{}).MessageLimit(o); got != 268_435_442 {
		t.Errorf("MessageLimit = %d", got)
	}
	// The largest message still fits a PUBLISH of the protocol's size.
	if n := packetSize("abc/ping", 2, PublishLimit("abc/ping")); n > 1+4+MaxPacket {
		t.Errorf("largest PUBLISH is %d bytes", n)
	}
}

func TestSettings(t *testing.T) {
	params := func(kv ...string) driver.Options {
		o := driver.Options{Params: map[string]string{}}
		for i := 0; i+1 < len(kv); i += 2 {
			o.Params[kv[i]] = kv[i+1]
		}
		return o
	}
	for _, c := range []struct {
		addr string
		opts driver.Options
		want string // part of the error, or "= " and the URL used
	}{
		{"", params(), "= mqtt://127.0.0.1:1883"},
		{"broker.example", params(), "= mqtt://broker.example:1883"},
		{"mqtts://broker.example", params(), "= mqtts://broker.example:8883"},
		{"MQTT://h:1", params(), "= mqtt://h:1"},
		{"tls://h:1", params(), `scheme "tls": want mqtt:// or mqtts://`},
		{"mqtt://h:1/path", params(), "without a path or query"},
		{"mqtt://:1883", params(), "has no host"},
		{"mqtt://h:99999", params(), `bad port "99999"`},
		{"mqtt://h", params(ParamVersion, "4"), `mqtt-version "4": want 3.1.1 or 5`},
		{"mqtt://h", params(ParamQoS, "3"), `mqtt-qos "3": want 0, 1 or 2`},
		{"mqtt://h", params(ParamMaxInflight, "0"), "--mqtt-max-inflight 0: expected 1 to 65535"},
		{"mqtt://h", params(ParamKeepAlive, "500ms"), "--mqtt-keepalive 500ms: expected 1s to 18h12m15s"},
		{"mqtt://h", params(ParamPassword, "pw"), "MQTT 3.1.1 sends a password only with a user name"},
		{"mqtt://h", params(ParamPassword, "pw", ParamVersion, "5"), "= mqtt://h:1883"},
		{"mqtt://h", driver.Options{Topic: "a/+/b"}, "has a wildcard"},
		{"mqtt://h", driver.Options{Topic: "a/#"}, "has a wildcard"},
	} {
		s, err := newSettings(c.addr, c.opts)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = "= " + s.url.String()
		}
		if ok := strings.HasPrefix(c.want, "= "); (ok && got != c.want) || (!ok && (err == nil || !strings.Contains(got, c.want))) {
			t.Errorf("newSettings(%q, %v) = %q, want %q", c.addr, c.opts.Params, got, c.want)
		}
	}
}

func TestCredentials(t *testing.T) {
	o := driver.Options{Params: map[string]string{ParamUsername: "flag-user", ParamPassword: "flag-pw"}}
	s, err := newSettings("mqtt://url-user:url-pw@h:1883", o)
	if err != nil {
		t.Fatal(err)
	}
	if s.username != "url-user" || s.password != "url-pw" || s.url.User != nil {
		t.Errorf("URL credentials: user %q password %q, URL %s", s.username, s.password, s.url)
	}
	if s.redacted != "mqtt://url-user:xxxxx@h:1883" {
		t.Errorf("redacted %q", s.redacted)
	}
	s, err = newSettings("mqtt://h:1883", o)
	if err != nil {
		t.Fatal(err)
	}
	if s.username != "flag-user" || s.password != "flag-pw" || !s.hasUser || !s.hasPassword {
		t.Errorf("flag credentials: user %q password %q", s.username, s.password)
	}
}

func TestQoSFromReliable(t *testing.T) {
	for _, reliable := range []bool{false, true} {
		s, err := newSettings("", driver.Options{Reliable: reliable})
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]byte{false: 0, true: 1}[reliable]; s.qos != want {
			t.Errorf("Reliable %v: QoS %d, want %d", reliable, s.qos, want)
		}
	}
}

func TestClientID(t *testing.T) {
	s, err := newSettings("", driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := s.clientID(rolePinger), s.clientID(rolePinger)
	if a == b || !strings.HasPrefix(a, "mqgate-ping-") || len(a) > 23 {
		t.Errorf("client identifiers %q, %q: want unique mqgate-ping-… of at most 23 characters", a, b)
	}
}

func TestParseBrokerVersion(t *testing.T) {
	for raw, want := range map[string][2]string{
		"mosquitto version 2.0.11":  {"mosquitto", "2.0.11"},
		"mosquitto version 2.0.11 ": {"mosquitto", "2.0.11"},
		"VerneMQ Version 1.13":      {"VerneMQ", "1.13"},
		"2.7.9":                     {"", "2.7.9"},
		" some broker 1 ":           {"", "some broker 1"},
	} {
		if p, v := parseBrokerVersion(raw); p != want[0] || v != want[1] {
			t.Errorf("parseBrokerVersion(%q) = %q, %q; want %q", raw, p, v, want)
		}
	}
}

// TestSystemInfo: the installed Mosquitto names itself through
// $SYS/broker/version; an embedded broker is mochi-mqtt.
func TestSystemInfo(t *testing.T) {
	for _, v := range versions {
		t.Run("v"+v, func(t *testing.T) {
			p, err := Transport{}.Dial(dialCtx(t), mosquittoURL(t), options(t, v, 1))
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			si := p.(driver.InfoReporter).SystemInfo()
			if si.Product != "mosquitto" || si.Version == "" || si.Embedded || si.URL != mosquittoURL(t) ||
				si.Extra["qos"] != "1" || !strings.HasPrefix(si.Extra["client"], "github.com/eclipse/paho") {
				t.Errorf("SystemInfo() = %+v", si)
			}
			if v == "5" && si.Extra["broker_receive_maximum"] == "" {
				t.Errorf("SystemInfo().Extra lacks the CONNACK's receive maximum: %v", si.Extra)
			}

			url := embedded(t, nil)
			p, err = Transport{}.Dial(dialCtx(t), url, options(t, v, 0))
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			si = p.(driver.InfoReporter).SystemInfo()
			if si.Product != "mochi-mqtt" || si.Version == "" || !si.Embedded || si.URL != url {
				t.Errorf("embedded SystemInfo() = %+v", si)
			}
		})
	}
}

func TestSystemInfoNotAsked(t *testing.T) {
	url := embedded(t, nil)
	// A broker of another process: the version topic is not read when
	// turned off.
	o := options(t, "5", 0)
	o.Params[ParamVersionTopic] = ""
	s, err := newSettings(url, o)
	if err != nil {
		t.Fatal(err)
	}
	c, err := connect(dialCtx(t), s, rolePinger, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	embeddedHosts.Delete(s.url.Host) // seen as another process's broker
	si := systemInfo(s, c)
	if si.Product != "" || !strings.Contains(si.Extra["broker_version"], "not asked") {
		t.Errorf("SystemInfo() = %+v", si)
	}
	s.versionTopic = DefaultVersionTopic
	si = systemInfo(s, c)
	if si.Product != "" || si.Version == "" || si.Extra["broker_version_topic"] != DefaultVersionTopic {
		t.Errorf("mochi-mqtt's $SYS/broker/version: SystemInfo() = %+v", si)
	}
}
