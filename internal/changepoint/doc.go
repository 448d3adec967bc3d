// Package changepoint finds the points where a series of measurements (one
// value per experiment, oldest first) shifts to a different distribution:
// E-divisive means (Matteson & James, "A Nonparametric Approach for Multiple
// Change Point Analysis of Multivariate Data", JASA 2014), with a permutation
// test deciding each split, as Apache Otava (formerly Hunter) and MongoDB's
// signal-processing-algorithms do. It is pure: no I/O, and every random draw
// comes from a seeded generator, so equal inputs give equal change points.
//
// # Statistic
//
// For a split of values Z = z_a … z_{b-1} into X = z_a … z_{τ-1} (n values)
// and Y = z_τ … z_{b-1} (m values) the energy statistic, with exponent 1, is
//
//	Q(X, Y) = n·m/(n+m) · ( 2/(n·m)·Σ|x_i − y_j| − Σ_{i<k}|x_i − x_k|/C(n,2) − Σ_{j<k}|y_j − y_k|/C(m,2) )
//
// the scaled sample energy distance between the two sides (the same Q as
// Otava's PairDistanceCalculator and MongoDB's calculators). It is large when
// the sides differ in location (or spread) and near zero when they are draws
// of one distribution. As in the paper and in Otava, the right side need not
// reach the interval's end: an interval z_a … z_{b-1} proposes the τ of the
// largest Q(z_a … z_{τ-1}, z_τ … z_{κ-1}) over every τ < κ ≤ b, so that a
// shift that is undone later (a regression, then its fix) stands out as
// clearly as a lasting one. Every within-sum comes from running sums, O(L²)
// for all (τ, κ) of an interval of L values together.
//
// # Procedure
//
// Divisive, as in the paper: the series starts as one interval; in each
// round every interval of at least 2·MinSegment values proposes its best
// split (largest Q with both parts at least MinSegment long), the best
// proposal over all intervals is the candidate, and it is accepted when
// significant. The permutation test is the paper's: each of Permutations
// rounds shuffles the values within every current interval independently
// and records the largest Q any interval then proposes; the p-value is
// (1 + #{permuted Q ≥ observed Q}) / (Permutations + 1), which is never 0
// and keeps the test's level. The candidate is a change point when p ≤
// Alpha; the first candidate that is not stops the procedure. A test stops
// drawing permutations as soon as enough permuted Q exceed the observed one
// to make p > Alpha (Besag & Clifford), which changes no decision.
//
// Differences from the tools it follows, and why:
//
//   - MongoDB's implementation fixes κ at the interval's end, which is
//     cheaper (O(L) splits) but weak for a shift that is undone within the
//     interval; mqgate maximises over κ like the paper and Otava. The cost,
//     O(L²) per interval and permutation, is why a caller with very long
//     series (a thousand experiments) should analyse the newest part.
//   - Segments have at least MinSegment values (default and least 5).
//     Otava's divisive detector has no minimum (a side of one value is
//     allowed; its calculator gives single values zero weight), and its
//     default analysis runs it in windows of 50 with a Student's t-test;
//     MongoDB's has no minimum either. A minimum keeps one outlier
//     experiment from becoming a segment and gives each segment's median
//     meaning. A series shorter than 2·MinSegment is not tested at all
//     (Result.Reason says so).
//   - The p-value counts the observed split (1 + …); Otava and MongoDB
//     divide the count of exceedances alone by Permutations + 1, which can
//     give p = 0 and a level slightly above the one asked.
//
// Defaults: Alpha 0.01, 199 permutations (so the smallest p-value is 0.005),
// MinSegment 5. MongoDB's defaults are 0.05 and 100 permutations; Otava's
// permutation variant uses 100 permutations and its t-test default is 0.001.
//
// # Autocorrelated series
//
// The permutation test assumes that the values of an unchanged series are
// exchangeable. Experiment histories often are not: a machine's slow drift
// makes neighbouring experiments alike, and with AR(1) noise of lag-1
// autocorrelation φ = 0.6 the plain test finds a change point in 77 % of
// 100-value series without one (38 % of 30-value series) at Alpha 0.01.
// Detect therefore can pre-whiten, as Robbins, Gallagher, Lund & Aue
// ("Mean shift testing in correlated data", J. Time Series Analysis 32(5),
// 2011) do for mean-shift tests: the statistic and the permutations work on
// w_0 = √(1−φ²)·u_0, w_i = u_i − φ·u_{i−1} (Prais–Winsten; u the centred
// values), whose noise is close to independent, while locations and
// segment medians stay those of the values. A step of the values stays a
// step of w (from the same index, (1−φ) as high, after one value of its
// full height). Options.Autocorrelation says how: 0 (the zero value) tests
// the values as they are, a φ in (0, 1) whitens with it, NaN estimates it
// from the series alone.
//
// φ is estimated around a segmentation, since a shift of level looks like
// autocorrelation (Lag1): the values are first segmented as they are, then
// φ is the lag-1 autocorrelation of the values around their segment means,
// corrected for the bias of the K estimated means (E[r] ≈ φ − K(1+3φ)/n;
// Kendall 1954, Marriott & Pope 1954). Only an estimate above 1.5 standard
// errors √((1−φ²)/n) is used, raised by 2 standard errors (at most 0.9):
// whitening too little is what makes the test find changes that are not
// there. Lag1 pools several series (history pools the series of one
// magnitude: one machine's drift), which estimates φ far better than one
// series of 30 values, whose standard error is near 0.2; Share pools only
// the series that can be shown to share φ (a homogeneity test of their
// autocorrelations) and gives the others their own, since pooling 3
// series of φ = 0.8 with 8 independent ones whitened the 3 with 0.22 on
// average and failed history's gate in 11.5 % of such histories.
//
// Measured (AR(1) normal noise, φ = 0.6, Alpha 0.01, 1,000 seeded series
// each, no change), φ estimated from each series alone: a false change
// point in 1.1 % of 100-value series (plain test: 76.6 %) and 8.3 % of
// 30-value ones (plain: 37.9 %); whitened with the true φ, 30-value series
// are at the level (TestSimShortSeriesLevel). The excess of the 30-value
// series lies wholly in the 13 % of them whose estimate, taken around a
// plain segmentation that already split the drift, stays below 1.5
// standard errors, so that they are not whitened; docs/methods.md says
// why no estimate from 30 values alone can fix that without losing the
// power to find real steps. Estimated alone, φ is sometimes high by
// chance in independent series, which then lose power: a step of 4 sd at 20
// of 30 independent values is found at its index in 86.5 % of series
// (plain: 94.9 %); pooled over a history's series that does not happen.
// A test of change points already found can weigh them instead: Wander
// compares the segments, by the Bayesian information criterion, with an
// AR(1) process about one level, and gives the AR(1) fit's φ when that
// explains the series better (history's gate uses it for a series no φ is
// pooled for: one series of φ = 0.8 failed the gate in 1.45 % of unchanged
// histories without it, 1.07 % with it, with no row of power more than 0.3
// points lower).
// Iterating estimate and segmentation to a fixed point reached 1.0 % and
// 4.9 % but can run away: a shift lost in one round inflates the next
// estimate of φ, which loses it for good. Block permutation (Kirch, "Block
// permutation principles for the change analysis of dependent data", J.
// Statistical Planning and Inference 137(7), 2007) was not taken: a history
// of 30 experiments holds too few blocks for a permutation test.
//
// # Size of a shift
//
// Each change point reports the medians of the segment before it and of the
// segment after it in the final segmentation, and their ratio after/before:
// above 1 the values rose (for latencies: slower).
//
// LocalTest re-tests one change point against the two segments around it with
// as many permutations as asked, for gates that need p-values finer than
// 1/(Permutations+1), e.g. to correct for many series at once; it whitens
// with the φ its caller gives (the series' Result.Autocorrelation).
package changepoint
