package fileerr

import (
	"errors"
	"io/fs"
	"os"
)

// Cause drops the operation and path of an *fs.PathError or *os.LinkError,
// for messages that say them in their own words.
func Cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// Unreadable is err, an error opening or reading path, as it is when it
// names its place (an *Error), else "cannot read what: cause" at path.
func Unreadable(path, what string, err error) error {
	if _, ok := As(err); ok {
		return err
	}
	return New(path, 0, "", "cannot read %s: %v", what, Cause(err))
}

// OpenRegular opens path for reading when it is a regular file, or a
// symbolic link to one. Anything else where a file is expected (a
// directory, a named pipe, a device, a socket) is an input error from
// NotRegular naming path and what was expected (what, e.g. "the raw
// measurements file"). A named pipe without a writer does not block: the
// file is opened without waiting (O_NONBLOCK) and its type checked before
// anything is read. Errors of the open itself are returned as they are
// (*fs.PathError), for the caller to word.
func OpenRegular(path, what string) (*os.File, error) {
	f, err := os.OpenFile(path, openFlags, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, NotRegular(path, st.Mode(), what)
	}
	return f, nil
}

// NotRegular is the input error for path, of the file type in mode, found
// where a regular file was expected: it says what path is, what was
// expected, and the fix.
func NotRegular(path string, mode fs.FileMode, what string) error {
	return New(path, 0, "", "is %s, not a regular file: expected %s; remove or rename it", Kind(mode), what)
}

// Kind names the type of a file that is not regular ("a named pipe (FIFO)").
func Kind(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "a directory"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a device"
	case mode&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file"
}
