package attackers

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"

	"dptext/internal/learn"
)

// PAN19Options configure the pan19-baseline attacker. The defaults are the published
// script's (pan19-cdaa-baseline-svm.py: -n 3 -ft 5 -pt 0.1) run under scikit-learn ≥ 0.22.
type PAN19Options struct {
	// N is the character n-gram length (the script's -n, default 3).
	N int `toml:"n"`
	// MinFrequency keeps the n-grams seen at least this often in the known texts together
	// (the script's -ft, default 5).
	MinFrequency int `toml:"min_frequency"`
	// C is the SVM's cost (SVC(C=1)).
	C float64 `toml:"c"`
	// Gamma is the RBF kernel's width rule: "scale" (scikit-learn ≥ 0.22's default,
	// 1/(features × variance of the training matrix)) or "auto" (1/features, the default of
	// the scikit-learn of 2019 the script was written for).
	Gamma string `toml:"gamma"`
	// CalibrationFolds is the number of stratified folds of the sigmoid calibration
	// (CalibratedClassifierCV's default cv: 5 since scikit-learn 0.22, 3 before). Where a
	// candidate has fewer known texts (at least 2), the folds are that many — scikit-learn
	// refuses such a problem; PAN 2019's candidates have 7.
	CalibrationFolds int `toml:"calibration_folds"`
	// RejectMargin leaves a text unattributed (learn.NoAnswer) when its two largest calibrated
	// probabilities differ by less than this (the script's -pt, default 0.1); 0 never rejects.
	RejectMargin float64 `toml:"reject_margin"`
}

// DefaultPAN19Options are the published script's settings under scikit-learn ≥ 0.22.
func DefaultPAN19Options() PAN19Options {
	return PAN19Options{N: 3, MinFrequency: 5, C: 1, Gamma: "scale", CalibrationFolds: 5, RejectMargin: 0.1}
}

// svmTolerance is libsvm's stopping tolerance (scikit-learn's SVC tol = 1e-3): the largest
// violation of the optimality conditions left at the end.
const svmTolerance = 1e-3

// PAN19 is the pan19-baseline attacker, the PAN 2019 cross-domain attribution baseline
// (pan19-cdaa-baseline-svm.py, Kestemont et al. 2019) reproduced:
//
//   - vocabulary: the character N-grams of the known texts, as written, seen at least
//     MinFrequency times over all of them;
//   - features: each text's counts of those n-grams as scikit-learn's CountVectorizer(analyzer
//     = "char", lowercase = False) counts them (a run of two or more whitespace characters is
//     read as one space first), divided by the text's length in characters, then scaled per
//     feature by its largest absolute value over the known texts (MaxAbsScaler);
//   - classifier: one-vs-rest SVMs with an RBF kernel exp(−γ‖x−y‖²) and cost C (SVC(C=1),
//     solved as libsvm does: SMO with second-order working-set selection to tolerance 1e-3),
//     calibrated as CalibratedClassifierCV(method = "sigmoid") does: the known texts are cut
//     into CalibrationFolds stratified folds (StratifiedKFold without shuffling); per fold the
//     SVMs train on the other folds, a Platt sigmoid per candidate is fitted to the held-out
//     decision values, and a text's probabilities are the sigmoids normalised over
//     candidates (for two, p and 1 − p), averaged over the folds;
//   - answer: the most probable candidate, or learn.NoAnswer when the two largest
//     probabilities differ by less than RejectMargin.
//
// A document is its tokens joined by single spaces; `dptext attribute` passes the raw text as
// one token (ReadsRawText), as the script reads its files. Fit is deterministic (rng unused).
type PAN19 struct {
	opts   PAN19Options
	vocab  map[string]int
	scale  []float64 // per feature: 1/max |x| over the known texts (1 where that is 0)
	labels *learn.Labels
	folds  []pan19Fold
}

