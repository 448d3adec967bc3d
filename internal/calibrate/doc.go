// Package calibrate measures what a statistical gate does on this machine's
// noise: given a pool of unchanged runs, it splits them many times into
// reference and candidate runs (seeded random splits, or consecutive
// blocks in run order), judges each split as the gate would judge a real
// comparison, and reports the measured false-fail rate of the whole gate
// with its Clopper–Pearson interval and how often it passed or was
// inconclusive. Making every candidate value worse by known factors gives
// the power curve: the rate at which the gate, and a single check, detect a
// regression of each size, the verdict shares per factor, and the smallest
// regression detected with 95 % power at these runs. Runs of a real, known
// regression (Options.Regressed) give its detection rate. Results are
// rendered as text, JSON and two plots (power curve, verdict shares).
//
// The gate is a Gate: CompareGate is compare's statistical gate (package
// gate, Holm's correction over every check); package requirements provides
// the gate that statistical requirements and a multi-run check make
// together. Both sides of a split may differ in size (a check's baseline
// and candidate runs).
//
// Random splits of one pool judge a permutation of the same runs, so when
// runs are exchangeable the measured rate is at most the level asked by
// construction, and the splits are not independent (the interval is
// optimistic). What random splits cannot show is drift: the ordered split
// puts the reference runs before the candidate runs, as CI does, and the
// blocked split deals windows of consecutive runs in alternating blocks;
// every report says which split was used (SplitNote). A threshold chosen
// from a calibration is validated on held-out runs (HeldOut): chosen on
// the first half of the pool, judged on the later half.
package calibrate
