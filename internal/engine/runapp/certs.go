package runapp

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

// certSet is the security material of both ends of the secure links.
type certSet struct {
	pinger, echo driver.Security
}

// generateCerts makes a CA and a certificate for each end in dir, valid for
// a day, for the loopback addresses, "localhost" and hosts.
func generateCerts(dir string, hosts ...string) (certSet, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return certSet{}, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "mqgate run CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return certSet{}, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return certSet{}, err
	}
	caFile := filepath.Join(dir, "ca.pem")
	if err := writePEM(caFile, "CERTIFICATE", caDER); err != nil {
		return certSet{}, err
	}
	leaf := func(name string, serial int64, usage x509.ExtKeyUsage) (driver.Security, error) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return driver.Security{}, err
		}
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial),
			Subject:      pkix.Name{CommonName: "mqgate run " + name},
			NotBefore:    now.Add(-time.Hour),
			NotAfter:     now.Add(24 * time.Hour),
			KeyUsage:     x509.KeyUsageDigitalSignature,
			ExtKeyUsage:  []x509.ExtKeyUsage{usage},
			DNSNames:     []string{"localhost"},
			IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		}
		for _, h := range hosts {
			if ip := net.ParseIP(h); ip != nil {
				tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
			} else if h != "" {
				tmpl.DNSNames = append(tmpl.DNSNames, h)
			}
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			return driver.Security{}, err
		}
		keyDER, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			return driver.Security{}, err
		}
		s := driver.Security{CAFile: caFile, CertFile: filepath.Join(dir, name+".pem"), KeyFile: filepath.Join(dir, name+"-key.pem")}
		if err := writePEM(s.CertFile, "CERTIFICATE", der); err != nil {
			return driver.Security{}, err
		}
		return s, writePEM(s.KeyFile, "PRIVATE KEY", keyDER)
	}
	var cs certSet
	if cs.echo, err = leaf("echo", 2, x509.ExtKeyUsageServerAuth); err != nil {
		return certSet{}, err
	}
	if cs.pinger, err = leaf("pinger", 3, x509.ExtKeyUsageClientAuth); err != nil {
		return certSet{}, err
	}
	return cs, nil
}

func writePEM(path, typ string, der []byte) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600)
}
