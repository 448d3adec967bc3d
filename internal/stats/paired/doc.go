// Package paired compares two builds from interleaved runs: A and B run in
// pairs (A B or B A, the order within a pair drawn at random) or in ABBA
// blocks, so that drift of the machine over the series is common to both
// sides of a unit and cancels in its log ratio. Each unit gives one log ratio
// per check; every inference is on those ratios, in "badness" (the log ratio
// B/A, negated for a higher-is-better metric, so that a regression is
// positive).
//
// Analyze is the fixed design. Its estimand (Estimand) is each check's
// median pair ratio B/A, and its tests are exact sign tests: the count of
// units beyond a margin is Binomial(n, ½) when the median sits at the
// margin, for independent units of any distribution (skewed, with a rare
// slow mode, heavy tailed), so the verdict needs no symmetry and no shift
// model. Decisions compare counts with critical counts computed in
// integer arithmetic; a bound reported is an order statistic of the
// ratios, beyond a margin exactly when the test rejects there, and a
// ratio at a margin up to rounding decides nothing.
//
//   - FAIL: some check's units lie beyond log(1+δ_fail) in at least the
//     critical count at level Tail/K (Bonferroni over the K checks:
//     family-wise error Tail, whatever the dependence between checks);
//   - PASS: every check's units lie within log(1+δ_pass) in at least the
//     critical count at level Tail: an intersection–union test (Berger
//     1982, "Multiparameter hypothesis testing and acceptance sampling",
//     Technometrics 24: 295–300), as a false PASS needs the one check that
//     is worse than δ_pass to pass its own test;
//   - below MinPairs units (7 at 1 %, 12 for a FAIL among 22 checks) no
//     test can reach its level, as the smallest sign-test p-value of n
//     units is 2⁻ⁿ: the verdict is inconclusive and says how many units
//     it needs.
//
// Before deciding, SerialDependence tests the units in measured order for
// lag-1 autocorrelation (a randomisation test pooled over the checks);
// when significant, the verdict is on the means of blocks of consecutive
// units, doubled until the blocks test independent, or refused when too
// few blocks would be left (Dependence says which).
//
// Plan finds from A/A pairs the number of units at which an unchanged
// system passes, and a given regression fails, with a required probability.
//
// Within a unit the two sides must be exchangeable when nothing changed: with
// a fixed order (always A first) a drift within the unit biases every ratio,
// which randomising the order or ABBA blocks prevent. The package is pure:
// plain slices in, plain structs out, no I/O.
package paired
