package secure

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
)

func TestMain(m *testing.M) {
	drivertest.ServeEchoProcess(TLS{}, DTLS{})
	os.Exit(m.Run())
}

// pki generates per-run files in a test directory.
func pki(t testing.TB, hosts ...string) (echo, pinger *driver.Security) {
	t.Helper()
	e, p, err := GenerateFiles(filepath.Join(t.TempDir(), "pki"), hosts...)
	if err != nil {
		t.Fatal(err)
	}
	return &e, &p
}

func config(t testing.TB, tr driver.Transport, reliable bool) drivertest.Config {
	echo, pinger := pki(t)
	return drivertest.Config{
		Transport: tr,
		Listen:    driver.Options{Security: echo},
		Dial:      driver.Options{Security: pinger, Reliable: reliable},
		MaxAllocs: -1, // crypto/tls and pion allocate per record
	}
}

func TestConformance(t *testing.T) {
	for _, tr := range []driver.Transport{TLS{}, DTLS{}} {
		for _, reliable := range []bool{false, true} {
			name := tr.Name() + map[bool]string{false: "/BestEffort", true: "/Reliable"}[reliable]
			t.Run(name, func(t *testing.T) { drivertest.Run(t, config(t, tr, reliable)) })
		}
	}
}

func TestRegistered(t *testing.T) {
	for _, name := range []string{driver.TLS, driver.DTLS} {
		if tr, err := driver.Lookup(name); err != nil || tr.Name() != name {
			t.Fatalf("Lookup(%s) = %v, %v", name, tr, err)
		}
	}
}

func TestGeneratedCertificates(t *testing.T) {
	echo, pinger := pki(t, "bench-host.example", "10.1.2.3")
	caPEM, err := os.ReadFile(echo.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	for _, sec := range []*driver.Security{echo, pinger} {
		data, err := os.ReadFile(sec.CertFile)
		if err != nil {
			t.Fatal(err)
		}
		block, _ := pem.Decode(data)
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		if cert.PublicKeyAlgorithm != x509.ECDSA {
			t.Errorf("%s: key algorithm %v, want ECDSA", sec.CertFile, cert.PublicKeyAlgorithm)
		}
		for _, host := range []string{"127.0.0.1", "localhost", "::1", "bench-host.example", "10.1.2.3"} {
			if _, err := cert.Verify(x509.VerifyOptions{DNSName: host, Roots: roots,
				KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}); err != nil {
				t.Errorf("%s for %s: %v", sec.CertFile, host, err)
			}
		}
		if _, err := cert.Verify(x509.VerifyOptions{DNSName: "other.example", Roots: roots}); err == nil {
			t.Errorf("%s verifies for a host it was not issued for", sec.CertFile)
		}
		st, err := os.Stat(sec.KeyFile)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", sec.KeyFile, st.Mode().Perm())
		}
	}
}

// TestWrongCA runs each secure transport with a pinger whose CA did not
// sign the echoer's certificate (and whose certificate the echoer's CA did
// not sign): the handshake fails with an error naming the CA file, and
// succeeds with the right CA.
func TestWrongCA(t *testing.T) {
	for _, tr := range []driver.Transport{TLS{}, DTLS{}} {
		t.Run(tr.Name(), func(t *testing.T) {
			echo, right := pki(t)
			_, wrong := pki(t)
			e := drivertest.StartEcho(t, drivertest.Config{Transport: tr, Listen: driver.Options{Security: echo}})
			ctx, cancel := context.WithTimeout(context.Background(), drivertest.Watchdog)
			defer cancel()
			p, err := tr.Dial(ctx, e.Addr(), driver.Options{Security: wrong})
			if err == nil {
				p.Close()
				t.Fatal("handshake against the wrong CA succeeded")
			}
			if !strings.Contains(err.Error(), wrong.CAFile) || !strings.Contains(err.Error(), "not signed by the CA") {
				t.Fatalf("error %q should say the certificate is not signed by the CA in %s", err, wrong.CAFile)
			}
			t.Log(err)
			p, err = tr.Dial(ctx, e.Addr(), driver.Options{Security: right})
			if err != nil {
				t.Fatalf("handshake with the right CA: %v", err)
			}
			buf := make([]byte, 64)
			msg := []byte("0123456789abcdef")
			if n, err := drivertest.RoundTrip(p, msg, buf); err != nil || !bytes.Equal(buf[:n], msg) {
				t.Fatalf("round trip after the handshake: %q, %v", buf[:n], err)
			}
			p.Close()
		})
	}
}

