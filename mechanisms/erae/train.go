package erae

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"dptext/embeddings"
	"dptext/internal/rngs"
)

// TrainOptions configure Train. The paper's reference (two GRU layers of 512 cells, 20,000
// words, 768-d vectors, length 50, batch 128, learning rate 0.001) is far beyond two CPU cores in
// an hour; the defaults keep its k and λ's and shrink the rest (see DefaultTrainOptions).
type TrainOptions struct {
	// Vocab is the number of output words: the most frequent words of the training corpus that
	// have a vector (ties by word).
	Vocab int `json:"vocab"`
	// Hidden is the GRU state size H; Latent the latent vector's size Z.
	Hidden int `json:"hidden"`
	Latent int `json:"latent"`
	// Length is the window length (the paper's maximum input length, 50): documents are cut
	// into windows of this many tokens; shorter documents are not used for training.
	Length int `json:"length"`
	// Batch is the number of windows per step (drawn uniformly with replacement).
	Batch int `json:"batch"`
	// PretrainSteps are the first steps, on the reconstruction loss alone; Steps is the total.
	PretrainSteps int `json:"pretrain_steps"`
	Steps         int `json:"steps"`
	// LearningRate is Adam's step size (the paper: 0.001); Clip bounds the gradient's global
	// Euclidean norm (0: no clipping).
	LearningRate float64 `json:"learning_rate"`
	Clip         float64 `json:"clip"`
	// Reward turns the embedding reward on after pre-training (ER-AE); false trains the plain
	// auto-encoder of the paper's AE-DP ablation.
	Reward bool `json:"reward"`
	// K is the number of top-ranked and of randomly drawn rewarded candidates (the paper: 5).
	K int `json:"k"`
	// LambdaRecon and LambdaEmbed weigh the two losses (Eq. 10; the paper: 1 and 0.5).
	LambdaRecon float64 `json:"lambda_recon"`
	LambdaEmbed float64 `json:"lambda_embed"`
	// CenterVectors subtracts the vocabulary's mean vector from the word vectors before the
	// reward's cosine γ (the default); false is Eq. 9's plain cosine, as published. With the
	// default GloVe vectors the plain cosine of two random words of the 5,000 is 0.23 on average
	// and that of "would" with any word 0.41, so the plain reward pays every exploration draw and
	// such hub words at every position; centred, both averages are about 0, and the model trained
	// with it keeps more mass on the original word (0.210 against 0.137 on configs/erae.toml's
	// snippets) and rates closer words in its top 5 (see the README). Model files written before
	// this option (plain reward) read as false.
	CenterVectors bool `json:"center_vectors,omitempty"`
	// StartState starts the generator from ELU(dense(E(x))) rather than from zero (Sizes.StartState;
	// the authors' code). WordDropout is the probability with which each previous original token
	// fed to the generator during training (not the begin token) is replaced by the unknown row,
	// drawn independently per position (the authors' code: 0.5), so that the generator must rely
	// on the latent vector rather than copy its input; generation never drops. FreezeEmbeddings
	// keeps the word rows of the embedding at the configured vectors (the authors' code trains
	// only the encoder and generator; the unknown and begin rows, which have no vector, still
	// train). Model files written before these options read as false, 0 and false: the zero start,
	// no dropout, fine-tuned embeddings.
	StartState       bool    `json:"start_state,omitempty"`
	WordDropout      float64 `json:"word_dropout,omitempty"`
	FreezeEmbeddings bool    `json:"freeze_embeddings,omitempty"`
	// FunctionWords records that the training corpus kept its function words (stopwords), as
	// the paper's sentences do, so that the model generates them: its mechanism then rewrites
	// the stopwords of a released text too (Mechanism.RewritesStopwords). Train does not read
	// it; the caller gives it such a corpus (`dptext train erae --function-words`). Model files
	// written before this option read as false: trained on the normalised words.
	FunctionWords bool `json:"function_words,omitempty"`
	// Seed fixes the initial weights, the windows of every step and the exploration draws.
	Seed uint64 `json:"seed"`
}

