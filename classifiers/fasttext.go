package classifiers

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"dptext/embeddings"
	"dptext/internal/learn"
	"dptext/internal/linalg"
)

// FastTextOptions configure a FastText classifier. The keys and defaults follow the fastText
// command line (`fasttext supervised -dim -epoch -lr -wordNgrams -minCount -minn -maxn -bucket`)
// except epoch and lr, which default to the values of Fernandes et al. (2019, Sect. 5).
type FastTextOptions struct {
	// Dim is the size of the hidden (document) vector (> 0).
	Dim int `toml:"dim"`
	// Epochs is the number of passes over the training documents (> 0).
	Epochs int `toml:"epoch"`
	// LR is the initial learning rate (> 0); it decays linearly to 0 over all tokens of all
	// epochs.
	LR float64 `toml:"lr"`
	// WordNgrams is the longest word n-gram fed as a hashed input row (≥ 1; 1 = words only).
	WordNgrams int `toml:"word_ngrams"`
	// MinCount drops training words seen fewer times (≥ 1).
	MinCount int `toml:"min_count"`
	// Minn and Maxn bound the lengths, in characters, of the hashed character n-grams of
	// "<word>"; Maxn = 0 turns them off (then Minn is ignored), else 1 ≤ Minn ≤ Maxn.
	Minn int `toml:"minn"`
	Maxn int `toml:"maxn"`
	// Bucket is the number of hash rows shared by word and character n-grams (> 0 when they
	// are on).
	Bucket int `toml:"bucket"`
	// Context, when not nil, stops training between documents once it is cancelled: Fit then
	// returns its error. Not a config key.
	Context context.Context `toml:"-"`
}

// DefaultFastTextOptions are 25 epochs at learning rate 1.0 and 100 dimensions (the
// settings of the paper), words only, min count 1 and 2,000,000 buckets (fastText's defaults).
func DefaultFastTextOptions() FastTextOptions {
	return FastTextOptions{Dim: 100, Epochs: 25, LR: 1.0, WordNgrams: 1, MinCount: 1, Bucket: 2000000}
}

// FastText is a supervised classifier in the manner of fastText (Joulin, Grave, Bojanowski and
// Mikolov, "Bag of Tricks for Efficient Text Classification", EACL 2017). A document becomes
// the list of its input rows: one per in-vocabulary word, one per word n-gram (2…word_ngrams,
// hashed into buckets) and, when maxn > 0, one per character n-gram of every word (hashed into
// the same buckets; words unseen in training still contribute their character n-grams). The
// hidden vector h is the mean of those rows; the class probabilities are softmax(B·h); each
// training document takes one SGD step on −log p(label) with learning rate
// lr·(1 − tokens done / (epoch · tokens per epoch)), the gradient of h spread equally over
// its rows.
//
// Differences from the fastText program, all deliberate: documents are visited in a fresh
// random order each epoch (fastText reads its file in order), training is single-threaded
// (fastText's lock-free threads are not reproducible), there is no end-of-line token, bucket
// rows are created when first used (each row's initial values come from its own stream, so
// this equals allocating all of them), and pretrained vectors set the rows of training words
// only instead of also adding their words to the vocabulary. Rows start uniform in
// [−1/dim, 1/dim], the output matrix at zero. A document with no input row is given the most
// frequent training label.
type FastText struct {
	opts       FastTextOptions
	pretrained *embeddings.Store

	labels  *learn.Labels
	prior   int // most frequent training class
	seed    uint64
	vocab   map[string]int32
	buckets map[uint32]int32 // bucket → row, rows after the words
	input   []float32        // rows × dim
	output  []float32        // classes × dim
}

