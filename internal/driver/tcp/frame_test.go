package tcp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

// byteStream is an in-memory Stream that hands out its bytes in reads of
// at most chunk bytes; with vec it also implements VecReceiver. It tests
// the framing state machine against every way a stream can split bytes.
type byteStream struct {
	data  []byte
	chunk int
	// timeoutEvery makes every n-th read time out instead.
	timeoutEvery, reads int
}

func (s *byteStream) take(p []byte) (int, error) {
	s.reads++
	if s.timeoutEvery > 0 && s.reads%s.timeoutEvery == 0 {
		return 0, driver.ErrTimeout
	}
	if len(s.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), s.chunk)], s.data)
	s.data = s.data[n:]
	return n, nil
}

func (s *byteStream) Recv(p []byte, _ time.Time) (int, error) { return s.take(p) }
func (s *byteStream) SendAll(a, b []byte) error {
	s.data = append(append(s.data, a...), b...)
	return nil
}
func (s *byteStream) Close() error { return nil }

type vecStream struct{ byteStream }

func (s *vecStream) RecvVec(a, b []byte, _ time.Time) (int, error) {
	s.reads++
	if s.timeoutEvery > 0 && s.reads%s.timeoutEvery == 0 {
		return 0, driver.ErrTimeout
	}
	if len(s.data) == 0 {
		return 0, io.EOF
	}
	limit := s.chunk
	n := copy(a[:min(len(a), limit)], s.data)
	s.data = s.data[n:]
	limit -= n
	if limit > 0 && n == len(a) {
		m := copy(b[:min(len(b), limit)], s.data)
		s.data = s.data[m:]
		n += m
	}
	return n, nil
}

func frames(sizes []int) (wire []byte, msgs [][]byte) {
	for i, n := range sizes {
		m := make([]byte, n)
		for j := range m {
			m[j] = byte(i*31 + j)
		}
		var h [HeaderSize]byte
		binary.BigEndian.PutUint32(h[:], uint32(n))
		wire = append(append(wire, h[:]...), m...)
		msgs = append(msgs, m)
	}
	return wire, msgs
}

// readAll receives every message, retrying timeouts and switching
// between two buffers to exercise resumption into another buffer.
func readAll(t *testing.T, p *Pinger, want [][]byte) {
	t.Helper()
	bufs := [2][]byte{make([]byte, 20000), make([]byte, 20000)}
	k := 0
	for i, m := range want {
		for {
			n, _, err := p.Receive(bufs[k%2], time.Time{})
			k++
			if errors.Is(err, driver.ErrTimeout) {
				continue
			}
			if err != nil {
				t.Fatalf("message %d: %v", i, err)
			}
			if !bytes.Equal(bufs[(k-1)%2][:n], m) {
				t.Fatalf("message %d: got %d bytes, want %d (or content differs)", i, n, len(m))
			}
			break
		}
	}
	for {
		_, _, err := p.Receive(bufs[0], time.Time{})
		if errors.Is(err, driver.ErrTimeout) {
			continue
		}
		if err == nil {
			t.Fatal("Receive after the last frame succeeded, want end of stream")
		}
		break
	}
}

func TestPingerFraming(t *testing.T) {
	sizes := []int{16, 0, 1, 5, 16384, 3, 100, 8192, 4}
	for _, vec := range []bool{false, true} {
		for _, chunk := range []int{1, 2, 3, 5, 7, 100, 4096, 1 << 20} {
			for _, timeoutEvery := range []int{0, 2, 3} {
				wire, msgs := frames(sizes)
				var s Stream
				if vec {
					s = &vecStream{byteStream{data: wire, chunk: chunk, timeoutEvery: timeoutEvery}}
				} else {
					s = &byteStream{data: wire, chunk: chunk, timeoutEvery: timeoutEvery}
				}
				readAll(t, NewPinger(s, "test", "peer", false), msgs)
			}
		}
	}
}

func TestPingerSendFrames(t *testing.T) {
	s := &vecStream{byteStream{chunk: 1 << 20}}
	p := NewPinger(s, "test", "peer", false)
	_, msgs := frames([]int{16, 300, 0})
	for _, m := range msgs {
		if err := p.Send(m); err != nil {
			t.Fatal(err)
		}
	}
	wire, _ := frames([]int{16, 300, 0})
	if !bytes.Equal(s.data, wire) {
		t.Fatalf("Send wrote %x, want %x", s.data, wire)
	}
	readAll(t, p, msgs)
}

func TestPingerShortBuffer(t *testing.T) {
	wire, _ := frames([]int{100})
	p := NewPinger(&vecStream{byteStream{data: wire, chunk: 1 << 20}}, "test", "peer", false)
	if _, _, err := p.Receive(make([]byte, 50), time.Time{}); err == nil {
		t.Fatal("a 100-byte frame fit in 50 bytes")
	}
}

// FuzzPingerFraming feeds arbitrary bytes, split arbitrarily, to the frame
// reader: it must never panic, and must return the same messages whatever
// the split and whether reads are vectored.
func FuzzPingerFraming(f *testing.F) {
	wire, _ := frames([]int{16, 3, 0, 40})
	f.Add(wire, uint8(3))
	f.Add([]byte{0, 0, 0, 2, 'h', 'i', 0xff, 0xff, 0xff, 0xff}, uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		read := func(s Stream) (out [][]byte, err error) {
			p := NewPinger(s, "fuzz", "peer", false)
			buf := make([]byte, 1024)
			for {
				n, _, err := p.Receive(buf, time.Time{})
				if err != nil {
					return out, err
				}
				out = append(out, append([]byte(nil), buf[:n]...))
			}
		}
		c := int(chunk%16) + 1
		a, errA := read(&byteStream{data: bytes.Clone(data), chunk: c})
		b, errB := read(&vecStream{byteStream{data: bytes.Clone(data), chunk: 1 << 20}})
		if len(a) != len(b) || (errA == nil) != (errB == nil) {
			t.Fatalf("split reads gave %d messages (%v), vectored %d (%v)", len(a), errA, len(b), errB)
		}
		for i := range a {
			if !bytes.Equal(a[i], b[i]) {
				t.Fatalf("message %d differs", i)
			}
		}
	})
}
