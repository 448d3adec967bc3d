package browser

import (
	"os"
	"testing"
)

// Require returns the path of Chromium for a test that needs it. When
// Chromium is missing it skips the test with the reason, or fails it when the
// environment variable CI is "true", so that CI never passes a browser test
// by skipping it.
func Require(tb testing.TB) string {
	tb.Helper()
	path, err := Find()
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("CI=true and the browser test cannot run: %v", err)
		}
		tb.Skipf("skipping browser test: %v", err)
	}
	return path
}
