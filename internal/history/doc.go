// Package history follows a messaging system's latency across many
// experiments (typically one per commit or nightly build) and renders it as
// plots, a CSV table and an HTML page. It is the library behind the history
// command, which replaces the Fast-RTPS latency_plot_history.py script and
// writes its plots under the same file names.
//
// The work goes in three steps, accumulate then render:
//
//   - Load reads the experiments under a results root with
//     experiment.LoadRoot (the rule every tool shares: which entries are
//     experiments, which are skipped with a warning), admits them together
//     (experiment.Admit: incomplete runs only when allowed, one latency
//     definition) and orders them chronologically: by the start time in
//     meta.json when present, else by the folder name parsed as
//     YYYY-MM-DD_HH-MM-SS, ties broken by name. Folders with neither sort
//     after the dated ones, by name.
//   - Build arranges their summaries, and their throughput summaries as
//     series of their own (Messages/s, higher is better), and their burst
//     summaries (lost samples and subscription throughput), into a
//     History: for each
//     sub-experiment, payload and magnitude (Min, Median, Max, 99%) one value
//     per experiment, NaN where an experiment lacks the sub-experiment or
//     payload. Gaps and missing requirements are warnings
//     carried in History.Warnings, not errors.
//   - DetectChanges looks for change points in every series (a
//     sub-experiment's payload and magnitude) over the newest
//     ChangeOptions.Window experiments with internal/changepoint (E-divisive
//     means, seeded permutation test, segments of at least 5 experiments),
//     in parallel, each series with its own seed derived from the user's,
//     pre-whitened when autocorrelated (φ per series, pooled over the series
//     of a magnitude that share it, changepoint.Share);
//     Gate then judges each gated series by every change point in
//     GateOptions.Window not acknowledged in the Ack file read by ReadAcks
//     (the level after it against the segment before it, when slower by more
//     than MinChange, by a permutation test) and by the window's trend
//     (trend.TestSerialPhi, φ from the values before the window), the tests
//     of a series sharing its level, Holm over the series; a series without such a test is decided by the first
//     rule that applies (acknowledged, below MinChange, not a slowdown,
//     outside the window, no change point; formats §10), and every report
//     names the rule.
//   - Renderers only read the History: Records / WriteCSV (history.csv),
//     Jobs / RenderPlots (magnitude and payload history plots, in parallel on
//     a pool of GOMAXPROCS workers, change points marked), Page (the
//     self-contained HTML report) and JSONDoc (change points and the gate's
//     verdict).
//
// Plot files, relative to the plots directory, keep the Fast-RTPS names:
//
//	<type>/history_<Min|Median|Max|99>.<ext>      one series per payload
//	<type>/<bytes>_bytes_<Median|99|Max>.<ext>    one payload, with its requirement
//
// so a run draws 4·T + 3·Σ payloads(T) plots for T sub-experiments: 370 for
// the ten built-in sub-experiments with eleven payloads each. A burst
// series (formats §9) keeps the Fast-RTPS throughput script's names:
//
//	<type>/history_<lost_samples|subscription_throughput_mbs>.<ext>
//	<type>/<bytes>_bytes_<lost_samples|subscription_throughput_mbs>.<ext>
//
// The x axis names experiments by folder name plus the system-under-test
// version, else commit, from meta.json. With many experiments at most
// MaxLabels of them are labelled (every k-th, counted back from the newest,
// which is always labelled), at 45°, with room kept at the left so the first
// label is not clipped.
//
// synth.Generate writes deterministic, seeded experiment folders for tests
// and benchmarks; GenerateRequirements their requirements.
package history
