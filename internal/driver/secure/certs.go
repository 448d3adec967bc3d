package secure

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/fileerr"
)

// Validity of generated certificates: they are made for one run.
const (
	certBackdate = time.Hour // tolerate a peer's clock a little behind
	certLifetime = 7 * 24 * time.Hour
)

// DefaultHosts are the names every generated certificate is valid for.
var DefaultHosts = []string{"127.0.0.1", "::1", "localhost"}

// Authority is a certificate authority created for one run.
type Authority struct {
	Cert    *x509.Certificate
	CertPEM []byte
	key     *ecdsa.PrivateKey
}

// NewAuthority creates a self-signed ECDSA P-256 CA.
func NewAuthority(name string) (*Authority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: name, Organization: []string{"mqgate"}},
		NotBefore:             now.Add(-certBackdate),
		NotAfter:              now.Add(certLifetime),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &Authority{Cert: cert, CertPEM: pemBlock("CERTIFICATE", der), key: key}, nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return n
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

// Issue creates an ECDSA P-256 certificate signed by a, usable by a TLS
// server and client, valid for hosts (IP addresses become IP SANs, other
// names DNS SANs). It returns the certificate and key in PEM.
func (a *Authority) Issue(commonName string, hosts []string) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: commonName, Organization: []string{"mqgate"}},
		NotBefore:    now.Add(-certBackdate),
		NotAfter:     now.Add(certLifetime),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else if h != "" {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.Cert, &key.PublicKey, a.key)
	if err != nil {
		return nil, nil, err
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pemBlock("CERTIFICATE", der), pemBlock("PRIVATE KEY", kder), nil
}

// File names written by GenerateFiles.
const (
	CAFileName      = "ca.pem"
	EchoCertName    = "echo.pem"
	EchoKeyName     = "echo-key.pem"
	PingerCertName  = "pinger.pem"
	PingerKeyName   = "pinger-key.pem"
	generatedCAName = "mqgate per-run CA"
)

// File is one PEM file of a generated set: its name in the folder, its
// content and its permissions (0600 for a key, 0644 for a certificate).
type File struct {
	Name string
	Data []byte
	Mode os.FileMode
}

// Generate creates a CA and one certificate for each end, valid for
// DefaultHosts and hosts (e.g. the --target host), and returns the files
// GenerateFiles writes: CAFileName, EchoCertName, EchoKeyName,
// PingerCertName and PingerKeyName, in that order.
func Generate(hosts ...string) ([]File, error) {
	ca, err := NewAuthority(generatedCAName)
	if err != nil {
		return nil, err
	}
	all := append(append([]string(nil), DefaultHosts...), hosts...)
	ecert, ekey, err := ca.Issue("mqgate echo", all)
	if err != nil {
		return nil, err
	}
	pcert, pkey, err := ca.Issue("mqgate pinger", all)
	if err != nil {
		return nil, err
	}
	return []File{
		{CAFileName, ca.CertPEM, 0o644},
		{EchoCertName, ecert, 0o644},
		{EchoKeyName, ekey, 0o600},
		{PingerCertName, pcert, 0o644},
		{PingerKeyName, pkey, 0o600},
	}, nil
}

// GenerateFiles writes the files of Generate into dir (created 0700) and
// returns the Security of the echoer and of the pinger.
func GenerateFiles(dir string, hosts ...string) (echo, pinger driver.Security, err error) {
	files, err := Generate(hosts...)
	if err != nil {
		return echo, pinger, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return echo, pinger, err
	}
	// As a set, each with its mode from the start (a key is never readable
	// by others): a CA must not be replaced while a certificate it signed
	// could not be.
	set := make([]atomicfile.File, len(files))
	for i, f := range files {
		set[i] = atomicfile.File{Path: filepath.Join(dir, f.Name), Perm: f.Mode, Write: func(w io.Writer) error {
			_, err := w.Write(f.Data)
			return err
		}}
	}
	if err := atomicfile.WriteAll(set); err != nil {
		return echo, pinger, err
	}
	caFile := filepath.Join(dir, CAFileName)
	echo = driver.Security{CAFile: caFile, CertFile: filepath.Join(dir, EchoCertName), KeyFile: filepath.Join(dir, EchoKeyName)}
	pinger = driver.Security{CAFile: caFile, CertFile: filepath.Join(dir, PingerCertName), KeyFile: filepath.Join(dir, PingerKeyName)}
	return echo, pinger, nil
}

