package htmlreport

import (
	"fmt"
	"io"

	"github.com/mqgate/mqgate/internal/atomicfile"
)

// Statuses of a Verdict, a Section or a Cell. The empty status is neutral.
const (
	StatusPassed       = "passed"
	StatusFailed       = "failed"
	StatusInconclusive = "inconclusive"
)

// Page is the model of one report page.
type Page struct {
	Title    string
	Subtitle string
	// Meta is shown under the title as key/value pairs: experiment, host,
	// commit, generation time, ...
	Meta []KV
	// Verdict, when not nil, is shown first, above everything else.
	Verdict *Verdict
	// Notes are paragraphs shown under the verdict (warnings, caveats).
	Notes []string
	// Headline tables come next, before the contents: the figures a
	// reader wants on the first screen.
	Headline []Table
	Sections []Section
}

// KV is one key/value pair of page metadata.
type KV struct{ Key, Value string }

// Verdict is the outcome of a gate.
type Verdict struct {
	// Status is StatusPassed, StatusFailed or StatusInconclusive.
	Status string
	// Summary is one sentence, e.g. "3 of 330 checks failed".
	Summary string
	// Failures lists what failed; an empty table is not shown.
	Failures Table
	// Notes are shown under Failures, one paragraph each: what does not
	// fit in a table cell.
	Notes []string
}

// Section is a part of the page with its own anchor: a sub-experiment, or,
// nested, a payload. Top-level sections are shown expanded, nested sections
// collapsed unless Open is set.
type Section struct {
	// ID is the anchor of the section; it is sanitised and made unique, and
	// a nested section's anchor is prefixed by its parent's. When empty, the
	// title is used.
	ID    string
	Title string
	// Status, when set, is shown as a badge beside the title and in the
	// table of contents.
	Status   string
	Open     bool
	Notes    []string
	Tables   []Table
	Plots    []Plot
	Sections []Section
}

// Table is a table with a header row.
type Table struct {
	Caption string
	Header  []string
	Rows    [][]Cell
	// RowHeaders makes the first cell of each row the row's header (a
	// sub-experiment's name), kept in view while a table too wide for the
	// screen scrolls sideways, and wrapped, when the screen is narrow, only
	// after an underscore: between the words of a name.
	RowHeaders bool
}

// Cell is one table cell.
type Cell struct {
	Text string
	// Status colours the cell: "" (plain), StatusPassed, StatusFailed or
	// StatusInconclusive.
	Status string
	// Numeric cells are right-aligned in tabular figures.
	Numeric bool
	// Sub, when set, is a second, smaller value under Text (a p99 under a
	// p50); Status then marks Text alone and SubStatus marks Sub.
	Sub       string
	SubStatus string
}

// Plot is one figure.
type Plot struct {
	Title string
	// SVG is a complete SVG document, e.g. from plots.SVG or gonum's vgsvg
	// canvas; an XML prolog, comments and a DOCTYPE before the root <svg>
	// element are dropped.
	SVG []byte
}

// Text returns a plain cell.
func Text(s string) Cell { return Cell{Text: s} }

// Num returns a right-aligned numeric cell.
func Num(s string) Cell { return Cell{Text: s, Numeric: true} }

// WriteFile renders p into the file at path atomically (a temporary file
// renamed into place when complete), creating parent directories. When p is
// invalid, nothing is written.
func WriteFile(path string, p Page) error {
	v, err := buildView(p)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return atomicfile.Write(path, func(w io.Writer) error { return pageTemplate.Execute(w, v) })
}
