package learn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"dptext/internal/rngs"
)

// SVMOptions configure a LinearSVM.
type SVMOptions struct {
	// C is the cost of a margin violation (> 0); larger C means weaker regularisation.
	C float64 `toml:"c"`
	// Loss is "squared_hinge" (max(0, 1 − y·f)², scikit-learn's LinearSVC default) or "hinge".
	Loss string `toml:"loss"`
	// MaxIter bounds the passes of coordinate descent over the data (> 0).
	MaxIter int `toml:"max_iter"`
	// Tol stops descent once the spread of the projected gradient over a pass is below it (> 0).
	Tol float64 `toml:"tol"`
}

// DefaultSVMOptions are C 1, squared hinge loss, 1000 passes, tolerance 0.1 (LIBLINEAR's
// default stopping tolerance for the dual solvers).
func DefaultSVMOptions() SVMOptions {
	return SVMOptions{C: 1, Loss: "squared_hinge", MaxIter: 1000, Tol: 0.1}
}

// LinearSVM is a one-vs-rest linear support vector machine: for each class k it minimises
//
//	½‖w_k‖² + C Σ_i loss(y_ik · (w_k·x_i + b_k)),  y_ik = +1 if y_i = k else −1,
//
// with the hinge or squared hinge loss. The bias b_k is the weight of an extra constant
// feature of value 1 and is regularised like the others (as in LIBLINEAR). Each problem is
// solved in the dual by coordinate descent (Hsieh, Chang, Lin, Keerthi, Sathiya and Sudarshan,
// ICML 2008, Algorithm 1, without shrinking), visiting the vectors in a fresh random order
// each pass. With two classes a single problem is solved and Decision is (−f, f).
type LinearSVM struct {
	opts    SVMOptions
	classes int
	dim     int
	weights [][]float64 // one per problem, dim features then the bias
	// byFeature holds the weights of weights[k][:dim] feature by feature (byFeature[i·classes+k]
	// is weights[k][i]) when there are more than two classes: a document's features then read
	// every class's weight from one place.
	byFeature []float64
}

// NewLinearSVM validates opts and returns an unfitted machine.
func NewLinearSVM(opts SVMOptions) (*LinearSVM, error) {
	if !(opts.C > 0) || math.IsInf(opts.C, 0) {
		return nil, fmt.Errorf("svm: c = %v: want a finite number > 0", opts.C)
	}
	if opts.Loss != "squared_hinge" && opts.Loss != "hinge" {
		return nil, fmt.Errorf("svm: loss = %q: want \"squared_hinge\" or \"hinge\"", opts.Loss)
	}
	if opts.MaxIter < 1 {
		return nil, fmt.Errorf("svm: max_iter = %d: want ≥ 1", opts.MaxIter)
	}
	if !(opts.Tol > 0) {
		return nil, fmt.Errorf("svm: tol = %v: want > 0", opts.Tol)
	}
	return &LinearSVM{opts: opts}, nil
}

// Fit trains on X with labels y in 0…classes-1. Every binary problem gets its own stream
// drawn from rng before any is solved, so the result does not depend on how many run at once.
func (m *LinearSVM) Fit(rng *rand.Rand, X []Sparse, y []int, classes int) error {
	if err := checkTraining("svm", len(X), len(y), y, classes); err != nil {
		return err
	}
	m.classes = classes
	m.dim = MaxDim(X)
	problems := classes
	if classes == 2 {
		problems = 1
	}
	streams := make([]*rand.Rand, problems)
	for k := range streams {
		streams[k] = rngs.Child(rng, fmt.Sprintf("svm/class=%d", k))
	}
	sqNorms := make([]float64, len(X))
	for i, x := range X {
		sqNorms[i] = x.SquaredNorm() + 1 // + 1 for the bias feature
	}
	m.weights = make([][]float64, problems)
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(problems, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				positive := k
				if classes == 2 {
					positive = 1
				}
				m.weights[k] = m.solve(streams[k], X, sqNorms, y, positive)
			}
		}()
	}
	for k := range problems {
		next <- k
	}
	close(next)
	wg.Wait()
	m.byFeature = nil
	if classes > 2 {
		m.byFeature = make([]float64, m.dim*classes)
		for k, w := range m.weights {
			for i, x := range w[:m.dim] {
				m.byFeature[i*classes+k] = x
			}
		}
	}
	return nil
}

// solve runs dual coordinate descent for "class positive against the rest".
func (m *LinearSVM) solve(rng *rand.Rand, X []Sparse, sqNorms []float64, y []int, positive int) []float64 {
	upper, diag := m.opts.C, 0.0
	if m.opts.Loss == "squared_hinge" {
		upper, diag = math.Inf(1), 0.5/m.opts.C
	}
	n := len(X)
	w := make([]float64, m.dim+1)
	bias := m.dim
	alpha := make([]float64, n)
	sign := make([]float64, n)
	for i := range n {
		sign[i] = -1
		if y[i] == positive {
			sign[i] = 1
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	for range m.opts.MaxIter {
		rng.Shuffle(n, func(a, b int) { order[a], order[b] = order[b], order[a] })
		pgMax, pgMin := math.Inf(-1), math.Inf(1)
		for _, i := range order {
			x := X[i]
			g := sign[i]*(x.DotDense(w)+w[bias]) - 1 + diag*alpha[i]
			pg := g
			switch {
			case alpha[i] == 0:
				pg = min(g, 0)
			case alpha[i] == upper:
				pg = max(g, 0)
			}
			pgMax, pgMin = max(pgMax, pg), min(pgMin, pg)
			if pg == 0 {
				continue
			}
			old := alpha[i]
			alpha[i] = min(max(old-g/(sqNorms[i]+diag), 0), upper)
			if d := (alpha[i] - old) * sign[i]; d != 0 {
				x.AddScaledTo(w, d)
				w[bias] += d
			}
		}
		if pgMax-pgMin < m.opts.Tol {
			break
		}
	}
	return w
}

// Decision returns the score w_k·x + b_k of every class; features beyond the training
// dimension are ignored.
func (m *LinearSVM) Decision(x Sparse) []float64 {
	if m.classes == 2 {
		f := x.DotDense(m.weights[0][:m.dim]) + m.weights[0][m.dim]
		return []float64{-f, f}
	}
	// out[k] = x.DotDense(weights[k][:dim]) + bias_k: each class's products added in the order
	// of x's features, as DotDense adds them, read feature by feature.
	out := make([]float64, m.classes)
	for j, i := range x.Index {
		if int(i) >= m.dim {
			break
		}
		v, row := x.Value[j], m.byFeature[int(i)*m.classes:(int(i)+1)*m.classes]
		for k := range out {
			out[k] += v * row[k]
		}
	}
	for k, w := range m.weights {
		out[k] += w[m.dim]
	}
	return out
}

// Predict returns the class with the largest decision value (the lowest class on ties).
func (m *LinearSVM) Predict(x Sparse) int { return m.PredictFromDecision(m.Decision(x)) }

// PredictFromDecision returns Predict's class from the decision values Decision returned.
func (m *LinearSVM) PredictFromDecision(decision []float64) int { return argmax(decision) }

// Weights returns the weight vector of binary problem k (the training dimension, then the
// bias). The caller must not modify it.
func (m *LinearSVM) Weights(k int) []float64 { return m.weights[k] }