// material is one end's loaded PEM files.
type material struct {
	roots *x509.CertPool
	cert  *tls.Certificate // nil when the end has none
}

func load(sec *driver.Security) (*material, error) {
	if sec == nil {
		return nil, errors.New("a secure link needs Options.Security (a CA file, a certificate and a key)")
	}
	if sec.CAFile == "" {
		return nil, errors.New("no CA file to verify the peer against")
	}
	caPEM, err := fileerr.ReadRegular(sec.CAFile, "a PEM CA certificate")
	if err != nil {
		return nil, fmt.Errorf("reading the CA file: %w", err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("%s: no PEM certificate found (expected a CA certificate)", sec.CAFile)
	}
	m := &material{roots: roots}
	if sec.CertFile != "" || sec.KeyFile != "" {
		c, err := tls.LoadX509KeyPair(sec.CertFile, sec.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("loading certificate %s and key %s: %w", sec.CertFile, sec.KeyFile, err)
		}
		m.cert = &c
	}
	return m, nil
}

// serverName is the name the pinger verifies the echoer's certificate
// against.
func serverName(sec *driver.Security, addr string) string {
	if sec.ServerName != "" {
		return sec.ServerName
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return host
}

// ServerTLSConfig is the echoer's TLS 1.3 configuration: its certificate,
// and a required client certificate verified against the CA.
func ServerTLSConfig(sec *driver.Security) (*tls.Config, error) {
	m, err := load(sec)
	if err != nil {
		return nil, err
	}
	if m.cert == nil {
		return nil, errors.New("the echoer needs a certificate and a key")
	}
	return &tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{*m.cert},
		ClientCAs:    m.roots,
		ClientAuth:   tls.RequireAndVerifyClientCert,
	}, nil
}

// ClientTLSConfig is the pinger's TLS configuration for the echoer at
// addr, from minVersion on (the echoers of package secure take TLS 1.3; the
// brokers commonly offer 1.2, as safe with the suites Go offers): the
// echoer's certificate is verified against the CA and the server name.
func ClientTLSConfig(sec *driver.Security, addr string, minVersion uint16) (*tls.Config, error) {
	m, err := load(sec)
	if err != nil {
		return nil, err
	}
	c := &tls.Config{
		MinVersion: minVersion,
		RootCAs:    m.roots,
		ServerName: serverName(sec, addr),
	}
	if m.cert != nil {
		c.Certificates = []tls.Certificate{*m.cert}
	}
	return c, nil
}

// handshakeErr explains a failed handshake.
func handshakeErr(proto, addr string, sec *driver.Security, err error) error {
	var uae x509.UnknownAuthorityError
	var hne x509.HostnameError
	var cie x509.CertificateInvalidError
	switch {
	case errors.As(err, &uae):
		return fmt.Errorf("%s: handshake with %s: the peer's certificate is not signed by the CA in %s: %w", proto, addr, sec.CAFile, err)
	case errors.As(err, &hne):
		return fmt.Errorf("%s: handshake with %s: the echoer's certificate is not valid for %q: %w", proto, addr, serverName(sec, addr), err)
	case errors.As(err, &cie):
		return fmt.Errorf("%s: handshake with %s: invalid certificate: %w", proto, addr, err)
	}
	return fmt.Errorf("%s: handshake with %s (certificates verified against %s): %w", proto, addr, sec.CAFile, err)
}