// NewFastText validates opts. pretrained may be nil; otherwise its dimension must equal dim,
// and training words found in it start from its (raw) vectors.
func NewFastText(opts FastTextOptions, pretrained *embeddings.Store) (*FastText, error) {
	switch {
	case opts.Dim < 1:
		return nil, fmt.Errorf("fasttext: dim = %d: want ≥ 1", opts.Dim)
	case opts.Epochs < 1:
		return nil, fmt.Errorf("fasttext: epoch = %d: want ≥ 1", opts.Epochs)
	case !(opts.LR > 0) || math.IsInf(opts.LR, 0):
		return nil, fmt.Errorf("fasttext: lr = %v: want a finite number > 0", opts.LR)
	case opts.WordNgrams < 1:
		return nil, fmt.Errorf("fasttext: word_ngrams = %d: want ≥ 1", opts.WordNgrams)
	case opts.MinCount < 1:
		return nil, fmt.Errorf("fasttext: min_count = %d: want ≥ 1", opts.MinCount)
	case opts.Maxn < 0:
		return nil, fmt.Errorf("fasttext: maxn = %d: want ≥ 0 (0 = no character n-grams)", opts.Maxn)
	case opts.Maxn > 0 && (opts.Minn < 1 || opts.Minn > opts.Maxn):
		return nil, fmt.Errorf("fasttext: minn = %d: want 1 ≤ minn ≤ maxn = %d", opts.Minn, opts.Maxn)
	case (opts.WordNgrams > 1 || opts.Maxn > 0) && (opts.Bucket < 1 || opts.Bucket > math.MaxInt32):
		return nil, fmt.Errorf("fasttext: bucket = %d: want 1…%d when word_ngrams > 1 or maxn > 0",
			opts.Bucket, math.MaxInt32)
	}
	if pretrained != nil && pretrained.Dim() != opts.Dim {
		return nil, fmt.Errorf("fasttext: dim = %d but the pretrained vectors have %d dimensions",
			opts.Dim, pretrained.Dim())
	}
	return &FastText{opts: opts, pretrained: pretrained}, nil
}

// Fit trains a fresh model on docs and labels, drawing the initial rows and the epoch orders
// from rng.
func (f *FastText) Fit(rng *rand.Rand, docs [][]string, labels []string) error {
	if len(docs) != len(labels) {
		return fmt.Errorf("fasttext: %d documents but %d labels", len(docs), len(labels))
	}
	if len(docs) == 0 {
		return fmt.Errorf("fasttext: no training documents")
	}
	f.labels = learn.NewLabels(labels)
	y, _ := f.labels.Encode(labels)
	f.prior = mostFrequent(y, f.labels.Len())
	f.seed = rng.Uint64()
	f.buildVocabulary(docs)
	f.buckets = map[uint32]int32{}
	inputs := make([][]int32, len(docs))
	var tokens int
	for i, d := range docs {
		inputs[i] = f.rows(d, true)
		tokens += len(d)
	}
	dim := f.opts.Dim
	words := len(f.vocab)
	f.input = make([]float32, (words+len(f.buckets))*dim)
	for r := range words {
		f.initialRow(int64(r), f.input[r*dim:(r+1)*dim])
	}
	for b, r := range f.buckets {
		f.initialRow(bucketKey(b), f.input[int(r)*dim:(int(r)+1)*dim])
	}
	if f.pretrained != nil {
		for w, r := range f.vocab {
			if i, ok := f.pretrained.Lookup(w); ok {
				copy(f.input[int(r)*dim:], f.pretrained.Vector(i))
			}
		}
	}
	f.output = make([]float32, f.labels.Len()*dim)
	return f.train(rng, inputs, docs, y, tokens)
}

// buildVocabulary numbers the training words seen at least min_count times in order of first
// occurrence.
func (f *FastText) buildVocabulary(docs [][]string) {
	counts := map[string]int{}
	var order []string
	for _, d := range docs {
		for _, w := range d {
			if counts[w] == 0 {
				order = append(order, w)
			}
			counts[w]++
		}
	}
	f.vocab = map[string]int32{}
	for _, w := range order {
		if counts[w] >= f.opts.MinCount {
			f.vocab[w] = int32(len(f.vocab))
		}
	}
}

// train runs the SGD epochs; it stops with the error of opts.Context once that is cancelled.
func (f *FastText) train(rng *rand.Rand, inputs [][]int32, docs [][]string, y []int, tokens int) error {
	dim, classes := f.opts.Dim, f.labels.Len()
	hidden := make([]float32, dim)
	grad := make([]float32, dim)
	probs := make([]float64, classes)
	order := make([]int, len(docs))
	for i := range order {
		order[i] = i
	}
	total := float64(f.opts.Epochs) * float64(tokens)
	done := 0
	for range f.opts.Epochs {
		rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		for n, i := range order {
			if n%64 == 0 && f.opts.Context != nil && f.opts.Context.Err() != nil {
				return fmt.Errorf("fasttext: %w", f.opts.Context.Err())
			}
			lr := float32(f.opts.LR * (1 - float64(done)/total))
			done += len(docs[i])
			rows := inputs[i]
			if len(rows) == 0 {
				continue
			}
			f.hidden(rows, hidden, nil)
			f.softmax(hidden, probs)
			clear(grad)
			for k := range classes {
				target := float32(0)
				if k == y[i] {
					target = 1
				}
				alpha := lr * (target - float32(probs[k]))
				out := f.output[k*dim : (k+1)*dim]
				// grad[j] += alpha·out[j] with out[j] before its update, then out[j] += alpha·h[j]
				// (each element on its own, so one pass after the other gives the same bits).
				linalg.AxpyFloat32(grad, out, alpha)
				linalg.AxpyFloat32(out, hidden, alpha)
			}
			scale := 1 / float32(len(rows))
			for _, r := range rows {
				linalg.AxpyFloat32(f.input[int(r)*dim:(int(r)+1)*dim], grad, scale)
			}
		}
	}
	return nil
}

