package goldenfile

import (
	"strings"
	"testing"
)

func TestFirstDiff(t *testing.T) {
	got := FirstDiff([]byte("a\nb\nc\n"), []byte("a\nB\nc\n"))
	if !strings.Contains(got, "line 2") || !strings.Contains(got, "got: B") || !strings.Contains(got, "want: b") {
		t.Fatalf("FirstDiff = %q", got)
	}
	if got := FirstDiff([]byte("a\n"), []byte("a\nb\n")); !strings.Contains(got, "line 2") {
		t.Fatalf("FirstDiff = %q", got)
	}
}
