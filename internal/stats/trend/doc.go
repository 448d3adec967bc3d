// Package trend tests a series of runs, in run order, for drift: the
// Mann–Kendall test (Mann 1945, "Nonparametric tests against trend",
// Econometrica 13: 245–259; Kendall 1975, Rank Correlation Methods), which
// is Kendall's tau between the run index and the values, with Sen's slope
// (Sen 1968, JASA 63: 1379–1389), the median change per run. A baseline
// that drifts makes an unpaired comparison fail an unchanged candidate run
// after it; this says so as a fact beside the verdict. It is pure and
// depends on the standard library and package stats only.
package trend
