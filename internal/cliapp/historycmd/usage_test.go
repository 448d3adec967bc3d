package historycmd

import (
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestUsageLineRequiresWhatHistoryRequires: every flag the usage line
// shows outside brackets is one history requires, and every one it
// requires is shown so: --requirements is optional (the plots then have no
// requirement line), and the line must not demand it.
func TestUsageLineRequiresWhatHistoryRequires(t *testing.T) {
	app := App()
	var shown []string
	depth := 0
	for _, w := range strings.Fields(app.UsageText) {
		if depth == 0 && strings.HasPrefix(w, "--") {
			shown = append(shown, strings.TrimPrefix(w, "--"))
		}
		depth += strings.Count(w, "[") - strings.Count(w, "]")
	}
	var required []string
	for _, f := range app.Flags {
		if rf, ok := f.(cli.RequiredFlag); ok && rf.IsRequired() {
			required = append(required, f.Names()[0])
		}
	}
	slices.Sort(shown)
	slices.Sort(required)
	if !slices.Equal(shown, required) {
		t.Errorf("history's usage line %q shows %q as required; history requires %q", app.UsageText, shown, required)
	}
}