// TestClientCertificateRequired: a pinger with the right CA but no
// certificate of its own is refused by the echoer.
func TestClientCertificateRequired(t *testing.T) {
	for _, tr := range []driver.Transport{TLS{}, DTLS{}} {
		t.Run(tr.Name(), func(t *testing.T) {
			echo, pinger := pki(t)
			e := drivertest.StartEcho(t, drivertest.Config{Transport: tr, Listen: driver.Options{Security: echo}})
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			anon := &driver.Security{CAFile: pinger.CAFile}
			p, err := tr.Dial(ctx, e.Addr(), driver.Options{Security: anon})
			if err == nil {
				// TLS 1.3 reports the client's rejection on the first read.
				_, err = drivertest.RoundTrip(p, []byte("0123456789abcdef"), make([]byte, 64))
				p.Close()
			}
			if err == nil {
				t.Fatal("a pinger without a certificate was served")
			}
			t.Log(err)
		})
	}
}

// TestWrongServerName: the echoer's certificate is verified against the
// expected name, not only the CA.
func TestWrongServerName(t *testing.T) {
	for _, tr := range []driver.Transport{TLS{}, DTLS{}} {
		t.Run(tr.Name(), func(t *testing.T) {
			echo, pinger := pki(t)
			e := drivertest.StartEcho(t, drivertest.Config{Transport: tr, Listen: driver.Options{Security: echo}})
			ctx, cancel := context.WithTimeout(context.Background(), drivertest.Watchdog)
			defer cancel()
			sec := *pinger
			sec.ServerName = "not-the-echo.example"
			p, err := tr.Dial(ctx, e.Addr(), driver.Options{Security: &sec})
			if err == nil {
				p.Close()
				t.Fatal("handshake with a certificate for another name succeeded")
			}
			if !strings.Contains(err.Error(), "not valid for") {
				t.Fatalf("error %q should say the certificate is not valid for the name", err)
			}
		})
	}
}

func TestMissingSecurity(t *testing.T) {
	for _, tr := range []driver.Transport{TLS{}, DTLS{}} {
		if _, err := tr.Listen(context.Background(), "127.0.0.1:0", driver.Options{}); err == nil {
			t.Errorf("%s: Listen without Security succeeded", tr.Name())
		}
		bad := &driver.Security{CAFile: filepath.Join(t.TempDir(), "missing.pem")}
		if _, err := tr.Dial(context.Background(), "127.0.0.1:1", driver.Options{Security: bad}); err == nil || !strings.Contains(err.Error(), "missing.pem") {
			t.Errorf("%s: Dial with a missing CA file: %v", tr.Name(), err)
		}
	}
}

func seqMsg(seq uint64, size int) []byte {
	m := make([]byte, size)
	binary.LittleEndian.PutUint64(m, seq)
	for i := 16; i < size; i++ {
		m[i] = byte(seq) ^ byte(i)
	}
	return m
}

func receiveSeq(p driver.Pinger, seq uint64, buf []byte, deadline time.Time) (int, error) {
	for {
		n, _, err := p.Receive(buf, deadline)
		if err != nil {
			return 0, err
		}
		if n >= 8 && binary.LittleEndian.Uint64(buf) == seq {
			return n, nil
		}
	}
}

// TestDTLSReliableSurvivesLoss drops every 10th datagram after the
// handshake: a reliable DTLS pinger loses no message, also of several
// fragments, and counts its resends.
func TestDTLSReliableSurvivesLoss(t *testing.T) {
	const every, messages = 10, 200
	echo, pinger := pki(t)
	e := drivertest.StartEcho(t, drivertest.Config{Transport: DTLS{}, Listen: driver.Options{Security: echo}})
	relay := drivertest.NewLossyRelay(t, e.Addr(), every, 20) // spare the handshake
	c := drivertest.Config{Transport: DTLS{}, Dial: driver.Options{Security: pinger, Reliable: true,
		RetransmitTimeout: 5 * time.Millisecond, MaxRetries: 20}}
	p := drivertest.Dial(t, c, relay.Addr())
	buf := make([]byte, 20000)
	for seq := uint64(1); seq <= messages; seq++ {
		msg := seqMsg(seq, 16+int(seq*97)%16384)
		if err := p.Send(msg); err != nil {
			t.Fatal(err)
		}
		n, err := receiveSeq(p, seq, buf, time.Now().Add(drivertest.ReceiveDeadline))
		if err != nil {
			t.Fatalf("message %d (%d B) lost on a reliable link: %v", seq, len(msg), err)
		}
		if !bytes.Equal(buf[:n], msg) {
			t.Fatalf("message %d: echo differs", seq)
		}
	}
	got := p.(driver.CounterReader).Counters().Retransmitted
	if relay.Dropped() == 0 || got == 0 {
		t.Fatalf("relay dropped %d datagrams, pinger retransmitted %d times; want both > 0", relay.Dropped(), got)
	}
	t.Logf("dropped %d datagrams, retransmitted %d messages", relay.Dropped(), got)
}

