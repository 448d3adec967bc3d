// Package browser finds a headless Chromium and drives it from tests through
// its command line only (no DevTools protocol, no dependency beyond the
// standard library): DumpDOM returns the DOM of a page after it has loaded
// and run its scripts, Screenshot saves a PNG of the page at a given
// viewport size, and Eval runs a JavaScript function in the page at a given
// viewport size and returns its result as JSON: measures of the layout,
// such as the rendered size of text, for tests to assert. Screenshot and
// Eval show the page in a frame of exactly the size asked for, since a
// headless window is never narrower than 500 pixels.
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
