package fdsock

import (
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/mqgate/mqgate/internal/driver"
)

// RawWait bounds how long a read waits in the kernel while its goroutine
// keeps its P (the Go scheduler's processor). Reads that may, and all
// writes, are raw system calls, which the scheduler does not see: a
// ping-pong then pays neither for its bookkeeping nor for the hand-offs of
// the P between threads that it makes when a system call blocks (on a
// shared CPU those cost a tenth of a 16-byte TCP round trip). A read that
// found nothing within RawWait (rounded up to a kernel tick by
// SO_RCVTIMEO) waits on through the scheduler, like any blocking call.
//
// Keeping the P is safe only when no goroutine of this process is needed
// for the data to come: reads wait raw only while the process has a
// single open Conn (a pinger whose echoer is elsewhere, an echo process)
// and, unless it is an echo loop, more than one P.
const RawWait = time.Millisecond

// open counts the Conns of this process that are not closed.
var open atomic.Int32

// rawAllowed is the rule of RawWait.
func rawAllowed(conns, procs int, echo bool) bool {
	return conns == 1 && (echo || procs > 1)
}

// rawOK applies rawAllowed to this process now. The number of Ps is
// looked up once every 256 reads (runtime.GOMAXPROCS takes a lock: 14 ns,
// a third of a percent of a TCP round trip on one core) and not at all by
// an echo loop, which may wait raw whatever it is. A change of GOMAXPROCS
// seen late costs at most RawWait a read, never a message.
func (s *Conn) rawOK(echo bool) bool {
	if open.Load() != 1 {
		return false
	}
	if echo {
		return true
	}
	if s.procsAge == 0 {
		s.procs = runtime.GOMAXPROCS(0)
	}
	s.procsAge++
	return rawAllowed(1, s.procs, false)
}

// filer is what *net.TCPConn, *net.UDPConn and *net.TCPListener share.
type filer interface {
	SyscallConn() (syscall.RawConn, error)
	Close() error
}

// Conn is a socket in blocking mode. Reads are used by one goroutine at a
// time, writes by one goroutine at a time; Close may be called from any
// goroutine and unblocks both.
type Conn struct {
	f      *os.File
	rc     syscall.RawConn
	closed atomic.Bool
	freed  atomic.Bool // counted out of open
	// fd is f's descriptor, used directly by reads and writes: refs
	// counts those in progress, plus one held until Close, and f is
	// closed when it drops to zero, so that the number is never reused
	// under a system call. (RawConn does the same at a higher price.)
	fd   uintptr
	refs atomic.Int32

	// Read-side state, reused by every call so that the callbacks handed
	// to RawConn are bound once and nothing escapes per call.
	rbuf     []byte
	rbuf2    []byte // second buffer of a vectored read, or nil
	riov     [2]syscall.Iovec
	rmsg     syscall.Msghdr
	rflags   int
	rn       int
	rerr     syscall.Errno
	rfrom    bool
	rraw     bool  // wait in a raw system call
	procs    int   // runtime.GOMAXPROCS, as rawOK last looked it up
	procsAge uint8 // reads since
	rsa      syscall.RawSockaddrAny
	rsalen   uint32
	armed    time.Duration // SO_RCVTIMEO in force, 0 = none
	tv       syscall.Timeval
	armFn    func(uintptr)
	armErr   syscall.Errno
	armWant  time.Duration

	// poll(2) state: waiting through the scheduler once a read found
	// nothing within RawWait.
	pfd    pollFd
	pts    syscall.Timespec
	ptsPtr *syscall.Timespec // nil: no timeout
	perr   syscall.Errno
	pready int // descriptors ready, 0 when ppoll timed out

	// echo loop state
	ebuf []byte
	eerr syscall.Errno

	// Write-side state.
	wiov   [2]syscall.Iovec
	wmsg   syscall.Msghdr
	wniov  int
	wbuf   []byte
	wflags int
	wto    bool
	wn     int
	werr   syscall.Errno
	sendFn func(uintptr)
	vecFn  func(uintptr)

	shutFn func(uintptr)
}

