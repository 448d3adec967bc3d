// Package check judges experiments against requirements files (formats §4,
// §9, §11), replacing the Fast-RTPS latency_check_experiment.py script and
// its throughput (burst) check.
//
// Latency, throughput and burst requirements are all requirements.KeyedRow,
// limits on metrics whose direction makes them upper or lower limits, and
// one loop judges them all (kind.judge); what sets the kinds apart (the
// tables read, the order of the checks, the wording of a missing check,
// the report columns, the plots) is data of each kind. Per latency summary
// measurements_<type>_summary.csv it checks, per payload, the Median, 99%
// and Max (passed when Experiment ≤ Requirement), and writes:
//
//	<experiment>/checks_<type>.csv                        the check report
//	<plots>/measurements_<type>/comparison_median.<ext>   experiment and
//	<plots>/measurements_<type>/comparison_99.<ext>       requirement against
//	<plots>/measurements_<type>/comparison_max.<ext>      payload
//
// and likewise checks_throughput_<type>.csv and throughput_<type>/check_<load>
// plots, and checks_burst_<type>.csv. A latency or throughput row measured
// without requirement, or a requirement without data, is a Missing check,
// which fails the gate unless missing checks are allowed. One run against
// percentile requirements is judged by the plain rule of formats §4;
// several runs, a margin or statistical requirements (formats §11) by
// requirements.Judge: passed, failed or inconclusive.
//
// Judge does the file work; Run is the check tool behind its command line
// (internal/cliapp/checkcmd).
package check
