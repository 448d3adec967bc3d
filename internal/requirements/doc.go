// Package requirements owns the latency requirements of formats §4: the
// requirements CSV (header "Experiment type,Bytes,Median,99%,Max", one row
// per sub-experiment and payload, 3 decimals), read with errors that name
// file, line and column, and written atomically; and Derive, which sets each
// requirement to a percentile, over many experiments, of their summaries'
// Median, 99% and Max.
//
// Derive also says how much a requirement can be trusted: how many
// experiments back it, and the chance that an unchanged system fails its
// check on the next run (see Derivation). A requirement at the 99th
// percentile of 5 runs is, in effect, their maximum, and fails about one run
// in six; Derive warns about it.
//
// Derive is pure: plain values in, plain values out, no I/O.
package requirements
