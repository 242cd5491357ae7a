package erae

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"dptext/embeddings"
	"dptext/internal/rngs"
)

// toyData returns a store of 40 words in 8 dimensions (words of one group share a direction)
// and a corpus of 30 documents of 24 tokens drawn from a few repeating patterns.
func toyData(t *testing.T) (*embeddings.Store, [][]string) {
	t.Helper()
	const n, dim = 40, 8
	words := make([]string, n)
	for i := range words {
		words[i] = fmt.Sprintf("w%02d", i)
	}
	store := synthStore(t, rand.New(rand.NewPCG(7, 7)), words, dim, 0.3, func(i int) int { return i % dim })
	var corpus [][]string
	for d := range 30 {
		doc := make([]string, 24)
		for i := range doc {
			doc[i] = words[(d*3+i*(1+d%4))%n]
		}
		doc[5] = "zzz-oov"
		corpus = append(corpus, doc)
	}
	return store, corpus
}

// synthStore returns a store of words with vectors of dim Gaussian coordinates of standard
// deviation noise (drawn from rng word by word), plus 1 on coordinate group(i) of word i when
// that is not negative: the words of a group share a direction.
func synthStore(t *testing.T, rng *rand.Rand, words []string, dim int, noise float64, group func(i int) int) *embeddings.Store {
	t.Helper()
	vecs := make([]float32, len(words)*dim)
	for i := range words {
		for j := range dim {
			vecs[i*dim+j] = float32(noise * rng.NormFloat64())
		}
		if g := group(i); g >= 0 {
			vecs[i*dim+g] += 1
		}
	}
	store, err := embeddings.New(words, dim, vecs)
	if err != nil {
		t.Fatal(err)
	}
	return store
}

func toyOptions() TrainOptions {
	o := DefaultTrainOptions()
	o.Vocab, o.Hidden, o.Latent, o.Length, o.Batch, o.PretrainSteps, o.Steps = 40, 16, 8, 12, 8, 50, 100
	o.LearningRate = 0.01
	return o
}