// DefaultTrainOptions returns the defaults: 5,000 words, H = Z = 128, windows of 12 tokens,
// batch 64, learning rate 0.003, k = 5, λ_recon = 1, λ_embed = 0.5, and as in the authors' code
// the generator's start state ELU(dense(E(x))), word dropout 0.5 on the generator's inputs and
// frozen word vectors; 7,000 steps (5.4 million tokens) of which the first 5,000 are
// pre-training on the reconstruction loss (the committed models, trained under a tighter time
// budget, pass --steps 1500 --pretrain-steps 1100; models/README.md): the AE-DP
// ablation (Reward false) trains the same 7,000 steps on the reconstruction loss alone, so the
// two differ only by the reward. About 26 minutes for one model at the ≈ 3,400 tokens/s of
// BenchmarkTrainStep on two idle cores; two side by side took 33 minutes. Pre-training 5,000
// rather than 3,000 steps: the reconstruction loss was still falling fast at 3,000 (2.71 nats,
// 1.59 at 5,000), and reward training started from the less trained model kept less mass on
// the original word on new text (0.113 against 0.137 now). Windows of 12 tokens rather than
// the paper's sentences of up to 50: at equal tokens seen, the reconstruction loss fell faster
// with them (6.22 nats after 537,000 tokens, still falling by 0.28 per 64,000, against 6.26 and
// 0.1 per 96,000 for windows of 20; 50-token windows had only reached 6.1 after 5.8 million),
// and the learning rate is the one of those measurements. 5,000 words and one GRU layer of 128
// rather than the paper's 20,000 and two of 512: the output layer alone (V·H products per token)
// and the recurrent products (H² per layer) would each cost 16 times as much per token, about
// seven hours per model on these cores; with 10,000 words the loss stayed at the unigram level
// (models/README.md). Unlike the paper, the training windows have no function words by default
// (FunctionWords false): they are the normalised words (stopwords removed) that every mechanism
// reads and every scorer measures in the protocol (SPEC §3), so a model trained on sentences
// with them would be evaluated on windows unlike its training text, and its vocabulary, drawn
// from the training corpus, would spend rows on stopwords the protocol never releases. The
// configured vectors have no stopword rows either unless the config sets vocabulary = "all"
// (then the default GloVe vectors have rows for 127 of the 179 stopwords).
func DefaultTrainOptions() TrainOptions {
	return TrainOptions{Vocab: 5000, Hidden: 128, Latent: 128, Length: 12, Batch: 64, PretrainSteps: 5000, Steps: 7000,
		LearningRate: 0.003, Clip: 5, Reward: true, K: 5, LambdaRecon: 1, LambdaEmbed: 0.5, CenterVectors: true,
		StartState: true, WordDropout: 0.5, FreezeEmbeddings: true, Seed: 1}
}

// Validate reports the first invalid option.
func (o TrainOptions) Validate() error {
	switch {
	case o.Vocab < 2:
		return fmt.Errorf("vocab = %d: want at least 2 words", o.Vocab)
	case o.Hidden < 1 || o.Latent < 1:
		return fmt.Errorf("hidden = %d, latent = %d: want positive sizes", o.Hidden, o.Latent)
	case o.Length < 1 || o.Batch < 1:
		return fmt.Errorf("length = %d, batch = %d: want positive values", o.Length, o.Batch)
	case o.Steps < 1 || o.PretrainSteps < 0 || o.PretrainSteps > o.Steps:
		return fmt.Errorf("steps = %d, pretrain_steps = %d: want 0 ≤ pretrain_steps ≤ steps, steps ≥ 1", o.Steps, o.PretrainSteps)
	case !(o.LearningRate > 0) || o.Clip < 0:
		return fmt.Errorf("learning_rate = %g, clip = %g: want learning_rate > 0, clip ≥ 0", o.LearningRate, o.Clip)
	case o.Reward && (o.K < 1 || o.LambdaEmbed < 0):
		return fmt.Errorf("k = %d, lambda_embed = %g: want k ≥ 1 and lambda_embed ≥ 0 with the reward", o.K, o.LambdaEmbed)
	case !(o.LambdaRecon >= 0):
		return fmt.Errorf("lambda_recon = %g: want ≥ 0", o.LambdaRecon)
	case !(o.WordDropout >= 0 && o.WordDropout < 1):
		return fmt.Errorf("word_dropout = %g: want 0 ≤ word_dropout < 1", o.WordDropout)
	}
	return nil
}

// Progress is reported after every step.
type Progress struct {
	Step, Steps int
	// Phase is "pretrain" or "reward".
	Phase string
	Losses
	// TokensPerSecond is the throughput since this process started (or resumed).
	TokensPerSecond float64
	// Left estimates the remaining time.
	Left time.Duration
	// Snapshot returns the model as a training of Step steps with the same other options would
	// have returned it (its header records Steps = Step, and PretrainSteps = Step when that is
	// fewer): the computation of a step does not depend on the total, so its file has the same
	// bytes as that shorter training's. Valid only during the progress call.
	Snapshot func() (*Model, error)
}