// pan19Fold is one calibration fold: the one-vs-rest machines trained on the other folds and
// the Platt sigmoid of each candidate.
type pan19Fold struct {
	train []sparseVec
	gamma float64
	coef  [][]float64 // per machine: α_i·y_i of each training text (y = +1 for the candidate)
	rho   []float64   // per machine: the decision is Σ coef_i K(x_i, x) − rho
	a, b  []float64   // per machine: P = 1/(1 + exp(a·f + b))
}

// sparseVec is a feature vector: sorted feature indices, their values and ‖x‖².
type sparseVec struct {
	idx  []int
	val  []float64
	norm float64
}

// NewPAN19 validates opts and returns an unfitted attacker.
func NewPAN19(opts PAN19Options) (*PAN19, error) {
	switch {
	case opts.N < 1:
		return nil, fmt.Errorf("pan19-baseline: n = %d: want ≥ 1", opts.N)
	case opts.MinFrequency < 1:
		return nil, fmt.Errorf("pan19-baseline: min_frequency = %d: want ≥ 1", opts.MinFrequency)
	case !(opts.C > 0) || math.IsInf(opts.C, 0):
		return nil, fmt.Errorf("pan19-baseline: c = %v: want a finite number > 0", opts.C)
	case opts.Gamma != "scale" && opts.Gamma != "auto":
		return nil, fmt.Errorf("pan19-baseline: gamma = %q: want \"scale\" (scikit-learn ≥ 0.22) or \"auto\" (scikit-learn of 2019)", opts.Gamma)
	case opts.CalibrationFolds < 2:
		return nil, fmt.Errorf("pan19-baseline: calibration_folds = %d: want ≥ 2", opts.CalibrationFolds)
	case !(opts.RejectMargin >= 0 && opts.RejectMargin <= 1):
		return nil, fmt.Errorf("pan19-baseline: reject_margin = %v: want a probability difference in [0, 1] (the script's is 0.1; 0 never rejects)", opts.RejectMargin)
	}
	return &PAN19{opts: opts}, nil
}

// ReadsRawText reports that the attacker's features are characters of the text as written.
func (p *PAN19) ReadsRawText() bool { return true }

// isPythonSpace is Python's str.isspace for one character (what `\s` matches in a str
// pattern): Go's unicode.IsSpace plus the separators U+001C–U+001F.
func isPythonSpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// collapseSpaces replaces every run of two or more whitespace characters by one space, as
// CountVectorizer's character analyzer does; a single whitespace character stays as it is.
func collapseSpaces(s []rune) []rune {
	out := make([]rune, 0, len(s))
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && isPythonSpace(s[j]) {
			j++
		}
		switch {
		case j-i >= 2:
			out = append(out, ' ')
			i = j
		case j > i:
			out = append(out, s[i])
			i = j
		default:
			out = append(out, s[i])
			i++
		}
	}
	return out
}

// features returns the scaled feature vector of a text (before scaling when p.scale is nil).
func (p *PAN19) features(text string) sparseVec {
	runes := []rune(text)
	length := float64(len(runes))
	counts := map[int]float64{}
	c := collapseSpaces(runes)
	for i := 0; i+p.opts.N <= len(c); i++ {
		if k, ok := p.vocab[string(c[i:i+p.opts.N])]; ok {
			counts[k]++
		}
	}
	var v sparseVec
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		x := counts[k] / length
		if p.scale != nil {
			x *= p.scale[k]
		}
		v.idx, v.val = append(v.idx, k), append(v.val, x)
		v.norm += x * x
	}
	return v
}

// rbf is exp(−γ‖a − b‖²).
func rbf(gamma float64, a, b sparseVec) float64 {
	dot := 0.0
	for i, j := 0, 0; i < len(a.idx) && j < len(b.idx); {
		switch {
		case a.idx[i] == b.idx[j]:
			dot += a.val[i] * b.val[j]
			i++
			j++
		case a.idx[i] < b.idx[j]:
			i++
		default:
			j++
		}
	}
	return math.Exp(-gamma * (a.norm + b.norm - 2*dot))
}