// TestTrainLowersLossAndResumes trains a toy model, checks that the reconstruction loss falls,
// and that a run interrupted after a checkpoint and resumed ends with the same weights (bit for
// bit) as an uninterrupted one.
func TestTrainLowersLossAndResumes(t *testing.T) {
	store, corpus := toyData(t)
	opts := toyOptions()
	full, err := Train(context.Background(), corpus, store, opts, "", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if first, last := full.Curve[0].Recon, full.Curve[len(full.Curve)-1].Recon; !(last < first-0.5) {
		t.Errorf("reconstruction loss %.3f → %.3f: want a clear decrease", first, last)
	}
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "m.ckpt")
	ctx, cancel := context.WithCancel(context.Background())
	_, err = Train(ctx, corpus, store, opts, ckpt, 10, func(p Progress) {
		if p.Step == 27 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted training returned %v, want context.Canceled", err)
	}
	resumed, err := Train(context.Background(), corpus, store, opts, ckpt, 10, func(p Progress) {
		if p.Step <= 27 {
			t.Errorf("resumed run repeated step %d", p.Step)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range full.p.All {
		if full.p.All[i] != resumed.p.All[i] {
			t.Fatalf("weight %d differs after resuming: %g vs %g", i, resumed.p.All[i], full.p.All[i])
		}
	}
	other := opts
	other.Seed++
	if _, err := Train(context.Background(), corpus, store, other, ckpt, 10, nil); err == nil || !strings.Contains(err.Error(), "other options") {
		t.Errorf("checkpoint of other options: err = %v, want a mismatch error", err)
	}
}

// TestModelFileErrors saves a model, reloads it, and checks that damaged, foreign and
// version-mismatched files are refused with errors naming the file and the problem.
func TestModelFileErrors(t *testing.T) {
	store, corpus := toyData(t)
	opts := toyOptions()
	opts.Steps, opts.PretrainSteps = 3, 1
	m, err := Train(context.Background(), corpus, store, opts, "", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "model.erae")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !equalFloats(back.p.All, m.p.All) || strings.Join(back.Words, " ") != strings.Join(m.Words, " ") {
		t.Fatal("reloaded model differs")
	}
	data, _ := os.ReadFile(path)
	cases := map[string][]byte{
		"checksum mismatch":     flip(data, len(data)/2),
		"truncated":             data[:len(magic)+5],
		"not an ER-AE model":    []byte("hello world, not a model"),
		"format version 9":      withVersion(data, 9),
		"checksum mismatch (b)": data[:len(data)-1],
	}
	for want, content := range cases {
		p := filepath.Join(dir, "bad")
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(p)
		w := strings.TrimSuffix(want, " (b)")
		if err == nil || !strings.Contains(err.Error(), w) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: err = %v, want one naming %s and %q", want, err, p, w)
		}
	}
}

func flip(b []byte, i int) []byte {
	c := bytes.Clone(b)
	c[i] ^= 1
	return c
}

func withVersion(b []byte, v byte) []byte {
	c := bytes.Clone(b)
	c[len(magic)] = v
	return c
}

func equalFloats(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestTrainSameAtAnyCoreCount trains a model whose products are large enough to be split into
// blocks across goroutines, with one and with four cores, and requires the same weights bit for
// bit: the committed models are reproducible on any machine from the command and the seed.
func TestTrainSameAtAnyCoreCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n, dim = 300, 16
	words := make([]string, n)
	for i := range words {
		words[i] = fmt.Sprintf("w%03d", i)
	}
	store := synthStore(t, rng, words, dim, 1, func(int) int { return -1 })
	corpus := make([][]string, 40)
	for d := range corpus {
		corpus[d] = make([]string, 30)
		for i := range corpus[d] {
			corpus[d][i] = words[rng.IntN(n)]
		}
	}
	opts := DefaultTrainOptions()
	opts.Vocab, opts.Hidden, opts.Latent, opts.Length, opts.Batch, opts.PretrainSteps, opts.Steps = n, 96, 32, 10, 24, 3, 6
	train := func(procs int) []float32 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		m, err := Train(context.Background(), corpus, store, opts, "", 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		return m.p.All
	}
	one, four := train(1), train(4)
	for i := range one {
		if one[i] != four[i] {
			t.Fatalf("weight %d: %g with one core, %g with four", i, one[i], four[i])
		}
	}
}

// TestTrainStopsWhenDiverged gives one word a non-finite vector, so that the first forward pass
// is NaN: Train must stop with an error naming the step and must not write a checkpoint of the
// poisoned state (before, the checkpoint's JSON encoder failed on the NaN loss).
func TestTrainStopsWhenDiverged(t *testing.T) {
	good, corpus := toyData(t)
	vecs := slices.Clone(good.Matrix())
	vecs[0] = float32(math.NaN())
	bad, err := embeddings.New(good.Words(), good.Dim(), vecs)
	if err != nil {
		t.Fatal(err)
	}
	ckpt := filepath.Join(t.TempDir(), "m.partial")
	_, err = Train(context.Background(), corpus, bad, toyOptions(), ckpt, 1, nil)
	if err == nil || !strings.Contains(err.Error(), "diverged at step 1 of 100") {
		t.Fatalf("NaN vectors: error %v, want one saying the training diverged at step 1 of 100", err)
	}
	if _, serr := os.Stat(ckpt); !errors.Is(serr, fs.ErrNotExist) {
		t.Errorf("a checkpoint was written at the diverged step (stat: %v)", serr)
	}
}

// TestNoRewardRecordsNoCentring checks that a training without the reward records
// center_vectors = false whatever was asked (the option only changes the reward), so that
// `dptext train erae --no-reward`, whose --center-vectors defaults to true, writes the same
// file as one asking for plain vectors. It fails on the code before the fix (checked: the
// headers differ in center_vectors).
func TestNoRewardRecordsNoCentring(t *testing.T) {
	store, corpus := toyData(t)
	dir := t.TempDir()
	var files [2][]byte
	for i, center := range []bool{true, false} {
		opts := toyOptions()
		opts.Reward, opts.CenterVectors = false, center
		m, err := Train(context.Background(), corpus, store, opts, "", 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if m.Options.CenterVectors {
			t.Errorf("center_vectors = %v asked without the reward: the model records true", center)
		}
		path := filepath.Join(dir, fmt.Sprint(i))
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		if files[i], err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("without the reward, center_vectors = true and false wrote different files")
	}
}

// TestFreezeEmbeddings checks that with FreezeEmbeddings the word rows of the embedding end
// exactly at the configured vectors while the unknown and begin rows (no vector) and the other
// weights train; the mutant, the same training with the option off, moves the word rows (so the
// check can fail). Deterministic: no false-failure rate.
func TestFreezeEmbeddings(t *testing.T) {
	store, corpus := toyData(t)
	for _, freeze := range []bool{true, false} {
		opts := toyOptions()
		opts.FreezeEmbeddings = freeze
		m, err := Train(context.Background(), corpus, store, opts, "", 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		vecs := wordRows(store, m.Words)
		E := m.Sizes.Embed
		moved := 0
		for i, v := range vecs {
			if m.p.Emb[i] != v {
				moved++
			}
		}
		special := 0
		init := NewParams[float32](m.Sizes)
		initParams(init, vecs, rngs.New(opts.Seed, "erae/init"))
		for i := m.Sizes.Vocab * E; i < len(m.p.Emb); i++ {
			if m.p.Emb[i] != init.Emb[i] {
				special++
			}
		}
		switch {
		case freeze && moved > 0:
			t.Errorf("frozen: %d of %d word-row weights moved", moved, len(vecs))
		case !freeze && moved < len(vecs)/2:
			t.Errorf("mutant (not frozen): only %d of %d word-row weights moved: the check cannot fail", moved, len(vecs))
		case special < E:
			t.Errorf("freeze = %v: only %d of the unknown and begin rows' %d weights moved", freeze, special, 2*E)
		}
	}
}

// TestWordDropout checks dropWords: the begin token is never dropped, and of the 704 other
// positions of a 64 × 12 batch the share replaced by the unknown row is 0.5 within ± 0.085
// (4.5 standard deviations: a false-failure rate below 1e-5 per seed; the seed is fixed). It
// catches a rate off by 0.1 or more (the mutant, rate 0.35, fails) and dropping the begin token.
func TestWordDropout(t *testing.T) {
	s := Sizes{Vocab: 40, Embed: 2, Hidden: 2, Latent: 2}
	const B, T = 64, 12
	share := func(rate float64) float64 {
		w := newBatch[float32](s, B, T)
		seqs := make([][]int32, B)
		for b := range seqs {
			seqs[b] = make([]int32, T)
			for i := range seqs[b] {
				seqs[b][i] = int32((b + i) % 40)
			}
		}
		w.load(s, seqs)
		w.dropWords(s, rate, rngs.New(5, "test/dropout"))
		dropped := 0
		for i, id := range w.prev {
			switch {
			case i < B && id != s.bos():
				t.Fatalf("rate %g: begin token of sequence %d replaced by %d", rate, i, id)
			case i >= B && id == s.unk():
				dropped++
			}
		}
		return float64(dropped) / float64(B*(T-1))
	}
	if got := share(0.5); math.Abs(got-0.5) > 0.085 {
		t.Errorf("rate 0.5: %.3f of the positions dropped", got)
	}
	if got := share(0.35); math.Abs(got-0.5) <= 0.085 {
		t.Errorf("mutant rate 0.35: %.3f dropped passes the check", got)
	}
}

// TestSnapshotEqualsShorterTraining checks that the snapshot of a longer training at step s
// writes the same bytes as a training of s steps, once in the reward phase (s = 75 of 100, 50
// pre-training) and once during pre-training (s = 30: a training of 30 steps all pre-training).
// It fails if the snapshot keeps the longer run's options or fingerprint, shares the weights
// that the later steps go on changing, or if a step's computation depended on the total.
func TestSnapshotEqualsShorterTraining(t *testing.T) {
	store, corpus := toyData(t)
	opts := toyOptions()
	dir := t.TempDir()
	snaps := map[int]*Model{}
	if _, err := Train(context.Background(), corpus, store, opts, "", 0, func(p Progress) {
		if p.Step == 30 || p.Step == 75 {
			m, err := p.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			snaps[p.Step] = m
		}
	}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []int{30, 75} {
		short := opts
		short.Steps, short.PretrainSteps = s, min(opts.PretrainSteps, s)
		want, err := Train(context.Background(), corpus, store, short, "", 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		a, b := filepath.Join(dir, fmt.Sprintf("snap%d", s)), filepath.Join(dir, fmt.Sprintf("short%d", s))
		if err := snaps[s].Save(a); err != nil {
			t.Fatal(err)
		}
		if err := want.Save(b); err != nil {
			t.Fatal(err)
		}
		ab, _ := os.ReadFile(a)
		bb, _ := os.ReadFile(b)
		if !bytes.Equal(ab, bb) {
			t.Errorf("snapshot at step %d: %d bytes differ from a %d-step training's %d", s, len(ab), s, len(bb))
		}
	}
}