func TestDTLSBestEffortReportsLossAsTimeout(t *testing.T) {
	const every, messages = 10, 60
	echo, pinger := pki(t)
	e := drivertest.StartEcho(t, drivertest.Config{Transport: DTLS{}, Listen: driver.Options{Security: echo}})
	relay := drivertest.NewLossyRelay(t, e.Addr(), every, 20)
	p := drivertest.Dial(t, drivertest.Config{Transport: DTLS{}, Dial: driver.Options{Security: pinger}}, relay.Addr())
	buf := make([]byte, 64)
	lost := 0
	for seq := uint64(1); seq <= messages; seq++ {
		if err := p.Send(seqMsg(seq, 16)); err != nil {
			t.Fatal(err)
		}
		_, err := receiveSeq(p, seq, buf, time.Now().Add(200*time.Millisecond))
		switch {
		case errors.Is(err, driver.ErrTimeout):
			lost++
		case err != nil:
			t.Fatalf("message %d: %v", seq, err)
		}
	}
	if lost == 0 || uint64(lost) != relay.Dropped() {
		t.Fatalf("%d messages timed out, relay dropped %d; want as many, and some", lost, relay.Dropped())
	}
}

func TestEchoProcessKilled(t *testing.T) {
	for _, tr := range []driver.Transport{TLS{}, DTLS{}} {
		t.Run(tr.Name(), func(t *testing.T) {
			c := config(t, tr, true)
			ep := drivertest.StartEchoProcess(t, c)
			p := drivertest.Dial(t, c, ep.Addr)
			buf := make([]byte, 64)
			if _, err := drivertest.RoundTrip(p, seqMsg(1, 16), buf); err != nil {
				t.Fatal(err)
			}
			ep.Kill()
			var err error
			for seq := uint64(2); seq < 5 && err == nil; seq++ {
				if err = p.Send(seqMsg(seq, 16)); err == nil {
					_, _, err = p.Receive(buf, time.Now().Add(500*time.Millisecond))
				}
			}
			if err == nil {
				t.Fatal("round trips to a killed echo process succeeded")
			}
			if tr.Name() == driver.DTLS && !errors.Is(err, syscall.ECONNREFUSED) && !errors.Is(err, driver.ErrTimeout) {
				t.Fatalf("dtls after the echo died: %v, want connection refused or a timeout", err)
			}
			t.Log(err)
		})
	}
}

func BenchmarkRoundTripTLS(b *testing.B) {
	for _, size := range []int{16, 16384} {
		b.Run(map[int]string{16: "16B", 16384: "16KB"}[size], func(b *testing.B) {
			drivertest.BenchmarkRoundTrip(b, config(b, TLS{}, true), size)
		})
	}
}

func BenchmarkRoundTripDTLS(b *testing.B) {
	for _, size := range []int{16, 16384} {
		b.Run(map[int]string{16: "16B", 16384: "16KB"}[size], func(b *testing.B) {
			drivertest.BenchmarkRoundTrip(b, config(b, DTLS{}, false), size)
		})
	}
}

// TestDTLSMultiRecordRightAfterDial sends a three-record message as the
// first thing after each of many handshakes, best effort: no record may be
// lost in the instant the association comes up.
func TestDTLSMultiRecordRightAfterDial(t *testing.T) {
	c := config(t, DTLS{}, false)
	ep := drivertest.StartEchoProcess(t, c)
	msg := seqMsg(7, 16384)
	buf := make([]byte, 16384)
	for i := range 20 {
		p := drivertest.Dial(t, c, ep.Addr)
		n, err := drivertest.RoundTrip(p, msg, buf)
		if err != nil {
			t.Fatalf("dial %d: first message: %v", i, err)
		}
		if !bytes.Equal(buf[:n], msg) {
			t.Fatalf("dial %d: echo differs", i)
		}
		p.Close()
	}
}

