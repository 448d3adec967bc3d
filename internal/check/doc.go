// Package check judges one experiment against a requirements file (formats §4),
// replacing the Fast-RTPS latency_check_experiment.py script, and its
// throughput summaries against throughput requirements (EvaluateThroughput:
// lower limits on the Median [msg/s], higher is better).
//
// For every summary measurements_<type>_summary.csv in the experiment
// directory it checks, per payload, the Median, 99% and Max latencies against
// the requirement (passed when Experiment ≤ Requirement), and writes:
//
//	<experiment>/checks_<type>.csv                        the check report
//	<plots>/measurements_<type>/comparison_median.<ext>   experiment and
//	<plots>/measurements_<type>/comparison_99.<ext>       requirement against
//	<plots>/measurements_<type>/comparison_max.<ext>      payload
//
// A payload or sub-experiment that has data but no requirement, or a
// requirement without data (including a required sub-experiment with no
// summary at all), is a Missing check, which fails the gate unless missing
// checks are allowed.
//
// Several candidate runs (or statistical requirements, formats §11) are
// judged together by EvaluateRuns with requirements.Judge: per check passed,
// failed or inconclusive, against the requirement raised by a margin.
//
// Evaluate and EvaluateRuns are pure; Judge does the file work; Run is the
// check tool behind its command line (internal/cliapp/checkcmd).
package check