// New takes over c: it duplicates c's descriptor, closes c, and puts the
// duplicate in blocking mode. c must not be used afterwards.
//
// The duplicate is made here, not by c.File(): os.NewFile registers a
// non-blocking descriptor with the runtime's poller, and putting it in
// blocking mode later (File.Fd) leaves it registered. Every send, ACK and
// arrival on the socket then wakes a thread of this process parked in
// epoll_wait (one wake-up per message: 22,000 epoll_wait returns in a
// 20,000-round-trip TCP run), CPU taken from the ends being measured.
func New(c filer) (*Conn, error) {
	fd, err := dupBlocking(c)
	cerr := c.Close()
	if err != nil {
		return nil, fmt.Errorf("duplicating the socket: %w", err)
	}
	if cerr != nil {
		syscall.Close(int(fd))
		return nil, cerr
	}
	f := os.NewFile(fd, "socket") // blocking: never handed to the poller
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	s := &Conn{f: f, rc: rc, fd: fd}
	s.refs.Store(1)
	open.Add(1)
	s.armFn = s.arm
	s.sendFn = s.send
	s.vecFn = s.writev
	s.shutFn = shutdown
	return s, nil
}

// dupBlocking duplicates c's descriptor (close-on-exec) and puts it in
// blocking mode, which c's descriptor shares: c is closed right after.
func dupBlocking(c filer) (uintptr, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return 0, err
	}
	var nfd uintptr
	var derr error
	if err := rc.Control(func(fd uintptr) {
		var e syscall.Errno
		if nfd, _, e = syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_DUPFD_CLOEXEC, 0); e != 0 {
			derr = e
			return
		}
		if derr = syscall.SetNonblock(int(nfd), false); derr != nil {
			syscall.Close(int(nfd))
		}
	}); err != nil {
		return 0, err
	}
	return nfd, derr
}

// Recv reads one datagram or the next bytes of a stream into buf. flags
// are recv(2) flags; with syscall.MSG_TRUNC a datagram's full length is
// returned even when it did not fit. It returns an error wrapping
// driver.ErrTimeout when deadline passes first (a zero deadline waits for
// ever), and io.EOF-like (0, nil) for an orderly shutdown of a stream.
func (s *Conn) Recv(buf []byte, flags int, deadline time.Time) (int, error) {
	return s.recvAny(buf, flags, deadline, false)
}

// RecvFrom is Recv that also records the sender's address, for ReplyTo.
func (s *Conn) RecvFrom(buf []byte, deadline time.Time) (int, error) {
	return s.recvAny(buf, syscall.MSG_TRUNC, deadline, true)
}

// RecvVec reads from a stream into a, then b, with one recvmsg(2) call:
// a frame header and the message after it, when both have arrived. a must
// not be empty.
func (s *Conn) RecvVec(a, b []byte, deadline time.Time) (int, error) {
	s.rbuf2 = b
	n, err := s.recvAny(a, 0, deadline, false)
	s.rbuf2 = nil
	return n, err
}

func (s *Conn) recvAny(buf []byte, flags int, deadline time.Time, from bool) (int, error) {
	for {
		if s.closed.Load() {
			return 0, fmt.Errorf("recv: %w", driver.ErrClosed)
		}
		raw := s.rawOK(false)
		if err := s.armDeadline(deadline, raw); err != nil {
			return 0, err
		}
		s.rbuf, s.rflags, s.rfrom, s.rraw = buf, flags, from, raw
		if !s.acquire() {
			return 0, fmt.Errorf("recv: %w", driver.ErrClosed)
		}
		s.recv(s.fd)
		s.release()
		s.rbuf = nil
		switch s.rerr {
		case 0:
			if s.rn == 0 && s.closed.Load() {
				// Shutdown woke the read.
				return 0, fmt.Errorf("recv: %w", driver.ErrClosed)
			}
			return s.rn, nil
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			// SO_RCVTIMEO expired: the deadline (it may be armed a
			// little short of it, so check the clock), or RawWait.
			if err := s.waitReadable(deadline); err != nil {
				return 0, err
			}
		default:
			if s.closed.Load() {
				return 0, fmt.Errorf("recv: %w", driver.ErrClosed)
			}
			return 0, os.NewSyscallError("recv", s.rerr)
		}
	}
}

