// Package goldenfile compares test output with golden files under a
// package's testdata/ and rewrites them when the tests run with -update:
//
//	go test ./internal/check -update
//
// On a mismatch it shows the first line that differs, with its number.
package goldenfile
