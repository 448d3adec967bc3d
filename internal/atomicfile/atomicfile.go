package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"

	"github.com/mqgate/mqgate/internal/fileerr"
)

// Write creates path's parent directories, calls write with a buffered writer
// on a temporary file beside path and, if write and the flush succeed,
// renames the temporary file to path. On any error the temporary file and
// the directories made for it are removed, and path is left as it was.
//
// The file gets the mode a new file gets from the umask (0666 less the
// umask, as with a shell redirection), or, when path already is a file, that
// file's permissions.
func Write(path string, write func(w io.Writer) error) (err error) {
	return WriteMode(path, 0, write)
}

// WriteMode is Write giving the file the permissions perm instead, unless
// perm is 0.
func WriteMode(path string, perm fs.FileMode, write func(w io.Writer) error) error {
	tmp, discard, err := stage(path, perm, write)
	if err != nil {
		return err
	}
	if err := commit(tmp, path); err != nil {
		discard()
		return err
	}
	return nil
}

// File is one file of WriteAll.
type File struct {
	Path  string
	Perm  fs.FileMode // 0: as Write gives
	Write func(w io.Writer) error
	Flag  string // if set, starts each error about the file ("--json: cannot write …")
}

// WriteAll writes files as a set: every one whole beside its path first,
// then each renamed over its path. A set whose files belong together (a
// CA and the certificates it signed) is not left half replaced when one
// cannot be written (a full disk): on any error before the renames every
// path is left as it was, and neither the temporary files nor the
// directories made for them are left. A rename that fails (rarely: the
// temporary file is in the path's own directory) leaves the paths before
// it replaced, and the error says which. Every error names the file, and
// its Flag if set.
func WriteAll(files []File) (err error) {
	var tmps []string
	var discards []func()
	defer func() {
		if err != nil {
			for _, discard := range slices.Backward(discards) {
				discard()
			}
		}
	}()
	for _, f := range files {
		tmp, discard, err := stage(f.Path, f.Perm, func(w io.Writer) error {
			if err := f.Write(w); err != nil {
				return fmt.Errorf("cannot write %s: %w", f.Path, err)
			}
			return nil
		})
		if err != nil {
			return flagged(f.Flag, err)
		}
		tmps = append(tmps, tmp)
		discards = append(discards, discard)
	}
	for i, f := range files {
		if err := commit(tmps[i], f.Path); err != nil {
			if i > 0 {
				err = fmt.Errorf("%w (%d of the %d files were replaced, up to %s)", err, i, len(files), files[i-1].Path)
			}
			discards = discards[i:] // those not renamed
			return flagged(f.Flag, err)
		}
	}
	return nil
}

// flagged starts err with flag, if set.
func flagged(flag string, err error) error {
	if flag == "" {
		return err
	}
	return fmt.Errorf("%s: %w", flag, err)
}

