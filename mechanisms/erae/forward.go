package erae

import (
	"math"
	"math/rand/v2"
)

// batch is the workspace of one forward and backward pass over B sequences of the same length
// T. Token rows are step-major: row t·B + b is position t of sequence b.
type batch[T Float] struct {
	B, T             int
	ids, prev        []int32 // T·B: the tokens and each position's previous token (bos first)
	xf, xb, xg       []T     // T·B×E: encoder inputs in order and reversed, generator inputs
	encF, encB, gen  *gruTrace[T]
	cat, z, zg       []T // B×2H, B×Z, B×3H
	probs            []T // T·B×V: the logits, then the probabilities, then their gradients
	dgxF, dgxB, dgxG []T // T·B×3H
	dx               []T // T·B×E
	ds               []T // T·B×H: gradient on the generator's outputs
	dz, dcat, dzg    []T
	dLastF, dLastB   []T // B×H
	scrE, scrG       *gruScratch[T]
}

func newBatch[T Float](s Sizes, B, steps int) *batch[T] {
	E, H, Z, V := s.Embed, s.Hidden, s.Latent, s.Vocab
	n := steps * B
	return &batch[T]{B: B, T: steps, ids: make([]int32, n), prev: make([]int32, n),
		xf: make([]T, n*E), xb: make([]T, n*E), xg: make([]T, n*E),
		encF: newGRUTrace[T](steps, B, H), encB: newGRUTrace[T](steps, B, H), gen: newGRUTrace[T](steps, B, H),
		cat: make([]T, B*2*H), z: make([]T, B*Z), zg: make([]T, B*3*H), probs: make([]T, n*V),
		dgxF: make([]T, n*3*H), dgxB: make([]T, n*3*H), dgxG: make([]T, n*3*H), dx: make([]T, n*E),
		ds: make([]T, n*H), dz: make([]T, B*Z), dcat: make([]T, B*2*H), dzg: make([]T, B*3*H),
		dLastF: make([]T, B*H), dLastB: make([]T, B*H),
		scrE: newGRUScratch[T](steps, B, H), scrG: newGRUScratch[T](steps, B, H)}
}

// load sets the batch's tokens from seqs (B sequences of T row ids each; ids ≥ V mean unk).
func (w *batch[T]) load(s Sizes, seqs [][]int32) {
	for b, seq := range seqs {
		for t, id := range seq {
			if id < 0 || id >= int32(s.Vocab) {
				id = s.unk()
			}
			w.ids[t*w.B+b] = id
			if t == 0 {
				w.prev[b] = s.bos()
			} else {
				w.prev[t*w.B+b] = w.ids[(t-1)*w.B+b]
			}
		}
	}
}

// dropWords replaces each previous token fed to the generator (not the begin token) by the
// unknown row with probability rate, drawn from rng position by position (word dropout).
func (w *batch[T]) dropWords(s Sizes, rate float64, rng *rand.Rand) {
	for i := w.B; i < len(w.prev); i++ {
		if rng.Float64() < rate {
			w.prev[i] = s.unk()
		}
	}
}

// forward computes the generator's probabilities Pr[x̃_i = v] (Eq. 3) for every position into
// w.probs.
func (w *batch[T]) forward(p *Params[T]) {
	E, H, Z, V := p.Embed, p.Hidden, p.Latent, p.Vocab
	B, steps := w.B, w.T
	n := B * steps
	for t := range steps {
		for b := range B {
			i := t*B + b
			j := (steps-1-t)*B + b
			copy(w.xf[i*E:(i+1)*E], p.Emb[int(w.ids[i])*E:])
			copy(w.xb[j*E:(j+1)*E], p.Emb[int(w.ids[i])*E:])
			copy(w.xg[i*E:(i+1)*E], p.Emb[int(w.prev[i])*E:])
		}
	}
	// Encoder, both directions (Eq. 1).
	for _, d := range []struct {
		g  *gru[T]
		tr *gruTrace[T]
		x  []T
	}{{&p.EncF, w.encF, w.xf}, {&p.EncB, w.encB, w.xb}} {
		for i := range n {
			copy(d.tr.gx[i*3*H:(i+1)*3*H], d.g.Bx)
		}
		mulABt(d.tr.gx, d.x, d.g.Wx, n, 3*H, E, 1)
		clear(d.tr.h[:B*H])
		d.g.forward(d.tr, steps, B, H)
	}
	last := steps * B * H
	for b := range B {
		copy(w.cat[b*2*H:b*2*H+H], w.encF.h[last+b*H:last+(b+1)*H])
		copy(w.cat[b*2*H+H:(b+1)*2*H], w.encB.h[last+b*H:last+(b+1)*H])
		copy(w.z[b*Z:(b+1)*Z], p.LatB)
	}
	mulABt(w.z, w.cat, p.Lat, B, Z, 2*H, 1)
	// Generator (Eq. 2): input [Em(x_{i−1}); E(x)].
	mulABt(w.zg, w.z, p.GenZ, B, 3*H, Z, 0)
	for t := range steps {
		for b := range B {
			row := w.gen.gx[(t*B+b)*3*H : (t*B+b+1)*3*H]
			for j := range row {
				row[j] = p.Gen.Bx[j] + w.zg[b*3*H+j]
			}
		}
	}
	mulABt(w.gen.gx, w.xg, p.Gen.Wx, n, 3*H, E, 1)
	// The generator's start state: 0, or ELU(Init·E(x) + InitB).
	h0 := w.gen.h[:B*H]
	clear(h0)
	if p.StartState {
		for b := range B {
			copy(h0[b*H:(b+1)*H], p.InitB)
		}
		mulABt(h0, w.z, p.Init, B, H, Z, 1)
		for i, a := range h0 {
			if a < 0 {
				h0[i] = T(math.Expm1(float64(a)))
			}
		}
	}
	p.Gen.forward(w.gen, steps, B, H)
	for i := range n {
		copy(w.probs[i*V:(i+1)*V], p.OutB)
	}
	mulABt(w.probs, w.gen.h[B*H:], p.Out, n, V, H, 1)
	softmaxRows(w.probs, V)
}

