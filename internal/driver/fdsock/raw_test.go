package fdsock

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

func TestRawAllowed(t *testing.T) {
	tests := []struct {
		conns, procs int
		echo, want   bool
	}{
		{1, 2, false, true},  // a pinger whose echoer is another process
		{1, 1, false, false}, // ... on one P: the rest of the process needs it
		{1, 1, true, true},   // an echo process
		{2, 2, false, false}, // pinger and echoer in one process
		{2, 2, true, false},
		{2, 1, true, false},
		{0, 2, false, false},
	}
	for _, tt := range tests {
		if got := rawAllowed(tt.conns, tt.procs, tt.echo); got != tt.want {
			t.Errorf("rawAllowed(%d conns, %d procs, echo %v) = %v, want %v", tt.conns, tt.procs, tt.echo, got, tt.want)
		}
	}
}

// TestRawOKSeesGOMAXPROCS: the pinger's cached number of Ps follows a
// change within 256 reads, and an echo loop waits raw on one P.
func TestRawOKSeesGOMAXPROCS(t *testing.T) {
	s, _, _ := soleConn(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	if !s.rawOK(false) {
		t.Fatal("sole Conn on 2 Ps: a pinger's read should wait raw")
	}
	runtime.GOMAXPROCS(1)
	if !s.rawOK(true) {
		t.Error("an echo loop on 1 P should wait raw")
	}
	reads := 0
	for s.rawOK(false) {
		if reads++; reads > 256 {
			t.Fatal("GOMAXPROCS 1 not seen after 256 reads")
		}
	}
	runtime.GOMAXPROCS(2)
	for reads = 0; !s.rawOK(false); {
		if reads++; reads > 256 {
			t.Fatal("GOMAXPROCS 2 not seen after 256 reads")
		}
	}
}

// soleConn returns the only Conn of the process, so that its reads wait
// in raw system calls (see RawWait), connected to a UDP socket on Go's
// network poller.
func soleConn(t *testing.T) (*Conn, *net.UDPConn, net.Addr) {
	t.Helper()
	peer, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { peer.Close() })
	c, err := net.DialUDP("udp", nil, peer.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	local := c.LocalAddr()
	s, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if n := open.Load(); n != 1 {
		t.Fatalf("%d Conns open, want this one only", n)
	}
	return s, peer, local
}

func TestRawRecvDeadlines(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Log("one P: reads wait through the scheduler")
	}
	s, peer, local := soleConn(t)
	buf := make([]byte, 8)
	// Shorter and longer than RawWait, in turn: each must end in a
	// timeout, never before its deadline.
	for _, d := range []time.Duration{30 * time.Millisecond, RawWait / 2, 3 * RawWait, time.Millisecond} {
		deadline := time.Now().Add(d)
		_, err := s.Recv(buf, 0, deadline)
		if !errors.Is(err, driver.ErrTimeout) {
			t.Fatalf("deadline in %v: %v", d, err)
		}
		if early := time.Until(deadline); early > 0 {
			t.Fatalf("deadline in %v: timed out %v early", d, early)
		}
	}
	// A datagram that comes after RawWait is read after a wait through
	// the scheduler.
	go func() {
		time.Sleep(10 * RawWait)
		peer.WriteTo([]byte("late"), local)
	}()
	n, err := s.Recv(buf, 0, time.Now().Add(10*time.Second))
	if err != nil || string(buf[:n]) != "late" {
		t.Fatalf("Recv = %q, %v; want \"late\"", buf[:n], err)
	}
}

func TestRawRecvUnblockedByClose(t *testing.T) {
	s, _, _ := soleConn(t)
	errc := make(chan error, 1)
	go func() {
		_, err := s.Recv(make([]byte, 8), 0, time.Time{})
		errc <- err
	}()
	time.Sleep(5 * RawWait) // let Recv block, past its raw wait
	s.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, driver.ErrClosed) {
			t.Fatalf("Recv after Close = %v, want driver.ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not unblock Recv")
	}
}

// echoPair returns a Conn accepted from a TCP listener and the dialled end
// on Go's network poller.
func echoPair(t *testing.T) (*Conn, net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	a, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(a.(*net.TCPConn))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, c
}

func TestEcho(t *testing.T) {
	for _, peerCloses := range []bool{true, false} {
		s, c := echoPair(t)
		done := make(chan error, 1)
		go func() { done <- s.Echo(make([]byte, 100)) }()
		// Chunks larger than the echo's buffer, and pauses past RawWait.
		for i, size := range []int{1, 16, 100, 101, 5000, 16} {
			msg := bytes.Repeat([]byte{byte(i + 1)}, size)
			if _, err := c.Write(msg); err != nil {
				t.Fatal(err)
			}
			got := make([]byte, size)
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, msg) {
				t.Fatalf("echo of %d bytes: %v (or content differs)", size, err)
			}
			time.Sleep(2 * RawWait)
		}
		if peerCloses {
			c.Close()
		} else {
			s.Close()
		}
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("Echo after the %s closed: %v, want nil", map[bool]string{true: "peer", false: "socket"}[peerCloses], err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Echo did not end")
		}
	}
}

// TestEchoEach: with a framing, the echo calls each once per message,
// before the message's last byte goes back, whether a read holds part of a
// header, several messages or a message larger than the buffer; and the
// bytes come back unchanged.
func TestEchoEach(t *testing.T) {
	s, c := echoPair(t)
	var calls atomic.Int64
	f := Framing{Header: 4, Length: func(h []byte) int { return int(binary.BigEndian.Uint32(h)) }}
	done := make(chan error, 1)
	go func() { done <- s.EchoEach(make([]byte, 100), f, func() { calls.Add(1) }) }()
	frame := func(size int, fill byte) []byte {
		b := make([]byte, 4+size)
		binary.BigEndian.PutUint32(b, uint32(size))
		for i := range size {
			b[4+i] = fill
		}
		return b
	}
	// Each write is some whole messages, or a message cut anywhere: in
	// its header, in its body, and one longer than the echo's buffer.
	m1, m2, m3, m4, m5 := frame(16, 1), frame(0, 2), frame(300, 3), frame(7, 4), frame(1, 5)
	writes := [][]byte{m1, append(append([]byte{}, m2...), m3...), m4[:2], m4[2:9], m4[9:], m5}
	ends := []int{1, 3, 3, 3, 4, 5} // messages whole after each write
	for i, w := range writes {
		if _, err := c.Write(w); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, len(w))
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, w) {
			t.Fatalf("write %d: echo of %d bytes: %v (or content differs)", i, len(w), err)
		}
		// Every message whose last byte came back was counted before it.
		if n := calls.Load(); n != int64(ends[i]) {
			t.Errorf("after write %d: each called %d times, want %d", i, n, ends[i])
		}
	}
	c.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("EchoEach after the peer closed: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("EchoEach did not end")
	}
	if err := s.EchoEach(make([]byte, 10), Framing{}, func() {}); err == nil {
		t.Error("EchoEach with each but no framing: no error")
	}
}