// MkdirAll makes dir and its missing parents, as os.MkdirAll does, and
// returns remove, which removes again, deepest first, the directories it
// made that are still empty: a call that fails after it leaves nothing
// behind. On an error it removes them itself.
func MkdirAll(dir string, perm fs.FileMode) (remove func(), err error) {
	var missing, made []string
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err == nil {
			break
		}
		missing = append(missing, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	remove = func() {
		for _, d := range slices.Backward(made) {
			os.Remove(d) // only when empty: another file may have come
		}
	}
	for _, d := range slices.Backward(missing) {
		err := os.Mkdir(d, perm)
		switch {
		case err == nil:
			made = append(made, d)
		case !errors.Is(err, fs.ErrExist): // made meanwhile: not ours to remove
			remove()
			return nil, err
		}
	}
	return remove, nil
}

// stage writes what write writes to a temporary file beside path, with the
// permissions perm (0: a new file's, or path's when it is a file), and
// returns its name and discard, which removes it and the directories made
// for it. On any error it removes them itself.
func stage(path string, perm fs.FileMode, write func(w io.Writer) error) (_ string, _ func(), err error) {
	if err := CheckFile(path); err != nil {
		return "", nil, err
	}
	dir := filepath.Dir(path)
	remove, err := MkdirAll(dir, 0o777)
	if err != nil {
		return "", nil, fmt.Errorf("cannot create the directory for %s: %s", path, whyNoDir(dir, err))
	}
	f, err := CreateTemp(dir, "."+filepath.Base(path)+".tmp")
	if err != nil {
		remove()
		return "", nil, fmt.Errorf("cannot write %s: %w", path, fileerr.Cause(err))
	}
	tmp := f.Name()
	discard := func() {
		os.Remove(tmp)
		remove()
	}
	defer func() {
		if err != nil {
			f.Close()
			discard()
		}
	}()
	if fi, statErr := os.Stat(path); perm == 0 && statErr == nil && fi.Mode().IsRegular() {
		perm = fi.Mode().Perm() // replacing a file keeps its permissions
	}
	// Before the content: a key written 0600 is never readable by others,
	// not even as the temporary file.
	if perm != 0 {
		if err = f.Chmod(perm.Perm()); err != nil {
			return "", nil, fmt.Errorf("cannot write %s: %w", path, fileerr.Cause(err))
		}
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	if err = write(bw); err != nil {
		return "", nil, err
	}
	if err = bw.Flush(); err != nil {
		return "", nil, fmt.Errorf("cannot write %s: %w", path, fileerr.Cause(err))
	}
	if err = f.Sync(); err != nil {
		return "", nil, fmt.Errorf("cannot write %s: %w", path, fileerr.Cause(err))
	}
	if err = f.Close(); err != nil {
		return "", nil, fmt.Errorf("cannot write %s: %w", path, fileerr.Cause(err))
	}
	return tmp, discard, nil
}

// commit renames the staged tmp over path.
func commit(tmp, path string) error {
	err := os.Rename(tmp, path)
	if err == nil {
		return nil
	}
	if fi, statErr := os.Stat(path); statErr == nil && fi.IsDir() {
		return fmt.Errorf("cannot write %s: it is a directory; expected a file name", path)
	}
	return fmt.Errorf("cannot write %s: %w", path, fileerr.Cause(err))
}

// CheckFile reports, before anything is written, why path cannot become a
// file: it is a directory, or not a regular file (a device, a named pipe,
// a symbolic link: renamed over, it would be replaced), or one of its
// would-be parent directories is in the way (a file, a looping or dangling
// symbolic link). nil does not
// promise that writing will succeed (permissions, space).
func CheckFile(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("cannot write %s: it is a directory; expected a file name", path)
	}
	if what := notRegular(path); what != "" {
		return fmt.Errorf("cannot write %s: it is %s, and a file written beside it and renamed over it would take its place; give the name of a regular file", path, what)
	}
	if why := inTheWay(filepath.Dir(path)); why != "" {
		return fmt.Errorf("cannot create the directory for %s: %s", path, why)
	}
	return nil
}

// notRegular says what path is when it exists and is neither a regular
// file nor a directory ("a device", "a symbolic link to /proc/self/fd/1"),
// "" otherwise. A file renamed over it replaces it: --json /dev/null, run
// as root, left a regular file in place of the machine's /dev/null, and
// --markdown /dev/stdout one in place of the link.
func notRegular(path string) string {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode().IsRegular() || fi.IsDir() {
		return ""
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(path)
		return "a symbolic link to " + target
	}
	return fileerr.Kind(fi.Mode())
}

// CheckDir reports, before anything is written, why dir cannot be (or be
// made) a directory, as CheckFile does for a file.
func CheckDir(dir string) error {
	if why := inTheWay(dir); why != "" {
		return fmt.Errorf("cannot create the directory %s: %s", dir, why)
	}
	return nil
}

// CreateTemp creates a new file in dir named prefix and a random number.
// Unlike os.CreateTemp, whose files are 0600, it asks for 0666 and lets the
// umask take away what the user does not want others to have.
func CreateTemp(dir, prefix string) (*os.File, error) {
	for try := 0; ; try++ {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) && try < 1000 {
			continue
		}
		return f, err
	}
}

// whyNoDir says in words why dir could not be created: which of its
// ancestors is in the way, and what it is.
func whyNoDir(dir string, err error) string {
	if why := inTheWay(dir); why != "" {
		return why
	}
	return fileerr.Cause(err).Error()
}

// inTheWay returns which of dir and its ancestors exists but is not a
// directory, and what it is, or "".
func inTheWay(dir string) string {
	var chain []string
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		chain = append(chain, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	for i := len(chain) - 1; i >= 0; i-- {
		p := chain[i]
		li, lerr := os.Lstat(p)
		if lerr != nil {
			break // missing: MkdirAll would have made it
		}
		if li.Mode()&fs.ModeSymlink != 0 {
			fi, serr := os.Stat(p)
			switch {
			case errors.Is(serr, syscall.ELOOP):
				return fmt.Sprintf("%s is a symbolic link that loops (it leads back to itself); expected a directory", p)
			case errors.Is(serr, fs.ErrNotExist):
				target, _ := os.Readlink(p)
				return fmt.Sprintf("%s is a symbolic link to %s, which does not exist; expected a directory", p, target)
			case serr == nil && !fi.IsDir():
				return fmt.Sprintf("%s is a symbolic link to a file, not a directory", p)
			}
			continue
		}
		if !li.IsDir() {
			return fmt.Sprintf("%s is a file, not a directory", p)
		}
	}
	return ""
}
