package mechanisms

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// laplaceRadius draws the length of n-dimensional Laplace noise of parameter ε: Gamma with
// shape n and scale 1/ε (Fernandes et al. 2019, Def. 6 and Thm. 4.1). gonum's Beta is the
// rate, hence Beta: ε.
func laplaceRadius(rng *rand.Rand, n int, epsilon float64) float64 {
	return distuv.Gamma{Alpha: float64(n), Beta: epsilon, Src: rng}.Rand()
}

// sphereDirection fills u with a direction uniform on the unit sphere: standard normals
// divided by their norm (Marsaglia 1972), redrawn in the (probability-zero) case of norm 0.
func sphereDirection(rng *rand.Rand, u []float64) {
	for {
		sq := 0.0
		for i := range u {
			u[i] = rng.NormFloat64()
			sq += u[i] * u[i]
		}
		if sq > 0 {
			norm := math.Sqrt(sq)
			for i := range u {
				u[i] /= norm
			}
			return
		}
	}
}