// backward takes the gradient of the loss with respect to the logits in w.probs and adds the
// gradient of every parameter into g.
func (w *batch[T]) backward(p, g *Params[T]) {
	E, H, Z, V := p.Embed, p.Hidden, p.Latent, p.Vocab
	B, steps := w.B, w.T
	n := B * steps
	hs := w.gen.h[B*H:]
	// Output layer.
	mulAB(w.ds, w.probs, p.Out, n, H, V, 0)
	mulAtB(g.Out, w.probs, hs, V, H, n, 1)
	addRows(g.OutB, w.probs, V)
	// Generator.
	p.Gen.backward(w.gen, w.ds, nil, steps, B, H, &g.Gen, w.dgxG, w.scrG)
	mulAtB(g.Gen.Wx, w.dgxG, w.xg, 3*H, E, n, 1)
	addRows(g.Gen.Bx, w.dgxG, 3*H)
	mulAB(w.dx, w.dgxG, p.Gen.Wx, n, E, 3*H, 0)
	for i := range n {
		addTo(g.Emb[int(w.prev[i])*E:int(w.prev[i]+1)*E], w.dx[i*E:(i+1)*E])
	}
	clear(w.dzg)
	for t := range steps {
		addTo(w.dzg, w.dgxG[t*B*3*H:(t+1)*B*3*H])
	}
	mulAtB(g.GenZ, w.dzg, w.z, 3*H, Z, B, 1)
	mulAB(w.dz, w.dzg, p.GenZ, B, Z, 3*H, 0)
	if p.StartState {
		// h0 = ELU(a): ∂h0/∂a = 1 for a > 0, else exp(a) = h0 + 1.
		da, h0 := w.scrG.carry, w.gen.h[:B*H]
		for i, h := range h0 {
			if h <= 0 {
				da[i] *= h + 1
			}
		}
		mulAtB(g.Init, da, w.z, H, Z, B, 1)
		addRows(g.InitB, da, H)
		mulAB(w.dz, da, p.Init, B, Z, H, 1)
	}
	// Latent projection.
	mulAtB(g.Lat, w.dz, w.cat, Z, 2*H, B, 1)
	addRows(g.LatB, w.dz, Z)
	mulAB(w.dcat, w.dz, p.Lat, B, 2*H, Z, 0)
	for b := range B {
		copy(w.dLastF[b*H:(b+1)*H], w.dcat[b*2*H:b*2*H+H])
		copy(w.dLastB[b*H:(b+1)*H], w.dcat[b*2*H+H:(b+1)*2*H])
	}
	// Encoder directions.
	for k, d := range []struct {
		g, gg *gru[T]
		tr    *gruTrace[T]
		x     []T
		dLast []T
		dgx   []T
	}{{&p.EncF, &g.EncF, w.encF, w.xf, w.dLastF, w.dgxF}, {&p.EncB, &g.EncB, w.encB, w.xb, w.dLastB, w.dgxB}} {
		d.g.backward(d.tr, nil, d.dLast, steps, B, H, d.gg, d.dgx, w.scrE)
		mulAtB(d.gg.Wx, d.dgx, d.x, 3*H, E, n, 1)
		addRows(d.gg.Bx, d.dgx, 3*H)
		mulAB(w.dx, d.dgx, d.g.Wx, n, E, 3*H, 0)
		for t := range steps {
			for b := range B {
				i := t*B + b // row of the step
				pos := i
				if k == 1 {
					pos = (steps-1-t)*B + b
				}
				id := int(w.ids[pos])
				addTo(g.Emb[id*E:(id+1)*E], w.dx[i*E:(i+1)*E])
			}
		}
	}
}

func addTo[T Float](dst, x []T) {
	for i, v := range x {
		dst[i] += v
	}
}
