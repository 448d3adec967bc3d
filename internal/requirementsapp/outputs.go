package requirementsapp

import (
	"io"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/exit"
)

// outputs are the files one call of the tool writes. They land together or
// not at all (atomicfile.WriteAll), so that a call failing on its second
// file leaves the first as it was.
type outputs []atomicfile.File

// Add declares the file path, named by flag, with the content write gives
// it.
func (o *outputs) Add(flag, path string, write func(w io.Writer) error) {
	*o = append(*o, atomicfile.File{Flag: flag, Path: path, Write: write})
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
// gone; the error, exit code 2, names the flag and file.
func (o outputs) Commit() error {
	return exit.With(exit.Usage, atomicfile.WriteAll(o))
}