// Fit builds the vocabulary and scaling from the known texts and trains the calibrated
// machines. Every candidate needs at least 2 known texts (see CalibrationFolds).
func (p *PAN19) Fit(_ *rand.Rand, docs [][]string, labels []string) error {
	if len(docs) != len(labels) || len(docs) == 0 {
		return fmt.Errorf("pan19-baseline: %d documents and %d labels: want equal, non-zero counts", len(docs), len(labels))
	}
	texts := make([]string, len(docs))
	freq := map[string]int{}
	for i, d := range docs {
		texts[i] = strings.Join(d, " ")
		r := []rune(texts[i])
		if len(r) == 0 {
			return fmt.Errorf("pan19-baseline: known text %d is empty", i+1)
		}
		for j := 0; j+p.opts.N <= len(r); j++ {
			freq[string(r[j:j+p.opts.N])]++
		}
	}
	var grams []string
	for g, n := range freq {
		if n >= p.opts.MinFrequency {
			grams = append(grams, g)
		}
	}
	if len(grams) == 0 {
		return fmt.Errorf("pan19-baseline: no character %d-gram occurs %d times in the known texts: want longer texts or a lower min_frequency", p.opts.N, p.opts.MinFrequency)
	}
	slices.Sort(grams)
	p.vocab = make(map[string]int, len(grams))
	for i, g := range grams {
		p.vocab[g] = i
	}
	p.scale = nil
	x := make([]sparseVec, len(texts))
	maxAbs := make([]float64, len(grams))
	for i, t := range texts {
		x[i] = p.features(t)
		for j, k := range x[i].idx {
			maxAbs[k] = max(maxAbs[k], math.Abs(x[i].val[j]))
		}
	}
	p.scale = make([]float64, len(grams))
	for k, m := range maxAbs {
		p.scale[k] = 1
		if m > 0 {
			p.scale[k] = 1 / m
		}
	}
	for i := range x {
		x[i].norm = 0
		for j, k := range x[i].idx {
			x[i].val[j] *= p.scale[k]
			x[i].norm += x[i].val[j] * x[i].val[j]
		}
	}
	p.labels = learn.NewLabels(labels)
	y, err := p.labels.Encode(labels)
	if err != nil {
		return err
	}
	if p.labels.Len() < 2 {
		return fmt.Errorf("pan19-baseline: one candidate: want at least 2")
	}
	counts := make([]int, p.labels.Len())
	for _, k := range y {
		counts[k]++
	}
	folds := p.opts.CalibrationFolds
	for k, n := range counts {
		if n < 2 {
			return fmt.Errorf("pan19-baseline: candidate %q has %d known text: the calibration needs at least 2 per candidate (one to train on while another is held out)", p.labels.Name(k), n)
		}
		folds = min(folds, n)
	}
	testFold := stratifiedFolds(labels, folds)
	p.folds = nil
	for f := 0; f < folds; f++ {
		var train, held []int
		for i := range x {
			if testFold[i] == f {
				held = append(held, i)
			} else {
				train = append(train, i)
			}
		}
		fold := p.trainFold(x, y, train, len(grams))
		dec := make([][]float64, len(held))
		for j, i := range held {
			dec[j] = fold.decisions(x[i])
		}
		fold.a, fold.b = make([]float64, len(fold.coef)), make([]float64, len(fold.coef))
		for m := range fold.coef {
			f, target := make([]float64, len(held)), make([]bool, len(held))
			for j, i := range held {
				f[j], target[j] = dec[j][m], y[i] == p.machineClass(m)
			}
			fold.a[m], fold.b[m] = plattSigmoid(f, target)
		}
		p.folds = append(p.folds, fold)
	}
	return nil
}

// machineClass is the candidate a one-vs-rest machine separates: one machine per candidate,
// or for two candidates one machine, for the second (as scikit-learn's OneVsRestClassifier).
func (p *PAN19) machineClass(m int) int {
	if p.labels.Len() == 2 {
		return 1
	}
	return m
}