// waitReadable waits until the socket is readable or deadline passes
// (Timeout), through the scheduler: the goroutine's P is handed to other
// goroutines while it waits.
func (s *Conn) waitReadable(deadline time.Time) error {
	s.ptsPtr = nil
	if !deadline.IsZero() {
		left := time.Until(deadline)
		if left <= 0 {
			return Timeout
		}
		s.pts = syscall.NsecToTimespec(int64(left))
		s.ptsPtr = &s.pts
	}
	if !s.acquire() {
		return fmt.Errorf("poll: %w", driver.ErrClosed)
	}
	s.poll(s.fd)
	s.release()
	if s.perr != 0 && s.perr != syscall.EINTR {
		return os.NewSyscallError("poll", s.perr)
	}
	if s.perr == 0 && s.pready == 0 && s.ptsPtr != nil && time.Until(deadline) <= 0 {
		return Timeout // not another raw read's wait past the deadline
	}
	return nil // readable or interrupted: the caller reads again
}

// pollFd is struct pollfd.
type pollFd struct {
	fd      int32
	events  int16
	revents int16
}

const pollIn = 0x1 // POLLIN

func (s *Conn) poll(fd uintptr) {
	s.pfd = pollFd{fd: int32(fd), events: pollIn}
	n, _, e := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&s.pfd)), 1,
		uintptr(unsafe.Pointer(s.ptsPtr)), 0, 0, 0)
	s.pready, s.perr = int(n), e
}

func (s *Conn) recv(fd uintptr) {
	if len(s.rbuf2) > 0 && len(s.rbuf) > 0 {
		s.riov[0].Base, s.riov[1].Base = &s.rbuf[0], &s.rbuf2[0]
		s.riov[0].SetLen(len(s.rbuf))
		s.riov[1].SetLen(len(s.rbuf2))
		s.rmsg = syscall.Msghdr{Iov: &s.riov[0], Iovlen: 2}
		var n uintptr
		var e syscall.Errno
		if s.rraw {
			n, _, e = syscall.RawSyscall(syscall.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&s.rmsg)), uintptr(s.rflags))
		} else {
			n, _, e = syscall.Syscall(syscall.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&s.rmsg)), uintptr(s.rflags))
		}
		s.rn, s.rerr = int(n), e
		s.riov = [2]syscall.Iovec{}
		return
	}
	var p unsafe.Pointer
	if len(s.rbuf) > 0 {
		p = unsafe.Pointer(&s.rbuf[0])
	}
	var sa, salen uintptr
	if s.rfrom {
		s.rsalen = uint32(unsafe.Sizeof(s.rsa))
		sa, salen = uintptr(unsafe.Pointer(&s.rsa)), uintptr(unsafe.Pointer(&s.rsalen))
	}
	var n uintptr
	var e syscall.Errno
	if s.rraw {
		n, _, e = syscall.RawSyscall6(syscall.SYS_RECVFROM, fd, uintptr(p), uintptr(len(s.rbuf)), uintptr(s.rflags), sa, salen)
	} else {
		n, _, e = syscall.Syscall6(syscall.SYS_RECVFROM, fd, uintptr(p), uintptr(len(s.rbuf)), uintptr(s.rflags), sa, salen)
	}
	s.rn, s.rerr = int(n), e
}

