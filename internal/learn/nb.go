package learn

import (
	"fmt"
	"math"
)

// NBOptions configure a MultinomialNB.
type NBOptions struct {
	// Alpha is the additive (Lidstone) smoothing of feature counts (> 0).
	Alpha float64 `toml:"alpha"`
}

// DefaultNBOptions are α = 0.01, the value of SynTF's analyst (Weggenmann and Kerschbaum 2018,
// Sect. 5).
func DefaultNBOptions() NBOptions { return NBOptions{Alpha: 0.01} }

// MultinomialNB is multinomial naive Bayes over non-negative feature values (counts or
// tf-idf weights). With N_cj the summed value of feature j over the training vectors of class
// c, N_c = Σ_j N_cj and d the number of features,
//
//	log P(j | c) = ln((N_cj + α) / (N_c + α d)),   log P(c) = ln(n_c / n),
//
// and a vector x scores log P(c) + Σ_j x_j log P(j | c). All arithmetic is in log space.
// A class with no training vector has log P(c) = −∞ and is never predicted.
type MultinomialNB struct {
	opts     NBOptions
	dim      int
	logPrior []float64
	logProb  [][]float64 // per class, dim values
}

// NewMultinomialNB validates opts and returns an unfitted model.
func NewMultinomialNB(opts NBOptions) (*MultinomialNB, error) {
	if !(opts.Alpha > 0) || math.IsInf(opts.Alpha, 0) {
		return nil, fmt.Errorf("nb: alpha = %v: want a finite number > 0", opts.Alpha)
	}
	return &MultinomialNB{opts: opts}, nil
}

// Fit estimates the class priors and feature probabilities from X with labels y in
// 0…classes-1. The number of features d is the largest index in X plus one. Negative values
// are an error.
func (m *MultinomialNB) Fit(X []Sparse, y []int, classes int) error {
	if err := checkTraining("nb", len(X), len(y), y, classes); err != nil {
		return err
	}
	m.dim = MaxDim(X)
	counts := make([][]float64, classes)
	for c := range counts {
		counts[c] = make([]float64, m.dim)
	}
	docs := make([]float64, classes)
	for i, x := range X {
		for k, v := range x.Value {
			if v < 0 {
				return fmt.Errorf("nb: vector %d has negative value %v at feature %d", i, v, x.Index[k])
			}
		}
		x.AddScaledTo(counts[y[i]], 1)
		docs[y[i]]++
	}
	a := m.opts.Alpha
	m.logPrior = make([]float64, classes)
	m.logProb = counts
	for c, row := range counts {
		m.logPrior[c] = math.Log(docs[c] / float64(len(X)))
		var total float64
		for _, v := range row {
			total += v
		}
		logDen := math.Log(total + a*float64(m.dim))
		for j, v := range row {
			row[j] = math.Log(v+a) - logDen
		}
	}
	return nil
}

// JointLogLikelihood returns log P(c) + Σ_j x_j log P(j | c) for every class; features beyond
// the training dimension are ignored.
func (m *MultinomialNB) JointLogLikelihood(x Sparse) []float64 {
	out := make([]float64, len(m.logPrior))
	for c, lp := range m.logPrior {
		out[c] = lp + x.DotDense(m.logProb[c])
	}
	return out
}

// Predict returns the most probable class (the lowest class on ties).
func (m *MultinomialNB) Predict(x Sparse) int { return argmax(m.JointLogLikelihood(x)) }
