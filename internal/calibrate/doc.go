// Package calibrate measures what a statistical gate (package gate) does on
// this machine's noise: given a pool of at least 2N unchanged runs, it
// splits them into N reference and N candidate runs many times (seeded
// random splits, or consecutive blocks in run order), judges each split as
// compare would (gate.Judge over every check at once, Holm's correction),
// and reports the measured false-fail rate of the whole gate with its
// Clopper–Pearson interval. Making every candidate value worse by known
// factors gives the power curve: the rate at which the gate, and a single
// check, detect a regression of each size, and the smallest regression
// detected with 95 % power at this N. Results are rendered as text, JSON and
// a plot.
//
// Random splits of one pool judge a permutation of the same runs, so when
// runs are exchangeable the measured rate is at most the level asked by
// construction, and the splits are not independent (the interval is
// optimistic). What random splits cannot show is drift: the ordered split
// puts the reference runs before the candidate runs, as CI does.
package calibrate
