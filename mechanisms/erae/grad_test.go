package erae

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestGradientsMatchFiniteDifferences checks every parameter's analytical gradient of the
// combined loss (reconstruction plus embedding reward, candidates held fixed) against central
// differences in float64 on a tiny model, with the generator's zero start state and with its
// ELU(dense(E(x))) start state. It fails on any wrong term of the backward pass (tested by
// construction: a sign error or a dropped term moves the gradient by O(1); checked for the start
// state by leaving out its ELU factor: 279 of the 465 parameters' gradients then fail).
func TestGradientsMatchFiniteDifferences(t *testing.T) {
	for _, start := range []bool{false, true} {
		t.Run(fmt.Sprintf("start_state=%v", start), func(t *testing.T) {
			checkGradients(t, Sizes{Vocab: 7, Embed: 3, Hidden: 4, Latent: 3, StartState: start})
		})
	}
}

func checkGradients(t *testing.T, s Sizes) {
	rng := rand.New(rand.NewPCG(1, 2))
	p := NewParams[float64](s)
	vectors := make([]float32, s.Vocab*s.Embed)
	for i := range vectors {
		vectors[i] = float32(rng.NormFloat64())
	}
	initParams(p, vectors, rng)
	for i := range p.All { // non-zero biases too, so their gradients are exercised
		p.All[i] += 0.3 * rng.NormFloat64()
	}
	seqs := [][]int32{{0, 3, 6, 2, 9}, {5, 5, 1, 4, 0}, {2, 6, 8, 3, 1}} // 8, 9: out of vocabulary
	w := newBatch[float64](s, len(seqs), len(seqs[0]))
	w.load(s, seqs)
	rw := newRewarder(vectors, s.Embed, true)
	w.forward(p)
	cands := selectCandidates(rw, w.probs, w.ids, s.Vocab, 2, rand.New(rand.NewPCG(3, 4)))
	loss := func() float64 {
		w.forward(p)
		l := lossGrad(w.probs, w.ids, s.Vocab, cands, 1, 0.5)
		return l.Recon + 0.5*l.Embed
	}
	loss()
	g := NewParams[float64](s)
	w.forward(p)
	lossGrad(w.probs, w.ids, s.Vocab, cands, 1, 0.5)
	w.backward(p, g)
	const h = 1e-5
	worst := 0.0
	for i := range p.All {
		orig := p.All[i]
		p.All[i] = orig + h
		up := loss()
		p.All[i] = orig - h
		down := loss()
		p.All[i] = orig
		num := (up - down) / (2 * h)
		err := math.Abs(num-g.All[i]) / max(1e-6, math.Abs(num)+math.Abs(g.All[i]))
		worst = max(worst, err)
		if err > 1e-5 && math.Abs(num-g.All[i]) > 1e-8 {
			t.Errorf("parameter %d (%s): analytical %.10g, numerical %.10g", i, paramName(p, i), g.All[i], num)
		}
	}
	t.Logf("%d parameters, worst relative error %.2g", len(p.All), worst)
}
