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
	s.echo(s.fd)
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

func (s *Conn) echo(fd uintptr) {
	p, size := uintptr(unsafe.Pointer(&s.ebuf[0])), uintptr(len(s.ebuf))
	for {
		var n uintptr
		var e syscall.Errno
		if s.armed != 0 && rawOK(true) {
			n, _, e = syscall.RawSyscall(syscall.SYS_READ, fd, p, size)
		} else {
			n, _, e = syscall.Syscall(syscall.SYS_READ, fd, p, size)
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
				return
			}
		}
	}
}