// armDeadline sets SO_RCVTIMEO to the time left before deadline (none
// for a zero deadline), at most RawWait for a raw read, unless the armed
// value is already within 1/32 of it.
//
// A raw read armed with RawWait does not look at the clock: it waits at
// most that long, then waitReadable checks the deadline. A deadline closer
// than RawWait is then met up to RawWait and a tick late, and what arrives
// in that time is returned; a pinger's read, which in a steady ping-pong
// always finds its echo within RawWait, is spared a clock reading between
// the send and the echo (23 ns, half a percent of a TCP round trip).
func (s *Conn) armDeadline(deadline time.Time, raw bool) error {
	var want time.Duration
	if raw {
		if s.armed == RawWait {
			return nil
		}
		want = RawWait
	}
	if !deadline.IsZero() {
		left := time.Until(deadline)
		if left <= 0 {
			return Timeout
		}
		left = max(left, time.Microsecond) // 0 would mean "no timeout"
		if want == 0 || left < want {
			want = left
		}
	}
	d := want - s.armed
	if d < 0 {
		d = -d
	}
	if (want == 0) == (s.armed == 0) && d <= s.armed>>5 {
		return nil
	}
	s.armWant = want
	if err := s.rc.Control(s.armFn); err != nil {
		return s.opErr("setsockopt", err)
	}
	if s.armErr != 0 {
		return os.NewSyscallError("setsockopt SO_RCVTIMEO", s.armErr)
	}
	s.armed = want
	return nil
}

func (s *Conn) arm(fd uintptr) {
	s.tv = syscall.NsecToTimeval(int64(s.armWant))
	if s.armWant > 0 && s.tv.Sec == 0 && s.tv.Usec == 0 {
		s.tv.Usec = 1
	}
	_, _, e := syscall.Syscall6(syscall.SYS_SETSOCKOPT, fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO,
		uintptr(unsafe.Pointer(&s.tv)), unsafe.Sizeof(s.tv), 0)
	s.armErr = e
}

// Send writes b with one send(2) call and returns how much was written.
// flags are send(2) flags (syscall.MSG_DONTWAIT makes it non-blocking).
func (s *Conn) Send(b []byte, flags int) (int, error) {
	s.wbuf, s.wflags = b, flags
	return s.doWrite(s.sendFn, "send")
}

// ReplyTo sends b to the address of the last RecvFrom.
func (s *Conn) ReplyTo(b []byte) (int, error) {
	s.wbuf, s.wflags, s.wto = b, 0, true
	n, err := s.doWrite(s.sendFn, "sendto")
	s.wto = false
	return n, err
}

// Writev writes a then b with one sendmsg(2) call and returns how much was
// written, which may be less than both on a stream. flags are send(2)
// flags.
func (s *Conn) Writev(a, b []byte, flags int) (int, error) {
	s.wniov = 0
	s.wflags = flags
	for _, p := range [2][]byte{a, b} {
		if len(p) > 0 {
			s.wiov[s.wniov].Base = &p[0]
			s.wiov[s.wniov].SetLen(len(p))
			s.wniov++
		}
	}
	n, err := s.doWrite(s.vecFn, "writev")
	s.wiov = [2]syscall.Iovec{}
	return n, err
}

func (s *Conn) doWrite(fn func(uintptr), op string) (int, error) {
	for {
		if s.closed.Load() {
			return 0, fmt.Errorf("%s: %w", op, driver.ErrClosed)
		}
		if !s.acquire() {
			s.wbuf = nil
			return 0, fmt.Errorf("%s: %w", op, driver.ErrClosed)
		}
		fn(s.fd)
		s.release()
		switch s.werr {
		case 0:
			s.wbuf = nil
			return s.wn, nil
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			// MSG_DONTWAIT found no room, or SO_SNDTIMEO expired.
			s.wbuf = nil
			return 0, ErrWouldBlock
		default:
			s.wbuf = nil
			if s.closed.Load() {
				return 0, fmt.Errorf("%s: %w", op, driver.ErrClosed)
			}
			return 0, os.NewSyscallError(op, s.werr)
		}
	}
}

