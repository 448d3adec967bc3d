// Package report renders a gate.Verdict for people and for CI systems:
//
//   - Text: the console report of check and compare, one line per
//     sub-experiment with what failed and by how much, then the totals;
//   - JUnit: JUnit XML, one test suite per sub-experiment and one test case
//     per (sub-experiment, payload, metric), read by the test reporters of
//     Jenkins, GitLab and GitHub;
//   - Markdown: a compact table for a pull-request comment or a CI job
//     summary, failures first;
//   - JSON: the whole verdict, machine-readable, with a format version.
//
// Renderers only read the verdict and write to an io.Writer. The file
// formats are registered in Formats, which check, compare and history
// (--gate-<format>) take their flags from and write with WriteFiles: a new
// report format is a renderer and one entry in Formats.
package report
