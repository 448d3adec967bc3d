// Package gate declares the statistical model shared by mqgate's gates
// (check and compare): the metrics a gate may judge, with each one's unit and
// direction (lower or higher is better), the result of judging one value
// (Check) and the result of a whole gate run (Verdict), whose ExitCode follows
// the exit-code contract: 0 passed, 1 failed, 3 inconclusive.
//
// A gate compares a measured Value with a Reference (a requirement, or the
// same metric measured on a reference experiment), allowing a relative
// Threshold in the metric's bad direction:
//
//	lower is better:  Limit = Reference · (1 + Threshold), fails when Value > Limit
//	higher is better: Limit = Reference · (1 − Threshold), fails when Value < Limit
//
// A requirement is a Reference with Threshold 0, so a value equal to its
// requirement passes.
//
// The package is pure: plain values in, plain values out, no I/O. Renderers
// (CSV, console text, JUnit, Markdown, JSON, HTML) only read a Verdict; see
// package report.
package gate
