package report

import (
	"fmt"
	"io"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/gate"
)

// Format is a report file format: a renderer of a verdict and the flag
// that names its file.
type Format struct {
	// Flag is the flag's name without dashes ("junit"); a tool may prefix
	// it (history --gate-junit).
	Flag string
	// Usage is the flag's help.
	Usage string
	// Render writes a verdict.
	Render func(io.Writer, *gate.Verdict) error
}

// Formats are the report file formats check, compare and history write, in
// this order. A new format is a renderer and one entry here.
var Formats = []Format{
	{"junit", "write a JUnit XML report to `FILE`", JUnit},
	{"markdown", "write a Markdown report to `FILE`", Markdown},
	{"json", "write the verdict as JSON to `FILE`", JSON},
}

// WriteFiles writes v atomically in every format for which path, given
// the format's flag, names a file; it returns the files written. An error
// names the flag (prefix+Flag).
func WriteFiles(v *gate.Verdict, prefix string, path func(flag string) string) ([]string, error) {
	var written []string
	for _, f := range Formats {
		p := path(f.Flag)
		if p == "" {
			continue
		}
		if err := atomicfile.Write(p, func(w io.Writer) error { return f.Render(w, v) }); err != nil {
			return written, fmt.Errorf("--%s%s: %w", prefix, f.Flag, err)
		}
		written = append(written, p)
	}
	return written, nil
}
