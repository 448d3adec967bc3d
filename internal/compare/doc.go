// Package compare is the regression gate between two experiments: a target
// (the results under test) and a reference (a known-good run). It is the
// engine of the compare tool, which replaces the Fast-RTPS script
// latency_compare_experiments.py and keeps its flags, file names and CSV
// layout (formats §4).
//
// The flow is accumulate, then render. experiment.Load reads each side's
// experiment directory (summaries, meta.json); CompareRuns admits the two
// together (experiment.Admit: an incomplete run only with AllowIncomplete,
// one latency definition), pairs the sub-experiments of the two sides,
// checks that they cover the same payloads, and gates every selected column
// of every payload (and, for throughput summaries, the Median [msg/s] of
// every payload and offered load, higher is better: ThroughputResult):
//
//	lower-is-better metric:  fails when target > reference × (1 + threshold)
//	higher-is-better metric: fails when target < reference × (1 − threshold)
//
// A value exactly at the limit passes. The direction of each metric comes
// from package result, shared with check. The Fast-RTPS script applies its
// threshold outside the comparison (a misplaced parenthesis), so that every
// increase fails whatever the threshold; this package does not.
//
// The Result is then rendered: the comparison CSV of each sub-experiment
// and file kind (Sub), its comparison plots (Figures: <type>_min_median and
// <type>_max_99%, plus the other gated columns two by two; the reference
// dashed, the results solid, regressions marked), a gate.Verdict for the
// console text and the JUnit, Markdown and JSON reports of package report
// (Verdict), and an HTML page (Page). App wires all of this into the compare
// command.
//
// With two or more runs per side known to be interleaved (Config.Series,
// run ab's series file; or Config.Pairing PairAlways, which pairs them by
// name; package pairing), the comparison is paired (gate.ModePaired): names
// alone pair nothing, as runs of two separate loops share them. Every
// check is judged on the per-pair log ratios by package stats/paired, so
// that a drift common to the two runs of a pair cancels: exact sign tests
// of each check's median pair ratio read in three zones (Config.Margins),
// FAIL at the family level over the checks (Bonferroni), PASS when every
// check passes at the level (intersection–union), neither below the
// fewest pairs an exact test needs, the pairs blocked or the verdict
// refused when they are serially dependent. With Config.Series (run ab's series
// file, found beside the two sides' folders or given with --series) the
// units are the file's pairs or ABBA blocks, and runs that do not match
// it are an input error. Config.Pairing forces or refuses it;
// unpaired, the Verdict's Decision says that drift is not controlled and
// tests each side's run order for a trend (Mann–Kendall). Plan sizes the
// paired gate from A/A pairs.
//
// Run refuses, before anything is written, a flag the mode does not use
// (Invocation.Given), the same run on both sides, and a plots directory
// that another compare is writing into (claimDir); a signal ends every
// mode at once with exit 130.
//
// When both experiments carry a meta.json and their host fingerprints
// differ, the result carries a warning (formats §6): the latencies of two
// machines are not comparable.
//
// A result sub-experiment without a reference, payload sets that differ
// between the two sides, or unreadable summaries are input errors (exit 2):
// there is nothing to gate on. A reference sub-experiment absent from the
// results fails the gate unless AllowMissing is set.
package compare
