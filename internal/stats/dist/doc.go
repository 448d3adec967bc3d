// Package dist holds the distributions the gates' inference needs, once:
// Student's t and normal quantiles, the Shapiro–Wilk normality test and the
// Clopper–Pearson binomial interval. It is pure, like package stats, but
// builds on gonum's distributions, which stats, a leaf package, does not
// import.
package dist
