package report

import (
	"encoding/json"
	"io"

	"github.com/mqgate/mqgate/internal/gate"
)

// FormatVersion is the version of the JSON report's schema. It changes only
// when a field is removed or changes meaning; fields may be added.
const FormatVersion = 1

// JSONReport is the document JSON writes: the verdict and its format version.
// Values that do not exist (a missing check's value) are null.
type JSONReport struct {
	FormatVersion int `json:"format_version"`
	*gate.Verdict
}

// JSON writes v as an indented JSON document with a "format_version".
func JSON(w io.Writer, v *gate.Verdict) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(JSONReport{FormatVersion: FormatVersion, Verdict: v})
}
