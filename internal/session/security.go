package session

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/secure"
	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/meta"
)

// prepareSecurity checks the certificate material given, or generates a CA
// and certificates for this run, before anything else is created.
func (s *Session) prepareSecurity() error {
	sec := s.cfg.Security
	var secured []*plan
	for _, p := range s.plans {
		if p.sc.Security {
			secured = append(secured, p)
		}
	}
	given := sec.given()
	if len(secured) == 0 {
		if len(given) > 0 {
			return fmt.Errorf("%s given, but no selected sub-experiment is secure (their names end in _security)", strings.Join(given, ", "))
		}
		return nil
	}
	// needsLocalCert: this run starts the far end (an echoer or a broker),
	// which presents a certificate of its own.
	needsLocalCert := func(p *plan) bool { return p.embedded || (!p.broker && p.echo != EchoRemote) }
	if sec.CAFile == "" && sec.CertFile == "" && sec.KeyFile == "" && sec.EchoCertFile == "" && sec.EchoKeyFile == "" {
		for _, p := range secured {
			if !needsLocalCert(p) {
				return fmt.Errorf("%s reaches an end this run does not start (%s): it needs --ca (and --cert, --key when the peer asks for a client certificate) from the CA that end uses; certificates generated for this run stay on this host",
					p.sc.Type, driver.RedactURL(p.addr))
			}
		}
		return s.generate()
	}
	if sec.CAFile == "" {
		return errors.New("--cert and --key need --ca, the CA the peer's certificate is verified against")
	}
	if (sec.CertFile == "") != (sec.KeyFile == "") {
		return errors.New("--cert and --key go together")
	}
	if (sec.EchoCertFile == "") != (sec.EchoKeyFile == "") {
		return errors.New("--echo-cert and --echo-key go together")
	}
	roots, err := loadCA(sec.CAFile)
	if err != nil {
		return err
	}
	pinger := driver.Security{CAFile: sec.CAFile, CertFile: sec.CertFile, KeyFile: sec.KeyFile, ServerName: sec.ServerName}
	echo := pinger
	echo.ServerName = ""
	if sec.EchoCertFile != "" {
		echo.CertFile, echo.KeyFile = sec.EchoCertFile, sec.EchoKeyFile
	}
	for _, pair := range []driver.Security{pinger, echo} {
		if pair.CertFile == "" {
			continue
		}
		if err := checkPair(pair.CertFile, pair.KeyFile, roots, sec.CAFile); err != nil {
			return err
		}
	}
	for _, p := range secured {
		if needsLocalCert(p) && echo.CertFile == "" {
			return fmt.Errorf("%s: the echoer this run starts needs a certificate: give --cert and --key (or --echo-cert and --echo-key)", p.sc.Type)
		}
	}
	s.pingerSec, s.echoSec = &pinger, &echo
	s.tls = &meta.TLS{CAFile: sec.CAFile, CertFile: sec.CertFile, KeyFile: sec.KeyFile}
	return nil
}

// generate makes a CA and certificates for this run, valid for the hosts
// of the targets too.
func (s *Session) generate() error {
	dir, err := os.MkdirTemp("", "mqgate-run-certs-")
	if err != nil {
		return err
	}
	s.cleanup = append(s.cleanup, func() error { return os.RemoveAll(dir) })
	var hosts []string
	for _, raw := range s.cfg.Targets {
		t, _ := parseTarget(raw)
		if h := hostOf(t.addr); h != "" {
			hosts = append(hosts, h)
		}
	}
	echo, pinger, err := secure.GenerateFiles(dir, hosts...)
	if err != nil {
		return fmt.Errorf("cannot generate certificates: %w", err)
	}
	pinger.ServerName = s.cfg.Security.ServerName
	s.pingerSec, s.echoSec = &pinger, &echo
	s.tls = &meta.TLS{Generated: true}
	return nil
}

// loadCA reads the CA certificates of file.
func loadCA(file string) (*x509.CertPool, error) {
	pem, err := fileerr.ReadRegular(file, "a PEM CA certificate")
	if err != nil {
		return nil, fmt.Errorf("--ca: %w", err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("--ca %s: no PEM certificate found (expected a CA certificate)", file)
	}
	return roots, nil
}

// checkPair verifies that certFile and keyFile belong together and that the
// certificate is signed by the CA.
func checkPair(certFile, keyFile string, roots *x509.CertPool, caFile string) error {
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return fmt.Errorf("certificate %s and key %s: %w", certFile, keyFile, err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return fmt.Errorf("certificate %s: %w", certFile, err)
	}
	inter := x509.NewCertPool()
	for _, der := range pair.Certificate[1:] {
		if c, err := x509.ParseCertificate(der); err == nil {
			inter.AddCert(c)
		}
	}
	_, err = leaf.Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
	if err != nil {
		return fmt.Errorf("certificate %s is not valid under the CA in %s: %w", certFile, caFile, err)
	}
	return nil
}