// Predict returns the most probable training label of every document (the lowest label in
// sorted order on ties).
func (f *FastText) Predict(_ *rand.Rand, docs [][]string) []string {
	out := make([]string, len(docs))
	hidden := make([]float32, f.opts.Dim)
	scratch := make([]float32, f.opts.Dim)
	probs := make([]float64, f.labels.Len())
	for i, d := range docs {
		out[i] = f.labels.Name(f.classify(d, hidden, scratch, probs))
	}
	return out
}

// Probabilities returns the class probabilities of doc, in the sorted order of the training
// labels (see Labels).
func (f *FastText) Probabilities(doc []string) []float64 {
	probs := make([]float64, f.labels.Len())
	rows := f.rows(doc, false)
	if len(rows) == 0 {
		probs[f.prior] = 1
		return probs
	}
	hidden := make([]float32, f.opts.Dim)
	f.hidden(rows, hidden, make([]float32, f.opts.Dim))
	f.softmax(hidden, probs)
	return probs
}

// Labels returns the training labels in class order.
func (f *FastText) Labels() []string { return f.labels.Names() }

func (f *FastText) classify(doc []string, hidden, scratch []float32, probs []float64) int {
	rows := f.rows(doc, false)
	if len(rows) == 0 {
		return f.prior
	}
	f.hidden(rows, hidden, scratch)
	f.softmax(hidden, probs)
	best := 0
	for k := range probs {
		if probs[k] > probs[best] {
			best = k
		}
	}
	return best
}

// hidden sets h to the mean of the given input rows. A negative row stands for a bucket never
// seen in training, whose initial values are rebuilt in scratch.
func (f *FastText) hidden(rows []int32, h, scratch []float32) {
	dim := f.opts.Dim
	h = h[:dim]
	clear(h)
	for _, r := range rows {
		var row []float32
		if r >= 0 {
			row = f.input[int(r)*dim : (int(r)+1)*dim]
		} else {
			f.initialRow(int64(r), scratch) // r = bucketKey(b)
			row = scratch
		}
		linalg.AxpyFloat32(h, row, 1) // h += row: 1·row[j] is row[j] exactly
	}
	inv := 1 / float32(len(rows))
	for j := range h {
		h[j] *= inv
	}
}

// softmax sets probs to softmax(B·h).
func (f *FastText) softmax(h []float32, probs []float64) {
	dim := f.opts.Dim
	top := math.Inf(-1)
	for k := range probs {
		var s float32
		out := f.output[k*dim : (k+1)*dim]
		for j := range dim {
			s += out[j] * h[j]
		}
		probs[k] = float64(s)
		top = max(top, probs[k])
	}
	var z float64
	for k := range probs {
		probs[k] = math.Exp(probs[k] - top)
		z += probs[k]
	}
	for k := range probs {
		probs[k] /= z
	}
}

// initialRow fills row with initial values drawn uniform in [−1/dim, 1/dim] from a stream
// keyed by the model seed and key: the word's number for a word row, bucketKey(b) for bucket
// b. Every row thus has the values it would have in a fully allocated matrix.
func (f *FastText) initialRow(key int64, row []float32) {
	src := rand.New(rand.NewPCG(f.seed, uint64(key)))
	bound := 1 / float32(f.opts.Dim)
	for j := range row {
		row[j] = (2*src.Float32() - 1) * bound
	}
}

// mostFrequent returns the most frequent class of y (the lowest on ties).
func mostFrequent(y []int, classes int) int {
	counts := make([]int, classes)
	for _, c := range y {
		counts[c]++
	}
	best := 0
	for c, n := range counts {
		if n > counts[best] {
			best = c
		}
	}
	return best
}
