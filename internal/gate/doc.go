// Package gate declares the statistical model shared by mqgate's gates
// (check, compare and history --gate): the result of judging one value of a
// result.Metric, lower or higher is better (Check), and the result of a
// whole gate run (Verdict), whose ExitCode follows the exit-code contract:
// 0 passed, 1 failed, 3 inconclusive.
//
// # One run per side: the threshold rule
//
// Evaluate compares a measured Value with a Reference (a requirement, or the
// same metric measured on a reference experiment), allowing a relative
// Threshold in the metric's bad direction (formats §4):
//
//	lower is better:  Limit = Reference · (1 + Threshold), fails when Value > Limit
//	higher is better: Limit = Reference · (1 − Threshold), fails when Value < Limit
//
// A requirement is a Reference with Threshold 0, so a value equal to its
// requirement passes.
//
// # Several runs per side: the statistical model (formats §8)
//
// The unit of replication is the run: per (sub-experiment, payload, metric)
// each run gives one value (its median, its 99th percentile, …); samples
// inside a run are not independent, runs are. Judge takes N runs per side:
//
//   - Effect (dist.Compare, package stats/dist): the ratio
//     candidate/reference estimated by Hodges–Lehmann on log values,
//     exp(median of all pairwise differences log c − log r), with the
//     distribution-free interval that inverts the Mann–Whitney test (the
//     k-th smallest and largest pairwise differences), and the one-sided
//     Mann–Whitney p-value for "the candidate is worse". Both come from the
//     exact U distribution up to dist.ExactLimit runs per side (25 with
//     ties, then the exact conditional distribution given the ties), from
//     its normal approximation with tie and continuity correction beyond.
//     The test is one-sided: only a regression can fail a gate.
//   - Multiple comparisons: Holm's step-down correction over every check of
//     one gate run keeps the probability that an unchanged system fails any
//     of them at most the false-fail level asked (DefaultFalseFail, 1 %),
//     whatever their dependence. The interval's "no regression" end is
//     computed at the check's Holm level, so "interval above 1" and "Holm
//     rejects" agree; its threshold end at the false-fail level itself (a
//     false pass is a per-check error, not the family-wise one).
//   - Verdict: Failed when Holm rejects, the interval lies beyond 1 in the
//     bad direction and the estimate beyond 1 ± Threshold; Passed when the
//     whole interval lies within 1 ± Threshold; Inconclusive otherwise, with
//     a rough count of the further runs per side that would decide, or
//     "not gateable with N runs: needs ≈ M" when the metric's run-to-run
//     dispersion keeps even an unchanged system from passing at this N
//     (typical of Max).
//
// # Rules and the family step
//
// Every decision rule is a Rule: the shift test above, a limit fixed in
// advance (Judged: the single-run threshold, a statistical requirement's
// order or log-normal limit, judged by package requirements), history's
// series rule (every unacknowledged change point in the window and the
// window's trend, one p-value per series). Family.Judge is the one family step of every gate:
// it applies the multiple-comparison control the verdict decides with
// (Holm for compare and history, Bonferroni at the level a statistical
// requirements file fixed for check) to the rules' p-values, hands each
// rule its decision, and the adjusted p-value reported is the one decided
// on.
//
// The package is pure: plain values in, plain values out, no I/O. Renderers
// (CSV, console text, JUnit, Markdown, JSON, HTML) only read a Verdict; see
// package report.
package gate
