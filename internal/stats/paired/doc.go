// Package paired compares two builds from interleaved runs: A and B run in
// pairs (A B or B A, the order within a pair drawn at random) or in ABBA
// blocks, so that drift of the machine over the series is common to both
// sides of a unit and cancels in its log ratio. Each unit gives one log ratio
// per check; every inference is on those ratios, in "badness" (the log ratio
// B/A, negated for a higher-is-better metric, so that a regression is
// positive).
//
// Analyze is the fixed design:
//
//   - per check, the exact (or randomised) sign-flip permutation test of the
//     mean log ratio (Fisher 1935; Pitman 1937) and the Wilcoxon signed-rank
//     test, each one-sided for "B is worse";
//   - family-wise control by Westfall–Young max-T (Westfall and Young 1993,
//     Resampling-Based Multiple Testing, algorithm 2.8): the same sign flip is
//     applied to every check of a unit, so the reference distribution of the
//     largest studentised statistic carries the dependence between checks and
//     the adjustment is less severe than Holm's worst case;
//   - simultaneous bounds for every check's ratio from the same max-T
//     distribution, taken over sign flips of the log ratios less the margin
//     each bound is compared with, so that a bound beyond its margin is
//     exactly the single-step max-T test of that margin: exact, whatever
//     the dependence between checks, when the checks sit at the margin and
//     each unit's ratios are jointly symmetric (Westfall and Young 1993;
//     Romano and Wolf 2005, "Exact and approximate stepdown methods for
//     multiple hypothesis testing", JASA 100: 94–108);
//   - a verdict in three zones read from those intervals (Decide).
//
// Plan finds from A/A pairs the number of units at which an unchanged system
// passes, and a given regression fails, with a required probability.
//
// Within a unit the two sides must be exchangeable when nothing changed: with
// a fixed order (always A first) a drift within the unit biases every ratio,
// which randomising the order or ABBA blocks prevent. The package is pure:
// plain slices in, plain structs out, no I/O.
package paired
