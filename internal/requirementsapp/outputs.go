package requirementsapp

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/fileerr"
)

// outputs are the files one call of the tool writes. They land together or
// not at all: Commit writes each in full to a temporary file beside it and
// renames them into place only once every one was written, so that a call
// failing on its second file leaves the first as it was.
type outputs struct {
	files []outputFile
}

// outputFile is one file of outputs: the flag naming it, its path and what
// writes its content.
type outputFile struct {
	flag, path string
	write      func(w io.Writer) error
}

// Add declares the file path, named by flag, with the content write gives
// it.
func (o *outputs) Add(flag, path string, write func(w io.Writer) error) {
	o.files = append(o.files, outputFile{flag, path, write})
}

// checkOutputFile refuses, before anything is read or written, a path that
// cannot become a file (a directory, a file in the way of its directory),
// naming its flag.
func checkOutputFile(flag, path string) error {
	if path == "" {
		return nil
	}
	if err := atomicfile.CheckFile(path); err != nil {
		return exit.Usagef("%s: %v", flag, err)
	}
	return nil
}

// Commit writes every file of o (see outputs). On an error no file of o has
// changed, and the temporary files and the directories made for them are
// gone; the error, exit code 2, names the flag and file. It returns the
// paths written, in the order added.
func (o *outputs) Commit() (paths []string, err error) {
	for _, f := range o.files {
		if err := checkOutputFile(f.flag, f.path); err != nil {
			return nil, err
		}
	}
	var temps, made []string
	defer func() {
		if err == nil {
			return
		}
		for _, t := range temps {
			os.Remove(t)
		}
		for i := len(made) - 1; i >= 0; i-- {
			os.Remove(made[i]) // only when empty: another file may have come
		}
	}()
	for _, f := range o.files {
		dirs, err := mkdirAll(filepath.Dir(f.path))
		made = append(made, dirs...)
		if err != nil {
			return nil, exit.Usagef("%s: cannot create the directory for %s: %v", f.flag, f.path, fileerr.Cause(err))
		}
		tmp, err := writeTemp(f)
		if tmp != "" {
			temps = append(temps, tmp)
		}
		if err != nil {
			return nil, exit.Usagef("%s: cannot write %s: %v", f.flag, f.path, err)
		}
	}
	for i, f := range o.files {
		if err := os.Rename(temps[i], f.path); err != nil {
			// Only a change made meanwhile by someone else gets here: the
			// directory was writable and the path not a directory.
			return nil, exit.Usagef("%s: cannot write %s: %v", f.flag, f.path, fileerr.Cause(err))
		}
		temps[i] = f.path // landed: not to be removed
		paths = append(paths, f.path)
	}
	return paths, nil
}

// writeTemp writes f's content to a new temporary file beside f.path,
// synced and with the permissions f.path has when it already is a file (a
// new file's from the umask otherwise), and returns its name.
func writeTemp(f outputFile) (tmp string, err error) {
	file, err := atomicfile.CreateTemp(filepath.Dir(f.path), "."+filepath.Base(f.path)+".tmp")
	if err != nil {
		return "", fileerr.Cause(err)
	}
	tmp = file.Name()
	defer func() {
		if cerr := file.Close(); err == nil && cerr != nil {
			err = fileerr.Cause(cerr)
		}
	}()
	bw := bufio.NewWriterSize(file, 64<<10)
	if err := f.write(bw); err != nil {
		return tmp, err
	}
	if err := bw.Flush(); err != nil {
		return tmp, fileerr.Cause(err)
	}
	if err := file.Sync(); err != nil {
		return tmp, fileerr.Cause(err)
	}
	if st, err := os.Stat(f.path); err == nil && st.Mode().IsRegular() {
		if err := file.Chmod(st.Mode().Perm()); err != nil {
			return tmp, fileerr.Cause(err)
		}
	}
	return tmp, nil
}

// mkdirAll makes dir and its missing parents, and returns the directories
// it made, outermost first, so that a failed call can remove them.
func mkdirAll(dir string) ([]string, error) {
	var missing []string
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err == nil {
			break
		}
		missing = append(missing, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	var made []string
	for i := len(missing) - 1; i >= 0; i-- {
		err := os.Mkdir(missing[i], 0o777)
		switch {
		case err == nil:
			made = append(made, missing[i])
		case !errors.Is(err, fs.ErrExist): // made meanwhile: not ours to remove
			return made, err
		}
	}
	return made, nil
}
