// Package dist holds the distributions and tests the gates' inference
// needs, once: Student's t and normal quantiles, the Shapiro–Wilk normality
// test, the Clopper–Pearson binomial interval, and the rank tests of the
// shift rule (Compare: the Hodges–Lehmann ratio with its Mann–Whitney
// interval and one-sided p-value). It is pure, like package stats, but
// builds on gonum's distributions, which stats, a leaf package, does not
// import.
package dist