// trainFold trains the one-vs-rest machines on the texts train of x (feature count nf).
func (p *PAN19) trainFold(x []sparseVec, y []int, train []int, nf int) pan19Fold {
	fold := pan19Fold{train: make([]sparseVec, len(train))}
	sum, sq := 0.0, 0.0
	for j, i := range train {
		fold.train[j] = x[i]
		for _, v := range x[i].val {
			sum += v
			sq += v * v
		}
	}
	cells := float64(len(train)) * float64(nf)
	fold.gamma = 1 / float64(nf)
	if p.opts.Gamma == "scale" {
		fold.gamma = 1
		if v := sq/cells - (sum/cells)*(sum/cells); v != 0 {
			fold.gamma = 1 / (float64(nf) * v)
		}
	}
	n := len(train)
	kernel := make([][]float64, n)
	for a := range kernel {
		kernel[a] = make([]float64, n)
		for b := range a + 1 {
			kernel[a][b] = rbf(fold.gamma, fold.train[a], fold.train[b])
			kernel[b][a] = kernel[a][b]
		}
	}
	machines := p.labels.Len()
	if machines == 2 {
		machines = 1
	}
	for m := range machines {
		class := p.machineClass(m)
		// libsvm (through scikit-learn) orders the binary problem's samples by class, the
		// negative class (label 0, the rest) first and labelled +1; its decision value is then
		// negated. The same order and signs here follow its path.
		var order []int
		for pass := 0; pass < 2; pass++ {
			for j, i := range train {
				if (y[i] == class) == (pass == 1) {
					order = append(order, j)
				}
			}
		}
		sign := make([]float64, n)
		for t, j := range order {
			sign[t] = 1
			if y[train[j]] == class {
				sign[t] = -1
			}
		}
		k := make([][]float64, n)
		for t, j := range order {
			k[t] = make([]float64, n)
			for u, l := range order {
				k[t][u] = kernel[j][l]
			}
		}
		alpha, rho := smo(k, sign, p.opts.C, svmTolerance)
		coef := make([]float64, n)
		for t, j := range order {
			coef[j] = -alpha[t] * sign[t] // negated: positive for the candidate
		}
		fold.coef = append(fold.coef, coef)
		fold.rho = append(fold.rho, -rho)
	}
	return fold
}

// decisions returns the decision value of every machine of the fold for x.
func (f pan19Fold) decisions(x sparseVec) []float64 {
	k := make([]float64, len(f.train))
	for i, t := range f.train {
		k[i] = rbf(f.gamma, t, x)
	}
	out := make([]float64, len(f.coef))
	for m, coef := range f.coef {
		s := 0.0
		for i, c := range coef {
			s += c * k[i]
		}
		out[m] = s - f.rho[m]
	}
	return out
}

