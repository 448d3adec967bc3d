// Package seq is the sequential form of the paired gate: pairs of
// interleaved runs are fed one at a time, in the order measured, and after
// each the gate says Continue, Pass, Fail, Spent (budget used up) or
// Refused, with a guarantee that holds however often it is looked at and
// whenever it is stopped: a family with no check's median pair ratio worse
// than δ_fail is ever failed with probability at most Level, and a family
// with some check's median pair ratio worse than δ_pass is ever passed with
// probability at most Level.
//
// The estimand is the median of the pairs' ratios B/A (paired.Estimand),
// and every decision rests on sign statistics: the count of pairs whose
// log ratio lies beyond the fail margin (FAIL), or within the pass margin
// (PASS). Under independent pairs whose median sits at the margin that
// count is Binomial(n, ½) whatever the pairs' distribution (skewed, with
// rare modes, heavy tailed), and smaller in distribution when the median
// lies on the safe side, so the guarantee needs no symmetry and no shift
// model. Ties at a margin count on the side that decides nothing.
//
// With a budget (MaxPairs, as run ab --max-runs gives), the boundaries are
// exact group-sequential sign tests: looks at every pair from DecideFrom to
// the budget, the level spent by the O'Brien–Fleming-type function of Lan
// and DeMets (1983), the count's null distribution carried exactly from
// look to look. Without one, each check has e-processes, mixtures of fixed
// bets on each pair lying beyond the margin (a nonnegative supermartingale
// under the null; Ville's inequality). The budgeted boundaries pass and
// fail far more often by 40 pairs (docs/methods.md has the figures).
//
// FAIL: any check's fail statistic crosses at level Level/K (Bonferroni
// over the K checks). PASS: every check's pass statistic has crossed at
// level Level (an intersection–union test, Berger 1982: a false PASS needs
// the one check worse than δ_pass to cross, so no split of the level is
// needed).
//
// Before a decision the pairs so far are tested for serial dependence
// (paired.SerialDependence, the lag-1 autocorrelation of their log ratios
// in measured order, pooled over the checks, at 10 %), as the boundaries
// assume independent pairs. When it is significant, a gate with a budget
// holds: it takes pairs to the budget and then decides once by the fixed
// design (paired.Analyze) at the level its boundaries had not spent. That
// analysis tests the pairs as the sign tests feel them, clipped about the
// margins, and when they are dependent judges blocks of consecutive pairs
// sized from the bias-corrected autocorrelation of the checks near a
// margin (paired.BlockForSample), refusing when too few blocks remain; a
// check every pair of which clips to a constant is judged on its pairs. A
// gate without a budget stops as Refused. No decision comes before
// DecideFrom pairs, so that the test has the pairs to see a strong
// dependence.
package seq
