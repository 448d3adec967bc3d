//go:build !linux

package pingpong

import "errors"

// Pin needs Linux to pin a thread; a negative cpu pins nothing.
func Pin(cpu int) error {
	if cpu < 0 {
		return nil
	}
	return errors.New("pinning a thread needs Linux")
}
