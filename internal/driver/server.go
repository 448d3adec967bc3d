package driver

import (
	"io"
	"net"
	"sync"
)

// Server is a listener whose connections are each served on a goroutine
// of its own and kept in a set, so that closing the server closes every
// one of them: what the echoers and subscribers that listen share.
type Server[C interface {
	comparable
	io.Closer
}] struct {
	L     net.Listener
	conns Conns[C]
	wg    sync.WaitGroup
	once  sync.Once
}

// Addr returns the listening address.
func (s *Server[C]) Addr() string { return s.L.Addr().String() }

// Accept serves each accepted connection c on a goroutine of its own:
// open turns it into a C (false: open closed it, it is not served), which
// serve is given and which is closed when serve returns. It returns why
// the listener failed, or that it was closed.
func (s *Server[C]) Accept(open func(c net.Conn) (C, bool), serve func(c net.Conn, cc C)) error {
	for {
		c, err := s.L.Accept()
		if err != nil {
			return err
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			if cc, ok := open(c); ok && s.conns.Add(cc) {
				serve(c, cc)
				s.conns.Remove(cc)
			}
		}()
	}
}

// Go runs Accept on a goroutine of its own, which Wait waits for too.
func (s *Server[C]) Go(open func(c net.Conn) (C, bool), serve func(c net.Conn, cc C)) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.Accept(open, serve)
	}()
}

// Close stops accepting and closes every connection; later calls do
// nothing.
func (s *Server[C]) Close() error {
	var err error
	s.once.Do(func() {
		s.conns.Close()
		err = s.L.Close()
	})
	return err
}

// Closed reports whether Close was called.
func (s *Server[C]) Closed() bool { return s.conns.Closed() }

// Wait waits until every connection was served (and the goroutine of Go
// returned, once Close was called).
func (s *Server[C]) Wait() { s.wg.Wait() }
