// Package browser finds a headless Chromium and drives it from tests through
// its command line only (no DevTools protocol, no dependency beyond the
// standard library): DumpDOM returns the DOM of a page after it has loaded
// and run its scripts, and Screenshot saves a PNG of the page at a given
// window size.
//
// Every run uses a fresh, temporary profile and flags that keep Chromium
// from reaching the network on its own (no updates, sync or background
// requests), and host resolution is disabled, so that a page that is not
// self-contained shows it. Runs are bounded by the context and by
// DefaultTimeout, and the whole process group is killed when they end early.
//
// Require is for tests: it returns Chromium's path, or skips the test with
// the reason when Chromium is missing, except when the environment variable
// CI is "true", where a missing browser fails the test.
package browser
