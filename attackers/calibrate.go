package attackers

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"dptext/internal/learn"
)

// CalibrationFolds is the number of folds of CalibrateFit, the default of scikit-learn's
// CalibratedClassifierCV when the PAN 2019 baseline was written (cv = 3).
const CalibrationFolds = 3

// calibrated is one fold of the calibrated attacker: a machine trained on the other folds and
// a Platt sigmoid per class fitted on this fold's decision values.
type calibrated struct {
	model *CharNgram
	a, b  []float64 // per class of the full label set: P(class | f) = 1 / (1 + exp(a·f + b))
	index []int     // class of the full label set → class of the fold's machine
}

// CalibrateFit fits probability estimates for the attacker's candidates the way the PAN 2019
// attribution baseline obtains them (scikit-learn's CalibratedClassifierCV with sigmoid
// calibration around a one-vs-rest SVM): the known texts are split into k stratified folds
// (k = CalibrationFolds, fewer if a candidate has fewer texts); for each fold a fresh attacker
// is trained on the others, and for each candidate a sigmoid 1/(1 + exp(A·f + B)) of its
// decision value f is fitted to the held-out texts by Platt's method (Platt 1999, with the
// Newton iteration of Lin, Lin and Weng 2007). A text's probabilities are, per fold, the
// candidates' sigmoids normalised to sum 1 (for two candidates, p and 1 − p), averaged over
// the folds. Every candidate needs at least two known texts.
func (c *CharNgram) CalibrateFit(rng *rand.Rand, docs [][]string, labels []string) error {
	all := learn.NewLabels(labels)
	y, err := all.Encode(labels)
	if err != nil {
		return err
	}
	byClass := make([][]int, all.Len())
	for i, k := range y {
		byClass[k] = append(byClass[k], i)
	}
	folds := CalibrationFolds
	for k, idx := range byClass {
		if len(idx) < 2 {
			return fmt.Errorf("char-ngram-svm: calibration: candidate %q has %d known text(s): want at least 2 per candidate (one to train on while another is held out)", all.Name(k), len(idx))
		}
		folds = min(folds, len(idx))
	}
	fold := make([]int, len(docs))
	for _, idx := range byClass {
		perm := rng.Perm(len(idx))
		for j, p := range perm {
			fold[idx[p]] = j % folds
		}
	}
	c.calibration = nil
	for f := 0; f < folds; f++ {
		var trainDocs [][]string
		var trainLabels []string
		var held []int
		for i := range docs {
			if fold[i] == f {
				held = append(held, i)
			} else {
				trainDocs, trainLabels = append(trainDocs, docs[i]), append(trainLabels, labels[i])
			}
		}
		m, err := NewCharNgram(c.opts)
		if err != nil {
			return err
		}
		if err := m.Fit(rng, trainDocs, trainLabels); err != nil {
			return fmt.Errorf("calibration fold %d: %w", f+1, err)
		}
		cal := calibrated{model: m, a: make([]float64, all.Len()), b: make([]float64, all.Len()), index: make([]int, all.Len())}
		for k := range cal.index {
			cal.index[k], _ = m.labels.Index(all.Name(k))
		}
		dec := make([][]float64, len(held))
		for j, i := range held {
			dec[j] = m.svm.Decision(m.tfidf.Transform(m.ngrams(docs[i])))
		}
		for k := range cal.index {
			f, target := make([]float64, len(held)), make([]bool, len(held))
			for j, i := range held {
				f[j], target[j] = dec[j][cal.index[k]], y[i] == k
			}
			cal.a[k], cal.b[k] = plattSigmoid(f, target)
		}
		c.calibration = append(c.calibration, cal)
	}
	c.calibrationLabels = all
	return nil
}

