package drivertest

import (
	"encoding/binary"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// LossyRelay forwards UDP datagrams between one pinger and an echoer and
// drops every n-th datagram going to the echoer, after the first skip ones
// (to let a handshake through). Datagrams whose first 8 bytes are zero, the
// sequence number of the probe run sends before it measures, pass without
// being counted, so that the counts concern measured messages only.
type LossyRelay struct {
	front, back *net.UDPConn
	every, skip uint64

	seen, dropped atomic.Uint64
	client        atomic.Pointer[net.UDPAddr]
	wg            sync.WaitGroup
}

// NewLossyRelay starts a relay on 127.0.0.1 in front of target; it stops
// at the end of the test.
func NewLossyRelay(t testing.TB, target string, every, skip int) *LossyRelay {
	t.Helper()
	front, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	ta, err := net.ResolveUDPAddr("udp", target)
	if err != nil {
		t.Fatal(err)
	}
	back, err := net.DialUDP("udp", nil, ta)
	if err != nil {
		t.Fatal(err)
	}
	r := &LossyRelay{front: front, back: back, every: uint64(every), skip: uint64(skip)}
	r.wg.Add(2)
	go r.forward()
	go r.backward()
	t.Cleanup(r.Close)
	return r
}

// Addr is the address pingers dial.
func (r *LossyRelay) Addr() string { return r.front.LocalAddr().String() }

// Seen is the number of datagrams received from the pinger so far,
// dropped or not.
func (r *LossyRelay) Seen() uint64 { return r.seen.Load() }

// Dropped is the number of datagrams dropped so far.
func (r *LossyRelay) Dropped() uint64 { return r.dropped.Load() }

// Close stops the relay.
func (r *LossyRelay) Close() {
	r.front.Close()
	r.back.Close()
	r.wg.Wait()
}

func (r *LossyRelay) forward() {
	defer r.wg.Done()
	buf := make([]byte, 1<<16)
	for {
		n, from, err := r.front.ReadFromUDP(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		r.client.Store(from)
		if n >= 8 && binary.LittleEndian.Uint64(buf) == 0 {
			r.back.Write(buf[:n])
			continue
		}
		k := r.seen.Add(1)
		if k > r.skip && (k-r.skip)%r.every == 0 {
			r.dropped.Add(1)
			continue
		}
		r.back.Write(buf[:n])
	}
}

func (r *LossyRelay) backward() {
	defer r.wg.Done()
	buf := make([]byte, 1<<16)
	for {
		n, err := r.back.Read(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue // ICMP errors while the echoer starts or stops
		}
		if c := r.client.Load(); c != nil {
			r.front.WriteToUDP(buf[:n], c)
		}
	}
}