func (s *Conn) send(fd uintptr) {
	var p unsafe.Pointer
	if len(s.wbuf) > 0 {
		p = unsafe.Pointer(&s.wbuf[0])
	}
	var sa, salen uintptr
	if s.wto {
		sa, salen = uintptr(unsafe.Pointer(&s.rsa)), uintptr(s.rsalen)
	}
	flags := uintptr(s.wflags | syscall.MSG_NOSIGNAL)
	n, _, e := syscall.RawSyscall6(syscall.SYS_SENDTO, fd, uintptr(p), uintptr(len(s.wbuf)), flags|syscall.MSG_DONTWAIT, sa, salen)
	if e == syscall.EAGAIN && s.wflags&syscall.MSG_DONTWAIT == 0 {
		// No room: wait for it through the scheduler.
		n, _, e = syscall.Syscall6(syscall.SYS_SENDTO, fd, uintptr(p), uintptr(len(s.wbuf)), flags, sa, salen)
	}
	s.wn, s.werr = int(n), e
}

func (s *Conn) writev(fd uintptr) {
	s.wmsg = syscall.Msghdr{Iov: &s.wiov[0]}
	s.wmsg.Iovlen = uint64(s.wniov)
	flags := uintptr(s.wflags | syscall.MSG_NOSIGNAL)
	n, _, e := syscall.RawSyscall(syscall.SYS_SENDMSG, fd, uintptr(unsafe.Pointer(&s.wmsg)), flags|syscall.MSG_DONTWAIT)
	if e == syscall.EAGAIN && s.wflags&syscall.MSG_DONTWAIT == 0 {
		n, _, e = syscall.Syscall(syscall.SYS_SENDMSG, fd, uintptr(unsafe.Pointer(&s.wmsg)), flags)
	}
	s.wn, s.werr = int(n), e
}

// acquire takes a reference on fd for a system call; false when the
// socket is closed.
func (s *Conn) acquire() bool {
	s.refs.Add(1)
	if s.closed.Load() {
		s.release()
		return false
	}
	return true
}

// release drops a reference on fd, closing it after the last one.
func (s *Conn) release() {
	if s.refs.Add(-1) == 0 {
		_ = s.f.Close()
	}
}

// Shutdown shuts both directions down, waking any blocked recv, without
// releasing the descriptor.
func (s *Conn) Shutdown() {
	s.closed.Store(true)
	_ = s.rc.Control(s.shutFn)
}

func shutdown(fd uintptr) {
	_ = syscall.Shutdown(int(fd), syscall.SHUT_RDWR)
}

// Close shuts the socket down and releases it. The descriptor is closed
// once a concurrent system call on it has returned.
func (s *Conn) Close() error {
	s.Shutdown()
	if s.freed.CompareAndSwap(false, true) {
		open.Add(-1)
		s.release()
	}
	return nil
}

// opErr maps errors of the os package's descriptor bookkeeping.
func (s *Conn) opErr(op string, err error) error {
	if errors.Is(err, os.ErrClosed) || s.closed.Load() {
		return fmt.Errorf("%s: %w", op, driver.ErrClosed)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// SetSendTimeout bounds how long a blocking send waits for buffer space
// (SO_SNDTIMEO); 0 means for ever.
func (s *Conn) SetSendTimeout(d time.Duration) error {
	tv := syscall.NsecToTimeval(int64(d))
	var serr error
	err := s.rc.Control(func(fd uintptr) {
		serr = syscall.SetsockoptTimeval(int(fd), syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv)
	})
	if err != nil {
		return err
	}
	return serr
}

// ErrWouldBlock is returned by a send that found no room in the socket's
// send buffer: at once with syscall.MSG_DONTWAIT, else after the send
// timeout.
var ErrWouldBlock = errors.New("send buffer full")

// Timeout is the error of a Recv whose deadline passed. It wraps
// driver.ErrTimeout and os.ErrDeadlineExceeded and is a temporary
// net.Error, so crypto/tls keeps the connection usable after it.
var Timeout error = timeoutError{}

type timeoutError struct{}

func (timeoutError) Error() string   { return "recv: " + driver.ErrTimeout.Error() }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }
func (timeoutError) Is(target error) bool {
	return target == driver.ErrTimeout || target == os.ErrDeadlineExceeded
}

var _ net.Error = timeoutError{}
