package amqp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
	"github.com/mqgate/mqgate/internal/driver/secure"
	"github.com/mqgate/mqgate/internal/testenv"
)

// EnvTLSDir names the directory of the certificates the broker's TLS
// listener was configured with (tools/certgen output; see README).
const EnvTLSDir = "MQGATE_AMQP_TLS_DIR"

// tlsSetup returns the plain broker URL (the _security ends switch it to
// amqps:// on port 5671) and the client's security material, or skips
// (fails under CI=true) when the broker has no TLS listener set up with
// mqgate's certificates.
func tlsSetup(t *testing.T) (string, driver.Security) {
	t.Helper()
	url := brokerURL(t)
	dir := os.Getenv(EnvTLSDir)
	if dir == "" {
		testenv.Unavailable(t, "%s is not set: configure RabbitMQ's TLS port with certificates from tools/certgen (see README, \"AMQP (RabbitMQ)\") and point %s at them", EnvTLSDir, EnvTLSDir)
	}
	sec := driver.Security{
		CAFile:   filepath.Join(dir, secure.CAFileName),
		CertFile: filepath.Join(dir, secure.PingerCertName),
		KeyFile:  filepath.Join(dir, secure.PingerKeyName),
	}
	for _, f := range []string{sec.CAFile, sec.CertFile, sec.KeyFile} {
		if _, err := os.Stat(f); err != nil {
			testenv.Unavailable(t, "%s: %v", EnvTLSDir, err)
		}
	}
	testenv.Service(t, "RabbitMQ's TLS listener", "127.0.0.1:5671", "configure listeners.ssl.default = 5671 (see README)")
	return url, sec
}

func secureOpts(reliable bool, sec driver.Security, params ...string) driver.Options {
	o := opts(reliable, params...)
	o.Security = &sec
	return o
}

func TestConformanceTLS(t *testing.T) {
	url, sec := tlsSetup(t)
	for _, reliable := range []bool{false, true} {
		name := "amqp_best_effort_security"
		if reliable {
			name = "amqp_reliable_security"
		}
		t.Run(name, func(t *testing.T) {
			c := conformance(url, secureOpts(reliable, sec))
			drivertest.Run(t, c)
			e := drivertest.StartEcho(t, c)
			if !strings.HasPrefix(e.Addr(), "amqps://") || !strings.Contains(e.Addr(), ":5671/") {
				t.Errorf("echo address %s: want amqps:// on port 5671", driver.RedactURL(e.Addr()))
			}
			p := drivertest.Dial(t, c, e.Addr())
			si := p.(driver.InfoReporter).SystemInfo()
			if v := si.Extra["tls"]; v != "TLS 1.3" && v != "TLS 1.2" {
				t.Errorf("SystemInfo tls = %q", v)
			}
			t.Logf("%s %s over %s", si.Product, si.Version, si.Extra["tls"])
		})
	}
}

// TestTLSOneWay publishes with confirms over TLS.
func TestTLSOneWay(t *testing.T) {
	url, sec := tlsSetup(t)
	o := secureOpts(true, sec)
	sub := subscribe(t, url, o)
	pub := publish(t, sub.Addr(), o).(driver.AckSender)
	var ac ackCounter
	pub.OnAck(ac.f)
	for range 10 {
		if err := pub.Send(make([]byte, 1000)); err != nil {
			t.Fatal(err)
		}
	}
	buf := make([]byte, 1000)
	for i := range 10 {
		if _, _, err := sub.Receive(buf, deadline()); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
	}
	if err := pub.WaitAcks(deadline()); err != nil {
		t.Fatal(err)
	}
	if acks, errs, _ := ac.get(); acks != 10 || errs != 0 {
		t.Fatalf("%d acks, %d refusals", acks, errs)
	}
}

// TestTLSRefusals: the broker is verified against the CA and the name,
// and the broker verifies the client's certificate.
func TestTLSRefusals(t *testing.T) {
	url, sec := tlsSetup(t)
	other, _, err := secure.GenerateFiles(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	wrongCA := sec
	wrongCA.CAFile = other.CAFile
	wrongName := sec
	wrongName.ServerName = "broker.invalid"
	noCert := driver.Security{CAFile: sec.CAFile}
	strangerCert := sec
	strangerCert.CertFile, strangerCert.KeyFile = other.CertFile, other.KeyFile
	for _, tc := range []struct {
		name string
		sec  driver.Security
		want []string
	}{
		{"wrong CA", wrongCA, []string{"not signed by the CA in " + other.CAFile, ":5671/"}},
		{"wrong server name", wrongName, []string{"not valid for this host", "broker.invalid"}},
		// The broker's verdict on the client's certificate comes after the
		// client's handshake; when the reset that follows overtakes its
		// alert, the error can only suggest the cause.
		{"no client certificate", noCert, []string{"client certificate", ":5671/"}},
		{"client certificate of another CA", strangerCert, []string{"client certificate", ":5671/"}},
		{"missing CA file", driver.Security{CAFile: filepath.Join(t.TempDir(), "none.pem")}, []string{"none.pem"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Transport{}.Listen(context.Background(), url, secureOpts(false, tc.sec))
			if err == nil {
				t.Fatal("the connection was accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), ":guest@") {
				t.Errorf("error has the password: %v", err)
			}
			t.Log(err)
		})
	}
}