// records splits msg into the records a DTLS pinger sends as message id.
func records(id uint32, msg []byte) [][]byte {
	count := max(1, (len(msg)+FragmentPayload-1)/FragmentPayload)
	recs := make([][]byte, count)
	for i := range recs {
		chunk := msg[i*FragmentPayload : min(len(msg), (i+1)*FragmentPayload)]
		rec := make([]byte, FragmentHeaderSize, FragmentHeaderSize+len(chunk))
		binary.BigEndian.PutUint32(rec[0:], id)
		binary.BigEndian.PutUint16(rec[4:], uint16(i))
		binary.BigEndian.PutUint16(rec[6:], uint16(count))
		recs[i] = append(rec, chunk...)
	}
	return recs
}

// TestDTLSReassemblyIgnoresStaleFragments feeds a 16 KB message's three
// records with another record between the first and the second: a late
// echo of an earlier message (also across the wrap of message numbers) or
// a probe is ignored, a later message replaces the one being assembled.
func TestDTLSReassemblyIgnoresStaleFragments(t *testing.T) {
	msg := seqMsg(9, 16384)
	tests := []struct {
		name   string
		id     uint32
		extra  []byte // the record fed after the message's first
		want   []byte // the message reassembled
		wantAt int    // records fed when it completes, counting extra
	}{
		{name: "stale single record", id: 5, extra: records(4, seqMsg(8, 16))[0], want: msg, wantAt: 4},
		{name: "stale fragment", id: 5, extra: records(4, seqMsg(8, 16384))[1], want: msg, wantAt: 4},
		{name: "stale last fragment", id: 5, extra: records(1, seqMsg(8, 16384))[2], want: msg, wantAt: 4},
		{name: "stale across wrap", id: 1, extra: records(0xFFFFFFFF, seqMsg(8, 16))[0], want: msg, wantAt: 4},
		{name: "stale long ago", id: 1 << 31, extra: records(1, seqMsg(8, 16))[0], want: msg, wantAt: 4},
		{name: "probe", id: 5, extra: records(0, nil)[0], want: msg, wantAt: 4},
		{name: "duplicate fragment", id: 5, extra: records(5, msg)[0], want: msg, wantAt: 4},
		{name: "newer single record", id: 5, extra: records(6, seqMsg(10, 16))[0], want: seqMsg(10, 16), wantAt: 2},
		{name: "newer across wrap", id: 0xFFFFFFFF, extra: records(1, seqMsg(10, 16))[0], want: seqMsg(10, 16), wantAt: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := records(tt.id, msg)
			feed := append([][]byte{recs[0], tt.extra}, recs[1:]...)
			p := &DTLSPinger{addr: "echoer"}
			buf := make([]byte, len(msg))
			for i, rec := range feed {
				done, n, err := p.place(rec, buf)
				if err != nil {
					t.Fatalf("record %d: %v", i+1, err)
				}
				if done != (i+1 == tt.wantAt) {
					t.Fatalf("record %d: complete %v, want completion at record %d", i+1, done, tt.wantAt)
				}
				if done {
					if !bytes.Equal(buf[:n], tt.want) {
						t.Fatalf("reassembled %d bytes (sequence %d), want %d bytes (sequence %d)",
							n, binary.LittleEndian.Uint64(buf), len(tt.want), binary.LittleEndian.Uint64(tt.want))
					}
					return
				}
			}
			t.Fatal("no message completed")
		})
	}
}

// FuzzDTLSReassembly feeds arbitrary records to the reassembly: it may
// reject them, never panics, and returns only messages that fit the buffer.
func FuzzDTLSReassembly(f *testing.F) {
	for _, rec := range records(5, seqMsg(9, 16384)) {
		f.Add(rec, uint16(20000))
	}
	f.Add(records(0, nil)[0], uint16(16))
	f.Fuzz(func(t *testing.T, data []byte, size uint16) {
		p := &DTLSPinger{addr: "echoer"}
		buf := make([]byte, size)
		// Records are split at each 0xFF 0xFE pair, so that one input can
		// hold several.
		for rec := range bytes.SplitSeq(data, []byte{0xFF, 0xFE}) {
			done, n, err := p.place(rec, buf)
			if err == nil && done && (n < 0 || n > len(buf)) {
				t.Fatalf("complete message of %d bytes in a %d-byte buffer", n, len(buf))
			}
		}
	})
}
