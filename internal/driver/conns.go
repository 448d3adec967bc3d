package driver

import (
	"io"
	"sync"
)

// Conns is the set of connections a listening end serves, so that closing
// the end closes every one of them, and any it adds later. The zero value
// is an empty set.
type Conns[C interface {
	comparable
	io.Closer
}] struct {
	mu     sync.Mutex
	open   map[C]struct{}
	closed bool
}

// Add adds c; once Close was called it closes c instead and returns false.
func (s *Conns[C]) Add(c C) bool {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		c.Close()
		return false
	}
	if s.open == nil {
		s.open = map[C]struct{}{}
	}
	s.open[c] = struct{}{}
	s.mu.Unlock()
	return true
}

// Remove removes c and closes it: its end is done with it.
func (s *Conns[C]) Remove(c C) {
	s.mu.Lock()
	delete(s.open, c)
	s.mu.Unlock()
	c.Close()
}

// Close closes every connection of the set and refuses later ones.
func (s *Conns[C]) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for c := range s.open {
		c.Close()
	}
}

// Closed reports whether Close was called.
func (s *Conns[C]) Closed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}