// smo solves libsvm's C-SVC dual, min ½αᵀQα − Σα with Q_ij = y_i y_j K_ij, 0 ≤ α ≤ C and
// yᵀα = 0, by libsvm's sequential minimal optimisation: the working pair chosen by the
// maximal violation and the second-order gain (Fan, Chen and Lin 2005), Q held in single
// precision as libsvm caches it, until the violation is below eps; rho as libsvm computes it
// (the mean of y_i∇_i over the free variables, else the middle of their bounds).
func smo(k [][]float64, y []float64, c, eps float64) (alpha []float64, rho float64) {
	n := len(y)
	const tau = 1e-12
	q := make([][]float32, n)
	for i := range q {
		q[i] = make([]float32, n)
		for j := range q[i] {
			q[i][j] = float32(y[i] * y[j] * k[i][j])
		}
	}
	alpha = make([]float64, n)
	grad := make([]float64, n)
	for i := range grad {
		grad[i] = -1
	}
	upper := func(i int) bool { return alpha[i] >= c }
	lower := func(i int) bool { return alpha[i] <= 0 }
	for iter := 0; iter < max(10_000_000, 100*n); iter++ {
		gmax, gmax2, bi, bj := math.Inf(-1), math.Inf(-1), -1, -1
		for t := range n {
			if y[t] > 0 && !upper(t) && -grad[t] >= gmax {
				gmax, bi = -grad[t], t
			} else if y[t] < 0 && !lower(t) && grad[t] >= gmax {
				gmax, bi = grad[t], t
			}
		}
		if bi < 0 {
			break
		}
		objMin := math.Inf(1)
		for t := range n {
			var diff float64
			var quad float64
			switch {
			case y[t] > 0 && !lower(t):
				diff = gmax + grad[t]
				gmax2 = max(gmax2, grad[t])
				quad = k[bi][bi] + k[t][t] - 2*y[bi]*float64(q[bi][t])
			case y[t] < 0 && !upper(t):
				diff = gmax - grad[t]
				gmax2 = max(gmax2, -grad[t])
				quad = k[bi][bi] + k[t][t] + 2*y[bi]*float64(q[bi][t])
			default:
				continue
			}
			if diff > 0 {
				if quad <= 0 {
					quad = tau
				}
				if obj := -diff * diff / quad; obj <= objMin {
					objMin, bj = obj, t
				}
			}
		}
		if gmax+gmax2 < eps || bj < 0 {
			break
		}
		i, j := bi, bj
		oi, oj := alpha[i], alpha[j]
		if y[i] != y[j] {
			quad := k[i][i] + k[j][j] + 2*float64(q[i][j])
			if quad <= 0 {
				quad = tau
			}
			delta := (-grad[i] - grad[j]) / quad
			diff := alpha[i] - alpha[j]
			alpha[i] += delta
			alpha[j] += delta
			if diff > 0 {
				if alpha[j] < 0 {
					alpha[j], alpha[i] = 0, diff
				}
			} else if alpha[i] < 0 {
				alpha[i], alpha[j] = 0, -diff
			}
			if diff > 0 { // C_i − C_j = 0
				if alpha[i] > c {
					alpha[i], alpha[j] = c, c-diff
				}
			} else if alpha[j] > c {
				alpha[j], alpha[i] = c, c+diff
			}
		} else {
			quad := k[i][i] + k[j][j] - 2*float64(q[i][j])
			if quad <= 0 {
				quad = tau
			}
			delta := (grad[i] - grad[j]) / quad
			sum := alpha[i] + alpha[j]
			alpha[i] -= delta
			alpha[j] += delta
			if sum > c {
				if alpha[i] > c {
					alpha[i], alpha[j] = c, sum-c
				}
			} else if alpha[j] < 0 {
				alpha[j], alpha[i] = 0, sum
			}
			if sum > c {
				if alpha[j] > c {
					alpha[j], alpha[i] = c, sum-c
				}
			} else if alpha[i] < 0 {
				alpha[i], alpha[j] = 0, sum
			}
		}
		di, dj := alpha[i]-oi, alpha[j]-oj
		for t := range n {
			grad[t] += float64(q[i][t])*di + float64(q[j][t])*dj
		}
	}
	ub, lb, sumFree, free := math.Inf(1), math.Inf(-1), 0.0, 0
	for i := range n {
		yg := y[i] * grad[i]
		switch {
		case upper(i):
			if y[i] < 0 {
				ub = min(ub, yg)
			} else {
				lb = max(lb, yg)
			}
		case lower(i):
			if y[i] > 0 {
				ub = min(ub, yg)
			} else {
				lb = max(lb, yg)
			}
		default:
			free++
			sumFree += yg
		}
	}
	if free > 0 {
		return alpha, sumFree / float64(free)
	}
	return alpha, (ub + lb) / 2
}

