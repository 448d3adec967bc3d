package main

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/driver/secure"
)

func TestCertgen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tls")
	var out bytes.Buffer
	if err := run([]string{"-out", dir, "-host", "broker.example,10.1.2.3", "-host", "other.example"}, &out, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(out.String())
	want := []string{secure.CAFileName, secure.EchoCertName, secure.EchoKeyName, secure.PingerCertName, secure.PingerKeyName}
	if len(lines) != len(want) {
		t.Fatalf("printed %q", lines)
	}
	for i, name := range want {
		if lines[i] != filepath.Join(dir, name) {
			t.Errorf("line %d = %s, want %s", i, lines[i], filepath.Join(dir, name))
		}
	}
	roots := x509.NewCertPool()
	ca, err := os.ReadFile(filepath.Join(dir, secure.CAFileName))
	if err != nil || !roots.AppendCertsFromPEM(ca) {
		t.Fatalf("CA: %v", err)
	}
	for _, name := range []string{secure.EchoCertName, secure.PingerCertName} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := pem.Decode(data)
		cert, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		for _, host := range []string{"127.0.0.1", "localhost", "broker.example", "10.1.2.3", "other.example"} {
			if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, DNSName: host, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}); err != nil {
				t.Errorf("%s for %s: %v", name, host, err)
			}
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, secure.EchoKeyName)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v, %v", fi.Mode(), err)
	}
}

func TestCertgenUsage(t *testing.T) {
	var out bytes.Buffer
	if err := run(nil, &out, &out); err == nil || !strings.Contains(err.Error(), "-out DIR") {
		t.Errorf("no -out: %v", err)
	}
	if err := run([]string{"-out", t.TempDir(), "extra"}, &out, &out); err == nil {
		t.Error("a stray argument was accepted")
	}
	// -h asks for the usage: printed, and no error (exit 0).
	out.Reset()
	if code := exitCode(run([]string{"-h"}, &out, &out), &out); code != 0 || !strings.Contains(out.String(), "usage: certgen -out DIR") {
		t.Errorf("-h: exit %d, printed %q", code, out.String())
	}
	if code := exitCode(run(nil, &out, &out), &out); code != 2 {
		t.Errorf("no -out: exit %d, want 2", code)
	}
}

// TestCertgenKeepsExistingCA: a folder holding a CA and key of its own is
// refused, naming them, with nothing in it changed or added; -force
// replaces them with a new set, keys 0600.
func TestCertgenKeepsExistingCA(t *testing.T) {
	dir := t.TempDir()
	own := map[string]string{secure.CAFileName: "their CA\n", secure.EchoKeyName: "their key\n"}
	for name, data := range own {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	err := run([]string{"-out", dir}, &out, &out)
	want := filepath.Join(dir, secure.CAFileName) + ", " + filepath.Join(dir, secure.EchoKeyName) + ": already there"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "-force") {
		t.Fatalf("a folder with a CA: %v, want %q and -force", err, want)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(own) {
		t.Errorf("after the refusal the folder holds %d entries, want %d", len(entries), len(own))
	}
	for name, data := range own {
		if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != data {
			t.Errorf("%s became %q", name, got)
		}
	}
	out.Reset()
	if err := run([]string{"-out", dir, "-force"}, &out, &out); err != nil {
		t.Fatal(err)
	}
	if ca, _ := os.ReadFile(filepath.Join(dir, secure.CAFileName)); !bytes.HasPrefix(ca, []byte("-----BEGIN CERTIFICATE-----")) {
		t.Errorf("-force left the CA %q", ca)
	}
	for _, name := range []string{secure.EchoKeyName, secure.PingerKeyName} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, %v", name, fi.Mode(), err)
		}
	}
	// A second run on the folder it wrote is refused too.
	if err := run([]string{"-out", dir}, &out, &out); err == nil || !strings.Contains(err.Error(), secure.CAFileName) {
		t.Errorf("second run: %v", err)
	}
}
