// Package requirements owns the latency requirements of formats §4 and §11:
// the requirements CSV (header "Experiment type,Bytes,Median,99%,Max", one
// row per sub-experiment and payload, 3 decimals, optionally a Latency
// column and, for statistical requirements, the model columns of §11), read
// with errors that name file, line and column, and written atomically.
//
// DeriveInput derives every requirement of an Input (the experiments of a
// results root, admitted together) in one of two ways:
//
//   - the Fast-RTPS percentile mode (derive): each limit is a percentile over
//     the runs. It says how much a requirement can be trusted (the chance
//     that an unchanged system fails its check on the next run, see
//     Derivation); a requirement at the 99th percentile of 5 runs is in
//     effect their maximum and fails about one run in six.
//   - DeriveStatistical: limits that an unchanged system fails with a
//     stated probability for a whole check, split over the checks by
//     Bonferroni; distribution-free (the largest run below 19 runs, then
//     the reference runs' 90th percentile, orderRankFor; failed only when
//     so many candidate runs exceed it that an unchanged system would do
//     so with chance at most the check level, orderTail) or log-normal
//     prediction bounds, used only where the runs can back the check level
//     (never on the word of a normality pretest).
//
// Every derivation also tests each check's runs for drift over run order
// (driftOf: Mann–Kendall, Holm over the checks), reported beside the
// requirements file (WriteDrift, PrintDrift), and the runs' serial
// correlation pooled over every check (pooledSerial): statistical requirements from correlated runs are
// refused, as their false-fail level rests on exchangeable runs.
//
// Throughput requirements (min_throughput_requirements.csv) are lower
// limits on the Median [msg/s] of each sub-experiment, payload and offered
// load, and burst requirements limit each payload's lost samples and
// subscription throughput; both are KeyedRows, limits by metric name.
// deriveThroughput takes the low percentile of the runs,
// DeriveThroughputStatistical applies the latency rules to the reciprocals
// (seconds per message), so every guarantee carries over.
//
// Judge is the other half of the statistical model: it judges the values of
// one or more candidate runs against one Limit (a metric, its limit and its
// model), passed, failed or inconclusive, in the metric's direction.
//
// CheckGate and CheckPool calibrate statistical requirements and a
// multi-run check together (package calibrate); PrintTable, PrintStatTable
// and PrintThroughputTable render a derivation for people.
//
// The derivations and Judge are pure: plain values in, plain values out, no
// I/O. The requirements tool (flags, experiment folders, --runs,
// --calibrate, output files, exit codes) is internal/requirementsapp.
package requirements
