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
// Renderers only read the verdict and write to an io.Writer; a new output
// format is a new renderer and nothing else.
package report
