// Package trend tests a series of runs, in run order, for drift: the
// Mann–Kendall test (Mann 1945, "Nonparametric tests against trend",
// Econometrica 13: 245–259; Kendall 1975, Rank Correlation Methods), which
// is Kendall's tau between the run index and the values, with Sen's slope
// (Sen 1968, JASA 63: 1379–1389), the median change per run. A baseline
// that drifts makes an unpaired comparison fail an unchanged candidate run
// after it; this says so as a fact beside the verdict.
//
// Test assumes independent runs. TestSerial is the same test for runs that
// may be serially correlated: it tests the lag-1 autocorrelation of the
// runs less Sen's line (a permutation test) and corrects the variance of
// the Mann–Kendall statistic for AR(1) correlation at the upper 95 % bound
// of φ (Hamed & Rao 1998), so that runs that wander together are not
// reported as a drift more often than the level. TestHinge tests a rise
// that begins at a known run against the runs before it, which fix the
// level (least squares whitened for AR(1) correlation): far more powerful
// than Mann–Kendall for a creep that starts where the runs tested begin.
// It is pure and depends on the standard library and packages stats and
// stats/dist only.
package trend
