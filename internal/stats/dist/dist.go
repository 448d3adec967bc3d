package dist

import "gonum.org/v1/gonum/stat/distuv"

// TQuantile is the p-quantile of Student's t with df degrees of freedom.
func TQuantile(df int, p float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(p)
}

// TSurvival is P(T > x) for Student's t with df degrees of freedom.
func TSurvival(df int, x float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Survival(x)
}

// NormalQuantile is the p-quantile of the standard normal distribution.
func NormalQuantile(p float64) float64 { return distuv.UnitNormal.Quantile(p) }

// ClopperPearson returns the exact (Clopper–Pearson) two-sided interval at
// confidence 1 − alpha for a binomial proportion with k successes in n
// trials.
func ClopperPearson(k, n int, alpha float64) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	if k > 0 {
		lo = distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(alpha / 2)
	}
	hi = 1
	if k < n {
		hi = distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - alpha/2)
	}
	return lo, hi
}
