package roles

import (
	"bufio"
	"cmp"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/fileerr"
)

// snapshotFile is the --csv file. Its rows go, window by window, into a
// temporary file beside it, renamed over it once the role ends (Commit):
// a role that fails, or a disk that fills, leaves an earlier file of that
// name as it was. A path that exists and is not a regular file (a device,
// a pipe) is written directly. Every write error counts: the first is
// kept, later rows are dropped, and Commit returns it naming the file.
type snapshotFile struct {
	path string
	tmp  string // the temporary file; "" when writing to path itself
	f    *os.File
	w    *bufio.Writer
	err  error
}

// createSnapshotFile opens the --csv file at path, refusing before
// anything is measured a path that cannot become a file.
func createSnapshotFile(path string) (*snapshotFile, error) {
	sf := &snapshotFile{path: path}
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return nil, fmt.Errorf("--csv %s: it is a directory; expected a file name", path)
	case err == nil && !fi.Mode().IsRegular():
		if sf.f, err = os.OpenFile(path, os.O_WRONLY, 0); err != nil {
			return nil, sf.wrap(err)
		}
	default:
		if err := atomicfile.CheckFile(path); err != nil {
			return nil, fmt.Errorf("--csv: %w", err)
		}
		dir := filepath.Dir(path)
		if err := os.MkdirAll(dir, 0o777); err != nil {
			return nil, sf.wrap(err)
		}
		if sf.f, err = atomicfile.CreateTemp(dir, "."+filepath.Base(path)+".tmp"); err != nil {
			return nil, sf.wrap(err)
		}
		sf.tmp = sf.f.Name()
	}
	sf.w = bufio.NewWriter(sf.f)
	return sf, nil
}

// wrap names the file in a write error.
func (sf *snapshotFile) wrap(err error) error {
	return fmt.Errorf("--csv: cannot write %s: %w", sf.path, fileerr.Cause(err))
}

// row writes one line and flushes it, so that a full disk shows at the
// window it happens in; it reports whether this was the first error.
func (sf *snapshotFile) row(line string) (failed bool) {
	if sf.err != nil {
		return false
	}
	if _, err := sf.w.WriteString(line); err != nil {
		sf.err = sf.wrap(err)
	} else if err := sf.w.Flush(); err != nil {
		sf.err = sf.wrap(err)
	}
	return sf.err != nil
}

// Commit flushes, syncs and closes the file and renames it into place; on
// any error, now or in an earlier row, the temporary file is removed and
// the error returned.
func (sf *snapshotFile) Commit() error {
	if sf.err != nil {
		sf.Discard()
		return sf.err
	}
	err := sf.w.Flush()
	if err == nil && sf.tmp != "" {
		err = cmp.Or(sf.f.Sync(), sf.keepMode())
	}
	err = cmp.Or(err, sf.f.Close())
	if err == nil && sf.tmp != "" {
		err = os.Rename(sf.tmp, sf.path)
	}
	if err == nil {
		return nil
	}
	if sf.tmp != "" {
		os.Remove(sf.tmp)
	}
	return sf.wrap(err)
}

// keepMode gives the new file the permissions of the file it replaces.
func (sf *snapshotFile) keepMode() error {
	if fi, err := os.Stat(sf.path); err == nil && fi.Mode().IsRegular() {
		return sf.f.Chmod(fi.Mode().Perm())
	}
	return nil
}

// Discard closes the file and removes the temporary file: the role failed
// before it measured anything.
func (sf *snapshotFile) Discard() {
	sf.f.Close()
	if sf.tmp != "" {
		os.Remove(sf.tmp)
	}
}
