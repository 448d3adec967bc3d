// Package seq is the sequential form of the paired gate: pairs of
// interleaved runs are fed one at a time, and after each the gate says
// Continue, Pass or Fail, with a guarantee that holds however often it is
// looked at and whenever it is stopped: an unchanged family (no check worse
// than δ_fail) is ever failed with probability at most Level, and a family
// with a check worse than δ_pass is ever passed with probability at most
// Level.
//
// The method is a test supermartingale per check and margin, from the
// self-normalised exponential process of conditionally symmetric
// increments: when the increments X_i are symmetric about 0 given the past,
// exp(λ·ΣX − λ²·ΣX²/2) is a nonnegative supermartingale for every λ (de la
// Peña 1999, "A general class of exponential inequalities for martingales
// and ratios", Ann. Probab. 27: 537–564; Howard, Ramdas, McAuliffe and
// Sekhon 2020, "Time-uniform Chernoff bounds via nonnegative
// supermartingales", Probab. Surveys 17: 257–317, the "symmetric" case of
// their Table 3). Mixing λ ≥ 0 over a half-normal of precision ρ gives the
// closed-form one-sided normal-mixture e-process of Howard, Ramdas,
// McAuliffe and Sekhon 2021, "Time-uniform, nonparametric, nonasymptotic
// confidence sequences", Ann. Statist. 49: 1055–1080:
//
//	E = 2·√(ρ/(V+ρ))·exp(S²/(2(V+ρ)))·Φ(S/√(V+ρ)),  S = ΣX, V = ΣX²,
//
// and Ville's inequality bounds the chance that it ever reaches 1/α by α.
// For the fail side X_i is a pair's log ratio less log(1+δ_fail): a check
// at the margin has increments symmetric about 0, and one below it
// symmetric about a negative centre, for which the process is still a
// supermartingale for λ ≥ 0 (with u = λx, e^{u−u²/2} averages to at most 1
// over any two values u₁ + u₂ ≤ 0). For the pass side X_i is log(1+δ_pass) less the
// log ratio. Symmetry is what the sign-flip test of package paired
// assumes: the two runs of a pair are exchangeable when nothing changed
// (draw the order within each pair at random, or feed ABBA blocks' means).
//
// Family-wise: each of the K checks' e-processes is compared with K/Level
// (Bonferroni over e-values), so that the bounds of all checks hold
// together, as the fixed design's max-T bounds do; the verdict is read
// from the three zones as in package paired. ρ only tunes where the bounds
// are tightest, never the guarantee.
package seq
