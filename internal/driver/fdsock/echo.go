package fdsock

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
	"unsafe"
)

// Echo writes back every byte it reads from a stream socket, as it reads
// it, until the peer closes the stream or the socket is shut down (both
// return nil), or a system call fails. buf is the read buffer; its size
// bounds one read, not a message.
//
// The loop runs inside one read of the descriptor, so nothing but system
// calls happens per message: a read (held at most RawWait, then a wait
// through the scheduler), and a write.
func (s *Conn) Echo(buf []byte) error {
	return s.EchoEach(buf, Framing{}, nil)
}

// Framing tells EchoEach where messages end: each message is a header of
// Header bytes followed by Length(header) bytes.
type Framing struct {
	Header int
	Length func(header []byte) int
}

// frames follows a stream of messages framed by Framing across reads.
type frames struct {
	f    Framing
	hdr  [16]byte
	have int // header bytes read of the current message
	left int // body bytes still to come, when in the body
	body bool
}

// advance reads p up to the end of the current message: it returns how
// many bytes of p belong to it and whether it ends there.
func (fr *frames) advance(p []byte) (int, bool) {
	i := 0
	if !fr.body {
		k := min(fr.f.Header-fr.have, len(p))
		copy(fr.hdr[fr.have:], p[:k])
		fr.have += k
		i = k
		if fr.have < fr.f.Header {
			return i, false
		}
		fr.have, fr.body, fr.left = 0, true, max(fr.f.Length(fr.hdr[:fr.f.Header]), 0)
	}
	k := min(fr.left, len(p)-i)
	fr.left -= k
	i += k
	if fr.left == 0 {
		fr.body = false
		return i, true
	}
	return i, false
}

// EchoEach is Echo calling each, when not nil, once per message framed by
// f, after the message's last byte is read and before it is written back:
// an echo that spends a delay on each message (run --echo-delay,
// --echo-work) keeps the system calls of the plain echo, a read and a
// write per message, rather than taking another path that costs more by
// itself.
func (s *Conn) EchoEach(buf []byte, f Framing, each func()) error {
	if each != nil && (f.Header < 1 || f.Header > len(frames{}.hdr) || f.Length == nil) {
		return fmt.Errorf("echo: framing of a %d-byte header", f.Header)
	}
	if len(buf) == 0 {
		return errors.New("echo: empty buffer")
	}
	// Armed once: a raw read needs the timeout (see RawWait).
	if err := s.armDeadline(time.Time{}, true); err != nil {
		return err
	}
	if !s.acquire() {
		return nil
	}
	s.ebuf, s.eerr = buf, 0
	var fr *frames
	if each != nil {
		fr = &frames{f: f}
	}
	s.echo(s.fd, fr, each)
	s.ebuf = nil
	s.release()
	switch {
	case s.closed.Load():
		return nil
	case s.eerr == syscall.EAGAIN:
		return fmt.Errorf("echo: send blocked: %w", ErrWouldBlock)
	case s.eerr != 0:
		return os.NewSyscallError("echo", s.eerr)
	}
	return nil
}

// echo is the loop of Echo and EchoEach: with fr nil it writes back what
// each read brought at once; with fr it calls each at the end of every
// message, before the bytes that end it are written back (the bytes of a
// message not yet whole go back as they come).
func (s *Conn) echo(fd uintptr, fr *frames, each func()) {
	p, size := uintptr(unsafe.Pointer(&s.ebuf[0])), uintptr(len(s.ebuf))
	for {
		var n uintptr
		var e syscall.Errno
		// recvfrom(2), not read(2): the same receive by a shorter path
		// (read's adds 0.03–0.06 µs to a 64-byte TCP round trip here).
		if s.armed != 0 && s.rawOK(true) {
			n, _, e = syscall.RawSyscall6(syscall.SYS_RECVFROM, fd, p, size, 0, 0, 0)
		} else {
			n, _, e = syscall.Syscall6(syscall.SYS_RECVFROM, fd, p, size, 0, 0, 0)
		}
		switch e {
		case 0:
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			// Nothing within RawWait: wait through the scheduler.
			s.ptsPtr = nil
			if s.poll(fd); s.perr != 0 && s.perr != syscall.EINTR {
				s.eerr = s.perr
				return
			}
			continue
		default:
			s.eerr = e
			return
		}
		if n == 0 {
			return // end of stream, or shut down
		}
		if fr == nil {
			if !s.writeAll(fd, p, n) {
				return
			}
			continue
		}
		for off := uintptr(0); off < n; {
			k, whole := fr.advance(s.ebuf[off:n])
			if whole {
				each()
			}
			if !s.writeAll(fd, p+off, uintptr(k)) {
				return
			}
			off += uintptr(k)
		}
	}
}

// writeAll writes the n bytes at p, false (with s.eerr set) when a system
// call fails.
func (s *Conn) writeAll(fd, p, n uintptr) bool {
	for off := uintptr(0); off < n; {
		w, _, e := syscall.RawSyscall6(syscall.SYS_SENDTO, fd, p+off, n-off,
			syscall.MSG_NOSIGNAL|syscall.MSG_DONTWAIT, 0, 0)
		if e == syscall.EAGAIN {
			// No room: wait for it (SO_SNDTIMEO bounds the wait).
			w, _, e = syscall.Syscall6(syscall.SYS_SENDTO, fd, p+off, n-off, syscall.MSG_NOSIGNAL, 0, 0)
		}
		switch e {
		case 0:
			off += w
		case syscall.EINTR:
		default:
			s.eerr = e
			return false
		}
	}
	return true
}