// Vocabulary returns the n most frequent words of corpus that have a vector in store, by
// decreasing frequency (ties by word).
func Vocabulary(corpus [][]string, store *embeddings.Store, n int) []string {
	freq := map[string]int{}
	for _, d := range corpus {
		for _, w := range d {
			freq[w]++
		}
	}
	words := make([]string, 0, len(freq))
	for w := range freq {
		if _, ok := store.Lookup(w); ok {
			words = append(words, w)
		}
	}
	sort.Slice(words, func(i, j int) bool {
		if freq[words[i]] != freq[words[j]] {
			return freq[words[i]] > freq[words[j]]
		}
		return words[i] < words[j]
	})
	return words[:min(n, len(words))]
}

// wordRows returns the vectors of words (each must have one in store), row by row.
func wordRows(store *embeddings.Store, words []string) []float32 {
	rows := make([]float32, 0, len(words)*store.Dim())
	for _, w := range words {
		id, _ := store.Lookup(w)
		rows = append(rows, store.Vector(id)...)
	}
	return rows
}

// encodeCorpus maps every document's words to rows of the vocabulary words (unknown words to
// the unk row).
func encodeCorpus(words []string, corpus [][]string) [][]int32 {
	index := make(map[string]int32, len(words))
	for i, w := range words {
		index[w] = int32(i)
	}
	ids := make([][]int32, len(corpus))
	for i, d := range corpus {
		ids[i] = encode(index, len(words), d)
	}
	return ids
}

// windows cuts every document of at least length tokens into consecutive windows of length
// tokens (the last one ending at the document's end, overlapping its predecessor).
func windows(corpus [][]int32, length int) [][]int32 {
	var out [][]int32
	for _, d := range corpus {
		if len(d) < length {
			continue
		}
		for s := 0; ; s += length {
			if s+length >= len(d) {
				out = append(out, d[len(d)-length:])
				break
			}
			out = append(out, d[s:s+length])
		}
	}
	return out
}

// trainer is the state of a training run: it is what a checkpoint holds.
type trainer struct {
	opts  TrainOptions
	words []string
	p     *Params[float32]
	m, v  []float32 // Adam's moments
	step  int
	// curve holds the mean losses of each finished block of curveEvery steps.
	curve []CurvePoint
	acc   Losses
	accN  int
}

// CurvePoint is the mean training loss over a block of steps.
type CurvePoint struct {
	Step  int     `json:"step"`
	Recon float64 `json:"recon"`
	Embed float64 `json:"embed"`
}

const curveEvery = 25

// Train trains a model on corpus (normalised documents: the protocol's training documents,
// never the evaluation authors') with word vectors from store. When checkpoint is not empty, the
// state is written there atomically every checkpointEvery steps (and when ctx ends), and a
// checkpoint of the same options, corpus and vectors found there is resumed; the result equals
// an uninterrupted run's. progress, when not nil, is called after every step.
func Train(ctx context.Context, corpus [][]string, store *embeddings.Store, opts TrainOptions, checkpoint string, checkpointEvery int, progress func(Progress)) (*Model, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if !opts.Reward {
		// The centring only changes the reward's γ: without the reward the model file records
		// false, whatever was asked, so that equal trainings write equal files.
		opts.CenterVectors = false
	}
	d, err := prepareTraining(corpus, store, opts)
	if err != nil {
		return nil, err
	}
	tr, err := startTrainer(opts, d, checkpoint)
	if err != nil {
		return nil, err
	}
	st := &stepState{
		rw:   newRewarder(d.vectors, store.Dim(), opts.CenterVectors),
		w:    newBatch[float32](d.sizes, opts.Batch, opts.Length),
		g:    NewParams[float32](d.sizes),
		seqs: make([][]int32, opts.Batch),
	}
	start, startStep := time.Now(), tr.step
	save := func() error {
		if checkpoint == "" {
			return nil
		}
		return writeModelFile(checkpoint, tr.header(d.fp, true), tr.p, tr.m, tr.v)
	}
	for tr.step < opts.Steps {
		if err := ctx.Err(); err != nil {
			if serr := save(); serr != nil {
				return nil, serr
			}
			return nil, err
		}
		l, reward, err := tr.trainStep(opts, d, st, checkpoint)
		if err != nil {
			return nil, err
		}
		if progress != nil {
			progress(tr.progress(opts, d, l, reward, time.Since(start), startStep))
		}
		if checkpointEvery > 0 && tr.step%checkpointEvery == 0 && tr.step < opts.Steps {
			if err := save(); err != nil {
				return nil, err
			}
		}
	}
	return tr.model(d.fp)
}

