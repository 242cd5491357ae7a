package audit

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// ClopperPearsonLower is the one-sided lower confidence bound at level 1 − a for a binomial
// proportion with k successes in n trials: the a-quantile of Beta(k, n − k + 1), 0 when k = 0
// (Clopper and Pearson 1934).
func ClopperPearsonLower(k, n int, a float64) float64 {
	if k <= 0 {
		return 0
	}
	if k >= n {
		return aPow(a, n)
	}
	return distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(a)
}

// ClopperPearsonUpper is the one-sided upper confidence bound at level 1 − a: the
// (1 − a)-quantile of Beta(k + 1, n − k), 1 when k = n.
func ClopperPearsonUpper(k, n int, a float64) float64 {
	if k >= n {
		return 1
	}
	if k <= 0 {
		return 1 - aPow(a, n)
	}
	return distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - a)
}

// aPow is a^(1/n), the closed form of both bounds at the extremes (k = n below, k = 0 above).
func aPow(a float64, n int) float64 {
	return math.Pow(a, 1/float64(n))
}
