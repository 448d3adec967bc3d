// Package stats computes the summary statistics of formats §3 exactly as numpy
// does, so that mqgate's summaries equal the Fast-RTPS scripts' to the last
// printed digit. It is pure: plain slices in, plain values out, no I/O.
//
// Exactness needs numpy's own arithmetic, not just its definitions:
//
//   - Sums use numpy's pairwise summation (blocks of 128 summed with eight
//     accumulators, halves split at multiples of eight) applied per chunk of
//     8192 elements, numpy's ufunc buffer size, with the chunk sums added in
//     order: what np.sum, np.mean and np.std do on a float64 array.
//   - Percentiles use numpy's default "linear" method with its
//     interpolation formula: h = (n−1)·p/100, and between the two
//     neighbouring order statistics a and b with t = h − ⌊h⌋ the value is
//     a + (b−a)·t when t < 0.5 and b − (b−a)·(1−t) otherwise (numpy ≥ 1.22).
//   - Standard deviation is numpy's two-pass population formula
//     sqrt(Σ(x−x̄)²/n) with both sums pairwise.
//
// gonum's stat.Quantile implements other quantile definitions and gives
// different numbers, which is why this package exists.
//
// It also holds the multiple-comparison corrections the gates share (Holm,
// Bonferroni); the distributions their inference needs are in package
// stats/dist.
package stats