// trainingData is what a training reads: the output vocabulary with its vectors' rows, the
// encoded corpus, its windows, the model's sizes and the fingerprint of all of it.
type trainingData struct {
	words   []string
	vectors []float32
	ids     [][]int32
	wins    [][]int32
	sizes   Sizes
	fp      string
}

// prepareTraining picks the vocabulary of corpus with vectors in store, encodes the corpus
// and cuts it into windows of opts.Length tokens.
func prepareTraining(corpus [][]string, store *embeddings.Store, opts TrainOptions) (*trainingData, error) {
	words := Vocabulary(corpus, store, opts.Vocab)
	if len(words) < 2 {
		return nil, fmt.Errorf("erae: the training corpus has %d words with vectors: want at least 2", len(words))
	}
	d := &trainingData{words: words, vectors: wordRows(store, words), ids: encodeCorpus(words, corpus)}
	d.wins = windows(d.ids, opts.Length)
	if len(d.wins) == 0 {
		return nil, fmt.Errorf("erae: no training document has %d tokens (length): lower length or use longer documents", opts.Length)
	}
	d.sizes = Sizes{Vocab: len(words), Embed: store.Dim(), Hidden: opts.Hidden, Latent: opts.Latent, StartState: opts.StartState}
	d.fp = dataFingerprint(opts, words, d.vectors, d.ids)
	return d, nil
}

// startTrainer resumes the checkpoint of the same training when there is one, else starts
// from initial weights drawn from the stream "erae/init".
func startTrainer(opts TrainOptions, d *trainingData, checkpoint string) (*trainer, error) {
	tr := &trainer{opts: opts, words: d.words}
	if checkpoint != "" {
		resumed, err := readCheckpoint(checkpoint, d.fp)
		if err != nil {
			return nil, err
		}
		if resumed != nil {
			tr = resumed
		}
	}
	if tr.p == nil {
		tr.p = NewParams[float32](d.sizes)
		initParams(tr.p, d.vectors, rngs.New(opts.Seed, "erae/init"))
		tr.m, tr.v = make([]float32, len(tr.p.All)), make([]float32, len(tr.p.All))
	}
	return tr, nil
}

// stepState is the working memory of the training steps: the reward's candidates, the batch,
// the gradient and the batch's windows.
type stepState struct {
	rw   *rewarder
	w    *batch[float32]
	g    *Params[float32]
	seqs [][]int32
}

// trainStep trains one step: a batch of windows drawn from the step's stream, word dropout,
// the forward pass, the losses (with the embedding reward after pre-training), the backward
// pass and Adam's update. It returns the step's losses and whether the reward was on.
func (tr *trainer) trainStep(opts TrainOptions, d *trainingData, st *stepState, checkpoint string) (Losses, bool, error) {
	sizes, w, g := d.sizes, st.w, st.g
	rng := rngs.New(opts.Seed, fmt.Sprintf("erae/step=%d", tr.step))
	for b := range st.seqs {
		st.seqs[b] = d.wins[rng.IntN(len(d.wins))]
	}
	w.load(sizes, st.seqs)
	if opts.WordDropout > 0 {
		w.dropWords(sizes, opts.WordDropout, rngs.New(opts.Seed, fmt.Sprintf("erae/dropout/step=%d", tr.step)))
	}
	w.forward(tr.p)
	reward := opts.Reward && tr.step >= opts.PretrainSteps
	var cands []candidate
	lambdaEmbed := 0.0
	if reward {
		cands = selectCandidates(st.rw, w.probs, w.ids, sizes.Vocab, opts.K, rng)
		lambdaEmbed = opts.LambdaEmbed
	}
	l := lossGrad(w.probs, w.ids, sizes.Vocab, cands, opts.LambdaRecon, lambdaEmbed)
	if !finite(l.Recon) || !finite(l.Embed) {
		return l, reward, tr.diverged(fmt.Sprintf("loss recon %g, embed %g", l.Recon, l.Embed), checkpoint)
	}
	if !reward && opts.Reward {
		// No reward loss during pre-training: NaN, which the loss curve skips.
		l.Embed = math.NaN()
	}
	clear(g.All)
	w.backward(tr.p, g)
	if opts.FreezeEmbeddings {
		clear(g.Emb[:sizes.Vocab*sizes.Embed])
	}
	if !tr.adam(g.All) {
		return l, reward, tr.diverged("the gradient is not finite", checkpoint)
	}
	tr.step++
	tr.record(l)
	return l, reward, nil
}

