package mqtt

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mochi-mqtt/server/v2/hooks/auth"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
)

// wantErr fails t unless err is a non-timeout error containing every part.
func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", parts)
	}
	if errors.Is(err, driver.ErrTimeout) {
		t.Fatalf("error %q is a timeout, want a clear failure", err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
	t.Log(err)
}

func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func dialCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), drivertest.Watchdog)
	t.Cleanup(cancel)
	return ctx
}

func TestBrokerUnreachable(t *testing.T) {
	addr := closedPort(t)
	for _, v := range versions {
		t.Run("v"+v, func(t *testing.T) {
			url := "mqtt://mqgate:s3cret@" + addr
			_, err := Transport{}.Dial(dialCtx(t), url, options(t, v, 1))
			wantErr(t, err, "cannot reach the broker at mqtt://mqgate:xxxxx@"+addr, "connection refused")
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("error %q shows the password", err)
			}
			_, err = Transport{}.Listen(dialCtx(t), url, options(t, v, 1))
			wantErr(t, err, "cannot reach the broker at mqtt://mqgate:xxxxx@"+addr)
			_, err = Transport{}.Publish(dialCtx(t), url, options(t, v, 1))
			wantErr(t, err, "cannot reach the broker")
			_, err = Transport{}.Subscribe(dialCtx(t), url, options(t, v, 1))
			wantErr(t, err, "cannot reach the broker")
		})
	}
}