// Probabilities returns, per document, the calibrated probability of every candidate (in the
// order of Candidates).
func (p *PAN19) Probabilities(docs [][]string) ([][]float64, error) {
	if p.labels == nil {
		return nil, fmt.Errorf("pan19-baseline: Probabilities before a successful Fit")
	}
	nc := p.labels.Len()
	out := make([][]float64, len(docs))
	for i, d := range docs {
		x := p.features(strings.Join(d, " "))
		prob := make([]float64, nc)
		for _, f := range p.folds {
			dec := f.decisions(x)
			q := make([]float64, nc)
			for m, v := range dec {
				q[p.machineClass(m)] = 1 / (1 + math.Exp(f.a[m]*v+f.b[m]))
			}
			if nc == 2 {
				q[0] = 1 - q[1]
			} else {
				sum := 0.0
				for _, v := range q {
					sum += v
				}
				for k := range q {
					if sum != 0 {
						q[k] /= sum
					} else {
						q[k] = 1 / float64(nc)
					}
				}
			}
			for k, v := range q {
				prob[k] += v
			}
		}
		for k := range prob {
			prob[k] /= float64(len(p.folds))
		}
		out[i] = prob
	}
	return out, nil
}

// CalibrateFit is a no-op: Fit already calibrates (the attacker is the calibrated pipeline);
// it lets `dptext attribute --reject pan19` use the attacker's probabilities.
func (p *PAN19) CalibrateFit(_ *rand.Rand, _ [][]string, _ []string) error {
	if p.labels == nil {
		return fmt.Errorf("pan19-baseline: CalibrateFit before a successful Fit")
	}
	return nil
}

// Candidates lists the candidates in the order of Probabilities (sorted, as scikit-learn's
// classes_).
func (p *PAN19) Candidates() []string {
	if p.labels == nil {
		return nil
	}
	return slices.Clone(p.labels.Names())
}

// PredictTopTwo returns the most probable candidate of every document (learn.NoAnswer under
// the reject margin) with its probability and the runner-up's; rng is not used.
func (p *PAN19) PredictTopTwo(_ *rand.Rand, docs [][]string) (authors []string, top, second []float64) {
	probs, err := p.Probabilities(docs)
	if err != nil {
		panic(err.Error())
	}
	for _, pr := range probs {
		best, sec := 0, -1
		for k := 1; k < len(pr); k++ {
			switch {
			case pr[k] > pr[best]:
				best, sec = k, best
			case sec < 0 || pr[k] > pr[sec]:
				sec = k
			}
		}
		a := p.labels.Name(best)
		if pr[best]-pr[sec] < p.opts.RejectMargin {
			a = learn.NoAnswer
		}
		authors, top, second = append(authors, a), append(top, pr[best]), append(second, pr[sec])
	}
	return authors, top, second
}

// Predict returns the baseline's answer for every document: the most probable candidate, or
// learn.NoAnswer when the two largest probabilities differ by less than RejectMargin.
func (p *PAN19) Predict(rng *rand.Rand, docs [][]string) []string {
	if p.labels == nil {
		panic("pan19-baseline: Predict before a successful Fit")
	}
	authors, _, _ := p.PredictTopTwo(rng, docs)
	return authors
}

// stratifiedFolds assigns each item a test fold as scikit-learn's StratifiedKFold(k) without
// shuffling does: classes numbered by first appearance, the items sorted by class dealt
// round-robin to the folds to fix how many of each class each fold gets, then each class's
// items, in order, given to folds 0, 1, … in blocks of those sizes.
func stratifiedFolds(labels []string, k int) []int {
	code := map[string]int{}
	enc := make([]int, len(labels))
	for i, l := range labels {
		if _, ok := code[l]; !ok {
			code[l] = len(code)
		}
		enc[i] = code[l]
	}
	sorted := slices.Clone(enc)
	slices.Sort(sorted)
	alloc := make([][]int, k) // alloc[fold][class]
	for f := range alloc {
		alloc[f] = make([]int, len(code))
		for i := f; i < len(sorted); i += k {
			alloc[f][sorted[i]]++
		}
	}
	fold := make([]int, len(labels))
	for c := range len(code) {
		var blocks []int
		for f := range k {
			for range alloc[f][c] {
				blocks = append(blocks, f)
			}
		}
		next := 0
		for i, e := range enc {
			if e == c {
				fold[i] = blocks[next]
				next++
			}
		}
	}
	return fold
}
