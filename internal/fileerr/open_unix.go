//go:build unix

package fileerr

import (
	"os"
	"syscall"
)

// openFlags open a file for reading without waiting for a writer when it
// is a named pipe.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK
