package erae

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkTrainStep measures one training step (forward, reward candidates, loss, backward,
// Adam) at the default sizes on random tokens.
func BenchmarkTrainStep(b *testing.B) {
	o := DefaultTrainOptions()
	s := Sizes{Vocab: o.Vocab, Embed: 100, Hidden: o.Hidden, Latent: o.Latent}
	rng := rand.New(rand.NewPCG(1, 2))
	vectors := make([]float32, s.Vocab*s.Embed)
	for i := range vectors {
		vectors[i] = float32(rng.NormFloat64())
	}
	tr := &trainer{opts: o, p: NewParams[float32](s)}
	initParams(tr.p, vectors, rng)
	tr.m, tr.v = make([]float32, len(tr.p.All)), make([]float32, len(tr.p.All))
	rw := newRewarder(vectors, s.Embed, true)
	w := newBatch[float32](s, o.Batch, o.Length)
	g := NewParams[float32](s)
	seqs := make([][]int32, o.Batch)
	for i := range seqs {
		seqs[i] = make([]int32, o.Length)
		for j := range seqs[i] {
			seqs[i][j] = int32(rng.IntN(s.Vocab))
		}
	}
	for b.Loop() {
		w.load(s, seqs)
		w.forward(tr.p)
		cands := selectCandidates(rw, w.probs, w.ids, s.Vocab, o.K, rng)
		lossGrad(w.probs, w.ids, s.Vocab, cands, 1, 0.5)
		clear(g.All)
		w.backward(tr.p, g)
		tr.adam(g.All)
	}
	b.ReportMetric(float64(o.Batch*o.Length)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
}
