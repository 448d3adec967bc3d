// Package e2e holds end-to-end tests: they build the command-line tools, run
// the chain process → requirements → check → compare → history on the
// Fast-RTPS v1.9.2 fixture and experiments derived from it, and load each
// HTML report the tools write in headless Chromium.
//
// The package has no code of its own. Its tests are skipped with -short.
package e2e