// Probabilities returns, per document, the calibrated probability of every candidate (in the
// order of Candidates) after CalibrateFit.
func (c *CharNgram) Probabilities(docs [][]string) ([][]float64, error) {
	if c.calibration == nil {
		return nil, fmt.Errorf("char-ngram-svm: Probabilities before CalibrateFit")
	}
	n := c.calibrationLabels.Len()
	out := make([][]float64, len(docs))
	for i, d := range docs {
		p := make([]float64, n)
		for _, cal := range c.calibration {
			dec := cal.model.svm.Decision(cal.model.tfidf.Transform(cal.model.ngrams(d)))
			q := make([]float64, n)
			sum := 0.0
			for k := range q {
				q[k] = 1 / (1 + math.Exp(cal.a[k]*dec[cal.index[k]]+cal.b[k]))
				sum += q[k]
			}
			if n == 2 { // one binary problem: the second class's probability is the complement
				q[0], sum = 1-q[1], 1
			}
			for k := range q {
				if sum > 0 {
					p[k] += q[k] / sum
				} else {
					p[k] += 1 / float64(n)
				}
			}
		}
		for k := range p {
			p[k] /= float64(len(c.calibration))
		}
		out[i] = p
	}
	return out, nil
}

// Candidates lists the candidates in the order of Probabilities.
func (c *CharNgram) Candidates() []string {
	if c.calibrationLabels == nil {
		return nil
	}
	return slices.Clone(c.calibrationLabels.Names())
}

// plattSigmoid fits P(target | f) = 1/(1 + exp(A·f + B)) by maximum likelihood with Platt's
// smoothed targets ((N₊+1)/(N₊+2) for positives, 1/(N₋+2) for negatives), by Newton's method
// with a backtracking line search on the negative log-likelihood.
func plattSigmoid(f []float64, target []bool) (a, b float64) {
	pos := 0
	for _, t := range target {
		if t {
			pos++
		}
	}
	neg := len(f) - pos
	hi, lo := (float64(pos)+1)/(float64(pos)+2), 1/(float64(neg)+2)
	t := make([]float64, len(f))
	for i := range f {
		t[i] = lo
		if target[i] {
			t[i] = hi
		}
	}
	// loss is the negative log-likelihood, written to avoid overflow of exp.
	loss := func(a, b float64) float64 {
		s := 0.0
		for i, x := range f {
			z := a*x + b
			if z >= 0 {
				s += t[i]*z + math.Log1p(math.Exp(-z))
			} else {
				s += (t[i]-1)*z + math.Log1p(math.Exp(z))
			}
		}
		return s
	}
	a, b = 0, math.Log((float64(neg)+1)/(float64(pos)+1))
	cur := loss(a, b)
	const sigma = 1e-12 // ridge on the Hessian, as in Lin, Lin and Weng's algorithm
	for iter := 0; iter < 100; iter++ {
		var h11, h22, h21, g1, g2 float64
		for i, x := range f {
			z := a*x + b
			var p, q float64 // p = P(target) = 1/(1+e^z), q = 1 − p
			if z >= 0 {
				p, q = math.Exp(-z)/(1+math.Exp(-z)), 1/(1+math.Exp(-z))
			} else {
				p, q = 1/(1+math.Exp(z)), math.Exp(z)/(1+math.Exp(z))
			}
			d2 := p * q
			h11 += x * x * d2
			h22 += d2
			h21 += x * d2
			d1 := t[i] - p
			g1 += x * d1
			g2 += d1
		}
		if math.Abs(g1) < 1e-5 && math.Abs(g2) < 1e-5 {
			break
		}
		h11 += sigma
		h22 += sigma
		det := h11*h22 - h21*h21
		da, db := -(h22*g1-h21*g2)/det, -(-h21*g1+h11*g2)/det
		gd := g1*da + g2*db
		step := 1.0
		for step >= 1e-10 {
			na, nb := a+step*da, b+step*db
			if nl := loss(na, nb); nl < cur+1e-4*step*gd {
				a, b, cur = na, nb, nl
				break
			}
			step /= 2
		}
		if step < 1e-10 {
			break
		}
	}
	return a, b
}
