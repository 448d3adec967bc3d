package experiment

import (
	"io/fs"
	"os"

	"github.com/mqgate/mqgate/internal/fileerr"
)

// OpenRegular is fileerr.OpenRegular: it opens path for reading when it is
// a regular file and refuses anything else, naming what was expected.
func OpenRegular(path, what string) (*os.File, error) { return fileerr.OpenRegular(path, what) }

// CheckRegular is fileerr.CheckRegular.
func CheckRegular(path, what string) error { return fileerr.CheckRegular(path, what) }

// NotRegular is fileerr.NotRegular.
func NotRegular(path string, mode fs.FileMode, what string) error {
	return fileerr.NotRegular(path, mode, what)
}
