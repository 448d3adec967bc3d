//go:build !linux

package session

import "errors"

var errNoAffinity = errors.New("pinning to CPUs is only supported on Linux")

// osAffinity has no CPU affinity to offer here.
type osAffinity struct{}

func (osAffinity) Set(int, []int) error   { return errNoAffinity }
func (osAffinity) Get(int) ([]int, error) { return nil, errNoAffinity }
func vanished(error) bool                 { return false }
func threads(int) ([]int, error)          { return nil, errNoAffinity }
func children(int) []int                  { return nil }
func freezeGOMAXPROCS()                   {}
func pinProcess(cpu int) error {
	if cpu < 0 {
		return nil
	}
	return errNoAffinity
}