// progress describes the step just finished with losses l, elapsed after the training (or
// its resumption) started at startStep.
func (tr *trainer) progress(opts TrainOptions, d *trainingData, l Losses, reward bool, elapsed time.Duration, startStep int) Progress {
	secs := elapsed.Seconds()
	tps := float64((tr.step-startStep)*opts.Batch*opts.Length) / secs
	left := time.Duration(float64(opts.Steps-tr.step) * secs / float64(tr.step-startStep) * float64(time.Second))
	phase := "pretrain"
	if reward {
		phase = "reward"
	}
	return Progress{Step: tr.step, Steps: opts.Steps, Phase: phase, Losses: l, TokensPerSecond: tps, Left: left,
		Snapshot: func() (*Model, error) { return tr.snapshot(d.vectors, d.ids) }}
}

// snapshot returns a copy of the model at the current step with the options (and data
// fingerprint) of a training that ends here.
func (tr *trainer) snapshot(vectors []float32, ids [][]int32) (*Model, error) {
	o := tr.opts
	o.Steps, o.PretrainSteps = tr.step, min(o.PretrainSteps, tr.step)
	h := tr.header(dataFingerprint(o, tr.words, vectors, ids), false)
	h.Options, h.Curve = o, slices.Clone(tr.curve)
	p := NewParams[float32](tr.p.Sizes)
	copy(p.All, tr.p.All)
	return newModel(h, p)
}

// diverged returns the error of a training run stopped at a non-finite loss or gradient
// (what), before the step's update: the weights are not written, a checkpoint keeps its last
// finite state.
func (tr *trainer) diverged(what, checkpoint string) error {
	kept := "no checkpoint is kept"
	if checkpoint != "" {
		kept = fmt.Sprintf("the checkpoint %s keeps the last state written before it", checkpoint)
	}
	return fmt.Errorf("erae: training diverged at step %d of %d (%s); %s; try a lower learning rate", tr.step+1, tr.opts.Steps, what, kept)
}

// adam applies one Adam update (β₁ = 0.9, β₂ = 0.999, ε = 1e−8) with the gradient g, after
// clipping its global norm to opts.Clip. It returns false, changing nothing, when the gradient
// has a non-finite entry.
func (tr *trainer) adam(g []float32) bool {
	scale := 1.0
	norm := 0.0
	for _, x := range g {
		norm += float64(x) * float64(x)
	}
	if !finite(norm) {
		return false
	}
	if norm = math.Sqrt(norm); tr.opts.Clip > 0 && norm > tr.opts.Clip {
		scale = tr.opts.Clip / norm
	}
	const b1, b2, eps = 0.9, 0.999, 1e-8
	t := float64(tr.step + 1)
	lr := tr.opts.LearningRate * math.Sqrt(1-math.Pow(b2, t)) / (1 - math.Pow(b1, t))
	p := tr.p.All
	for i, x := range g {
		gi := float64(x) * scale
		m := b1*float64(tr.m[i]) + (1-b1)*gi
		v := b2*float64(tr.v[i]) + (1-b2)*gi*gi
		tr.m[i], tr.v[i] = float32(m), float32(v)
		p[i] -= float32(lr * m / (math.Sqrt(v) + eps))
	}
	return true
}

// finite says whether x is neither NaN nor infinite.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// record adds a step's losses to the loss curve.
func (tr *trainer) record(l Losses) {
	tr.acc.Recon += l.Recon
	if !math.IsNaN(l.Embed) {
		tr.acc.Embed += l.Embed
	}
	tr.accN++
	if tr.accN == curveEvery {
		n := float64(tr.accN)
		tr.curve = append(tr.curve, CurvePoint{Step: tr.step, Recon: tr.acc.Recon / n, Embed: tr.acc.Embed / n})
		tr.acc, tr.accN = Losses{}, 0
	}
}

// encode maps a document's words to vocabulary rows (unknown words to vocab, the unk row).
func encode(index map[string]int32, vocab int, doc []string) []int32 {
	out := make([]int32, len(doc))
	for i, w := range doc {
		id, ok := index[w]
		if !ok {
			id = int32(vocab)
		}
		out[i] = id
	}
	return out
}
