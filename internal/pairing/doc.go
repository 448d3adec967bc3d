// Package pairing turns the runs of an interleaved A/B comparison into the
// family of paired checks that package stats/paired (and the sequential
// gate, stats/seq) analyse.
//
// `run ab` writes pair i of a comparison as <out>/reference/<name>-NN and
// <out>/candidate/<name>-NN: the two runs of a pair are the experiments of
// the same name on the two sides. Match pairs the reference and candidate
// experiments by name and refuses runs that do not pair, naming them;
// Checks builds one paired.Check per sub-experiment × row × gated metric,
// each holding the metric's value in every pair, its direction from
// result.Metric; Missing lists the checks of the sub-experiments the
// candidate did not measure, which both tools report missing.
//
// run ab also records the order of the runs in its series file
// (NAME-series.csv, formats §12). ReadSeries reads and checks it, and
// Series.Pairs takes the pairs from its units instead of the names: pairs,
// or ABBA blocks of two pairs each (paired.ABBA), matched to the runs by
// their folders, refusing runs and rows that do not match. A last unit
// that was interrupted is left out: one with a run not listed, or whose
// last run's meta.json says it did not complete.
//
// It sits below the tools so that compare (which analyses the pairs) and
// run ab (which adds pairs until the sequential gate decides) build the
// family the same way.
package pairing
