//go:build !unix

package fileerr

import "os"

// openFlags open a file for reading (systems without named pipes that
// block an open).
const openFlags = os.O_RDONLY