// TestBrokerKilledEmbedded closes the embedded broker while a pinger waits
// for an echo: Receive must return a non-timeout error naming the broker
// well before its deadline, and the echoer's Serve must end with an error.
func TestBrokerKilledEmbedded(t *testing.T) {
	forEach(t, func(t *testing.T, version string, qos int) {
		url, stop, err := StartBroker(nil, new(auth.AllowHook), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		brokerDies(t, url, options(t, version, qos), func() { stop() })
	})
}

// TestBrokerKilledMosquitto kills (SIGKILL) a Mosquitto broker mid-run.
func TestBrokerKilledMosquitto(t *testing.T) {
	forEach(t, func(t *testing.T, version string, qos int) {
		m := StartMosquitto(t, "allow_anonymous true")
		brokerDies(t, m.URL("mqtt"), options(t, version, qos), m.kill)
	})
}

func brokerDies(t *testing.T, url string, o driver.Options, kill func()) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e, err := Transport{}.Listen(dialCtx(t), url, o)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	served := make(chan error, 1)
	go func() { served <- e.Serve(ctx) }()
	p, err := Transport{}.Dial(dialCtx(t), url, o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	buf := make([]byte, 64)
	if _, err := drivertest.RoundTrip(p, []byte("0123456789abcdef"), buf); err != nil {
		t.Fatal(err)
	}
	received := make(chan error, 1)
	go func() {
		_, _, err := p.Receive(buf, time.Now().Add(drivertest.Watchdog))
		received <- err
	}()
	time.Sleep(50 * time.Millisecond) // let Receive wait
	kill()
	select {
	case err := <-received:
		wantErr(t, err, "lost the connection to "+url)
	case <-time.After(drivertest.Watchdog):
		t.Fatal("Receive did not return after the broker died")
	}
	select {
	case err := <-served:
		wantErr(t, err, "lost the connection to "+url)
	case <-time.After(drivertest.Watchdog):
		t.Fatal("Serve did not return after the broker died")
	}
	// Later calls fail at once with the same clear error.
	wantErr(t, p.Send([]byte("0123456789abcdef")), "lost the connection")
	_, _, err = p.Receive(buf, time.Now().Add(time.Second))
	wantErr(t, err, "lost the connection")
}

// TestWrongCredentials: a broker that checks passwords refuses a wrong
// one with a message naming the URL (without the password) and the CONNACK
// code; the right one connects.
func TestWrongCredentials(t *testing.T) {
	ledger := &auth.Ledger{Auth: auth.AuthRules{{Username: "mqgate", Password: "right", Allow: true}}}
	url, stop, err := StartBroker(nil, new(auth.Hook), &auth.Options{Ledger: ledger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop() })
	hostport := strings.TrimPrefix(url, "mqtt://")
	// mochi-mqtt answers MQTT 3.1.1 clients with "not authorised".
	codes := map[string]string{
		"3.1.1": "CONNACK return code 5 (Connection Refused: Not Authorised)",
		"5":     "CONNACK reason code 0x86 (Bad User Name or Password",
	}
	for _, v := range versions {
		t.Run("v"+v, func(t *testing.T) {
			wrong := "mqtt://mqgate:wrong@" + hostport
			_, err := Transport{}.Dial(dialCtx(t), wrong, options(t, v, 0))
			wantErr(t, err, "refused the connection", "mqtt://mqgate:xxxxx@"+hostport, codes[v])
			if strings.Contains(err.Error(), "wrong") {
				t.Errorf("error %q shows the password", err)
			}
			o := options(t, v, 0)
			o.Params[ParamUsername], o.Params[ParamPassword] = "mqgate", "wrong"
			_, err = Transport{}.Dial(dialCtx(t), url, o)
			wantErr(t, err, "refused the connection", url, codes[v])

			o.Params[ParamPassword] = "right"
			drivertest.Run(t, conformance(url, o))
		})
	}
}

// TestWrongCredentialsMosquitto checks the same against a Mosquitto with a
// password file.
func TestWrongCredentialsMosquitto(t *testing.T) {
	dir := t.TempDir()
	m := StartMosquitto(t, "allow_anonymous false", "password_file "+passwordFile(t, dir, "mqgate", "right"))
	codes := map[string]string{
		"3.1.1": "CONNACK return code 5 (Connection Refused: Not Authorised)",
		"5":     "CONNACK reason code 0x87 (Not authorized",
	}
	for _, v := range versions {
		t.Run("v"+v, func(t *testing.T) {
			o := options(t, v, 1)
			o.Params[ParamUsername], o.Params[ParamPassword] = "mqgate", "wrong"
			_, err := Transport{}.Dial(dialCtx(t), m.URL("mqtt"), o)
			wantErr(t, err, "refused the connection", m.URL("mqtt"), codes[v])
			o.Params[ParamPassword] = "right"
			p, err := Transport{}.Dial(dialCtx(t), m.URL("mqtt"), o)
			if err != nil {
				t.Fatal(err)
			}
			p.Close()
		})
	}
}

func TestTLSWrongCA(t *testing.T) {
	brokerSec, _ := pki(t)
	_, otherClient := pki(t) // certificates of another authority
	url := embedded(t, brokerSec)
	for _, v := range versions {
		t.Run("v"+v, func(t *testing.T) {
			o := options(t, v, 0)
			o.Security = otherClient
			_, err := Transport{}.Dial(dialCtx(t), url, o)
			wantErr(t, err, "TLS handshake with "+url, "not signed by the CA in "+otherClient.CAFile)
		})
	}
}

func TestTLSWrongServerName(t *testing.T) {
	brokerSec, clientSec := pki(t)
	url := embedded(t, brokerSec)
	o := options(t, "5", 0)
	sec := *clientSec
	sec.ServerName = "broker.example"
	o.Security = &sec
	_, err := Transport{}.Dial(dialCtx(t), url, o)
	wantErr(t, err, "not valid for \"broker.example\"")
}

// TestTLSClientCertificateVerified: a client certificate the broker's CA
// did not sign is refused.
func TestTLSClientCertificateVerified(t *testing.T) {
	brokerSec, clientSec := pki(t)
	_, other := pki(t)
	url := embedded(t, brokerSec)
	o := options(t, "3.1.1", 0)
	sec := *clientSec
	sec.CertFile, sec.KeyFile = other.CertFile, other.KeyFile
	o.Security = &sec
	for _, v := range versions {
		o.Params[ParamVersion] = v
		_, err := Transport{}.Dial(dialCtx(t), url, o)
		wantErr(t, err, "connecting to "+url, "refusing the client certificate "+other.CertFile)
	}
}

// TestTLSToPlainPort: mqtts:// to a plain MQTT port fails the handshake
// instead of hanging.
func TestTLSToPlainPort(t *testing.T) {
	_, clientSec := pki(t)
	url := embedded(t, nil)
	o := options(t, "5", 0)
	o.Security = clientSec
	_, err := Transport{}.Dial(dialCtx(t), "mqtts://"+strings.TrimPrefix(url, "mqtt://"), o)
	wantErr(t, err, "TLS handshake with mqtts://", "a plain mqtt:// port?")
}

// TestSecureUsesTLSPort: a _security scenario given an mqtt:// URL goes to
// the broker's TLS port, credentials kept.
func TestSecureUsesTLSPort(t *testing.T) {
	brokerSec, clientSec := pki(t)
	tlsURL := embedded(t, brokerSec)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(tlsURL, "mqtts://"))
	o := options(t, "3.1.1", 0)
	o.Security = clientSec
	o.Params[ParamTLSPort] = port
	e, err := Transport{}.Listen(dialCtx(t), "mqtt://mqgate:pw@127.0.0.1:1883", o)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if want := "mqtts://mqgate:pw@127.0.0.1:" + port; e.Addr() != want {
		t.Errorf("echoer Addr() = %s, want %s", e.Addr(), want)
	}
	o.Params[ParamTLSPort] = "https"
	_, err = Transport{}.Dial(dialCtx(t), "mqtt://127.0.0.1:1883", o)
	wantErr(t, err, "--"+ParamTLSPort+` "https": expected a whole number, 1 to 65535`)
}

// TestSecureMaterialMissing: a CA file that does not exist is named.
func TestSecureMaterialMissing(t *testing.T) {
	url := embedded(t, nil)
	o := options(t, "5", 0)
	o.Security = &driver.Security{CAFile: "/nonexistent/ca.pem"}
	_, err := Transport{}.Dial(dialCtx(t), "mqtts://"+strings.TrimPrefix(url, "mqtt://"), o)
	wantErr(t, err, "/nonexistent/ca.pem")
}

// TestSubscriptionRefused: a broker whose ACL forbids reading the topic
// refuses the subscription, and Dial says so.
func TestSubscriptionRefused(t *testing.T) {
	ledger := &auth.Ledger{
		Auth: auth.AuthRules{{Allow: true}},
		ACL:  auth.ACLRules{{Filters: auth.Filters{"mqgate-test/#": auth.WriteOnly}}},
	}
	url, stop, err := StartBroker(nil, new(auth.Hook), &auth.Options{Ledger: ledger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop() })
	codes := map[string]string{"3.1.1": "SUBACK return code 0x80", "5": "SUBACK reason code 0x87 (not authorized)"}
	for _, v := range versions {
		t.Run("v"+v, func(t *testing.T) {
			_, err := Transport{}.Dial(dialCtx(t), url, options(t, v, 1))
			wantErr(t, err, "refused the subscription", "/pong", codes[v])
		})
	}
}

func TestReceiveAfterCloseIsClosed(t *testing.T) {
	url := embedded(t, nil)
	p, err := Transport{}.Dial(dialCtx(t), url, options(t, "5", 0))
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	_, _, err = p.Receive(make([]byte, 16), time.Now().Add(time.Second))
	if !errors.Is(err, driver.ErrClosed) {
		t.Fatalf("Receive after Close = %v, want driver.ErrClosed", err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
}

func TestMessageTooLargeForBroker(t *testing.T) {
	// Mosquitto declares its max_packet_size in the MQTT 5 CONNACK.
	m := StartMosquitto(t, "allow_anonymous true", "max_packet_size 1000")
	o := options(t, "5", 0)
	p, err := Transport{}.Dial(dialCtx(t), m.URL("mqtt"), o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	wantErr(t, p.Send(make([]byte, 2000)), "2000-byte message", "Maximum Packet Size of 1000 bytes", m.URL("mqtt"))
	if err := p.Send(make([]byte, 100)); err != nil {
		t.Fatalf("a 100-byte message: %v", err)
	}
	if info := p.(driver.InfoReporter).SystemInfo(); info.Extra["broker_maximum_packet_size"] != "1000" {
		t.Errorf("SystemInfo().Extra = %v, want broker_maximum_packet_size 1000", info.Extra)
	}
}

func TestKeepAliveBounds(t *testing.T) {
	for _, ka := range []string{"0s", "-1s", "18h12m16s", "soon"} {
		o := options(t, "3.1.1", 0)
		o.Params[ParamKeepAlive] = ka
		_, err := Transport{}.Dial(dialCtx(t), "mqtt://127.0.0.1:"+strconv.Itoa(1), o)
		wantErr(t, err, ParamKeepAlive)
	}
}
