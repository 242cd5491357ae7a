// Package erae is the embedding-reward auto-encoder of Bo, Ding, Fung and Iqbal (ER-AE,
// "ER-AE: Differentially-private Text Generation for Authorship Anonymization"), trained and run
// on the CPU in pure Go: an embedding layer initialised from word vectors, a bidirectional GRU
// encoder whose final states are concatenated and projected to a latent vector (Eq. 1), a GRU
// generator conditioned on the latent vector and the previous original token (Eq. 2) and, as in
// the authors' code, started from ELU(dense(latent)) (Sizes.StartState), and a softmax over the
// vocabulary (Eq. 3). Training minimises the reconstruction loss (Eq. 8), then
// the combined loss with the REINFORCE embedding reward (Eq. 9–10). Generation samples every
// position by the exponential mechanism over the generator's probabilities (Eq. 5–7); see
// Mechanism.
//
// Forward and backward passes are written out by hand (the tests check every gradient against
// finite differences in float64); training runs in float32 on gonum's pure-Go BLAS.
package erae

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Sizes are the dimensions of a model. The paper used two stacked GRU layers of 512 cells,
// 20,000 words and 768-d BERT vectors; this implementation has one GRU layer per direction and
// in the generator (see DefaultTrainOptions for the defaults chosen for a CPU).
type Sizes struct {
	// Vocab is the number of output words V. The embedding table has V + 2 rows: the words,
	// then the unknown-word row (input only) and the begin-of-text row (the generator's first
	// previous token).
	Vocab int `json:"vocab"`
	// Embed is the word-vector dimension E (that of the configured vectors).
	Embed int `json:"embed"`
	// Hidden is the GRU state size H of each encoder direction and of the generator.
	Hidden int `json:"hidden"`
	// Latent is the size Z of the latent vector E(x).
	Latent int `json:"latent"`
	// StartState gives the generator the start state ELU(Init·E(x) + InitB) (the authors' code:
	// a dense layer with ELU on the latent vector) rather than zero. Model files written before
	// it read as false (zero start, no Init weights).
	StartState bool `json:"start_state,omitempty"`
}

func (s Sizes) validate() error {
	if s.Vocab < 2 || s.Embed < 1 || s.Hidden < 1 || s.Latent < 1 {
		return fmt.Errorf("sizes %+v: want vocab ≥ 2 and embed, hidden, latent ≥ 1", s)
	}
	return nil
}

// unk and bos are the embedding rows of an out-of-vocabulary input token and of the
// begin-of-text token.
func (s Sizes) unk() int32 { return int32(s.Vocab) }
func (s Sizes) bos() int32 { return int32(s.Vocab + 1) }

// gru holds one GRU layer: gates [r | u | n] in blocks of H rows,
//
//	r = σ(Wx_r x + bx_r + Wh_r h + bh_r),  u = σ(Wx_u x + bx_u + Wh_u h + bh_u),
//	n = tanh(Wx_n x + bx_n + r ⊙ (Wh_n h + bh_n)),  h′ = (1 − u) ⊙ n + u ⊙ h.
type gru[T Float] struct {
	Wx, Wh, Bx, Bh []T // 3H×in, 3H×H, 3H, 3H
}

// Params are a model's weights (or their gradients, or Adam's moments), views into one flat
// slice All in a fixed order.
type Params[T Float] struct {
	Sizes
	All        []T
	Emb        []T // (V+2)×E
	EncF, EncB gru[T]
	Lat, LatB  []T // Z×2H, Z: E(x) = Lat·[s_f; s_b] + LatB
	Gen        gru[T]
	GenZ       []T // 3H×Z: the latent vector's part of the generator's input weights
	Out, OutB  []T // V×H, V: z_v = Out_v·s + OutB_v (Eq. 2)
	// Init, InitB (H×Z, H; empty without Sizes.StartState): the generator's start state
	// ELU(Init·E(x) + InitB).
	Init, InitB []T
}

// NewParams returns zero parameters of the given sizes.
func NewParams[T Float](s Sizes) *Params[T] {
	p := &Params[T]{Sizes: s}
	E, H, Z, V := s.Embed, s.Hidden, s.Latent, s.Vocab
	n := int(WeightCount(s))
	p.All = make([]T, n)
	off := 0
	take := func(k int) []T {
		v := p.All[off : off+k : off+k]
		off += k
		return v
	}
	p.Emb = take((V + 2) * E)
	for _, g := range []*gru[T]{&p.EncF, &p.EncB} {
		g.Wx, g.Wh, g.Bx, g.Bh = take(3*H*E), take(3*H*H), take(3*H), take(3*H)
	}
	p.Lat, p.LatB = take(Z*2*H), take(Z)
	p.Gen.Wx, p.Gen.Wh, p.Gen.Bx, p.Gen.Bh = take(3*H*E), take(3*H*H), take(3*H), take(3*H)
	p.GenZ = take(3 * H * Z)
	p.Out, p.OutB = take(V*H), take(V)
	if s.StartState {
		p.Init, p.InitB = take(H*Z), take(H)
	}
	if off != n {
		panic("erae: parameter layout does not add up")
	}
	return p
}

// initParams fills p with small uniform weights (±1/√fan-in), zero biases, and the word rows
// of the embedding from vectors (V×E, row-major); the unknown and begin rows stay random.
func initParams[T Float](p *Params[T], vectors []float32, rng *rand.Rand) {
	E, H, Z := p.Embed, p.Hidden, p.Latent
	fill := func(w []T, fanIn int) {
		a := 1 / math.Sqrt(float64(fanIn))
		for i := range w {
			w[i] = T((2*rng.Float64() - 1) * a)
		}
	}
	fill(p.Emb, E)
	for i, v := range vectors {
		p.Emb[i] = T(v)
	}
	for _, g := range []*gru[T]{&p.EncF, &p.EncB, &p.Gen} {
		fill(g.Wx, len(g.Wx)/(3*H))
		fill(g.Wh, H)
	}
	fill(p.Lat, 2*H)
	fill(p.GenZ, Z)
	fill(p.Out, H)
	fill(p.Init, Z)
}

// gruTrace is what a GRU's forward pass over a batch keeps for the backward pass. Rows are
// step-major: row s·B + b is step s of sequence b.
type gruTrace[T Float] struct {
	gx      []T // T·B×3H: Wx·x + bx (+ the generator's latent part)
	h       []T // (T+1)·B×H: h[0] = 0, h[s+1] the state after step s
	r, u, n []T // T·B×H
	ghn     []T // T·B×H: Wh_n·h + bh_n
	gh      []T // B×3H scratch
}

func newGRUTrace[T Float](steps, b, h int) *gruTrace[T] {
	return &gruTrace[T]{gx: make([]T, steps*b*3*h), h: make([]T, (steps+1)*b*h), r: make([]T, steps*b*h),
		u: make([]T, steps*b*h), n: make([]T, steps*b*h), ghn: make([]T, steps*b*h), gh: make([]T, b*3*h)}
}

// forward runs the GRU over steps given tr.gx filled with the input projections and the start
// states in tr.h[:B·H].
func (g *gru[T]) forward(tr *gruTrace[T], steps, B, H int) {
	for s := range steps {
		hp := tr.h[s*B*H : (s+1)*B*H]
		for b := range B {
			copy(tr.gh[b*3*H:(b+1)*3*H], g.Bh)
		}
		mulABt(tr.gh, hp, g.Wh, B, 3*H, H, 1)
		hn := tr.h[(s+1)*B*H : (s+2)*B*H]
		for b := range B {
			gx := tr.gx[(s*B+b)*3*H : (s*B+b+1)*3*H]
			gh := tr.gh[b*3*H : (b+1)*3*H]
			o := (s*B + b) * H
			for j := range H {
				r := sigmoid(gx[j] + gh[j])
				u := sigmoid(gx[H+j] + gh[H+j])
				n := tanh(gx[2*H+j] + r*gh[2*H+j])
				tr.r[o+j], tr.u[o+j], tr.n[o+j], tr.ghn[o+j] = r, u, n, gh[2*H+j]
				hn[b*H+j] = (1-u)*n + u*hp[b*H+j]
			}
		}
	}
}

// backward takes the gradients dOut (T·B×H, on every step's output h[s+1]; nil for none) and
// dLast (B×H, on the final state; nil for none), accumulates the gradients of Wh and Bh into
// gr, and writes the gradient of every step's input projection gx into dgx (T·B×3H) and that of
// the start states into scratch.carry (B×H).
func (g *gru[T]) backward(tr *gruTrace[T], dOut, dLast []T, steps, B, H int, gr *gru[T], dgx []T, scratch *gruScratch[T]) {
	dh, carry := scratch.dh, scratch.carry
	clear(carry)
	if dLast != nil {
		copy(carry, dLast)
	}
	dgh := scratch.dgh
	for s := steps - 1; s >= 0; s-- {
		copy(dh, carry)
		if dOut != nil {
			for i, v := range dOut[s*B*H : (s+1)*B*H] {
				dh[i] += v
			}
		}
		hp := tr.h[s*B*H : (s+1)*B*H]
		dghS := dgh[s*B*3*H : (s+1)*B*3*H]
		for b := range B {
			o := (s*B + b) * H
			d := dgx[(s*B+b)*3*H : (s*B+b+1)*3*H]
			e := dghS[b*3*H : (b+1)*3*H]
			for j := range H {
				r, u, n := tr.r[o+j], tr.u[o+j], tr.n[o+j]
				dhj := dh[b*H+j]
				dn := dhj * (1 - u)
				du := dhj * (hp[b*H+j] - n)
				carry[b*H+j] = dhj * u
				dan := dn * (1 - n*n)
				dar := dan * tr.ghn[o+j] * r * (1 - r)
				dau := du * u * (1 - u)
				d[j], d[H+j], d[2*H+j] = dar, dau, dan
				e[j], e[H+j], e[2*H+j] = dar, dau, dan*r
			}
		}
		// carry += dgh·Wh
		mulAB(carry, dghS, g.Wh, B, H, 3*H, 1)
	}
	// dWh += dGHᵀ·Hprev over all steps; dBh += Σ dGH.
	mulAtB(gr.Wh, dgh[:steps*B*3*H], tr.h[:steps*B*H], 3*H, H, steps*B, 1)
	addRows(gr.Bh, dgh[:steps*B*3*H], 3*H)
}

type gruScratch[T Float] struct{ dh, carry, dgh []T }

func newGRUScratch[T Float](steps, b, h int) *gruScratch[T] {
	return &gruScratch[T]{dh: make([]T, b*h), carry: make([]T, b*h), dgh: make([]T, steps*b*3*h)}
}

// paramName names the tensor that flat index i of p.All belongs to (for error messages).
func paramName[T Float](p *Params[T], i int) string {
	names := []string{"emb", "encf.wx", "encf.wh", "encf.bx", "encf.bh", "encb.wx", "encb.wh", "encb.bx", "encb.bh",
		"lat", "latb", "gen.wx", "gen.wh", "gen.bx", "gen.bh", "genz", "out", "outb", "init", "initb"}
	for k, t := range p.tensors() {
		if i < len(t) {
			return names[k]
		}
		i -= len(t)
	}
	return "?"
}

// tensors lists p's views in layout order.
func (p *Params[T]) tensors() [][]T {
	return [][]T{p.Emb, p.EncF.Wx, p.EncF.Wh, p.EncF.Bx, p.EncF.Bh, p.EncB.Wx, p.EncB.Wh, p.EncB.Bx, p.EncB.Bh,
		p.Lat, p.LatB, p.Gen.Wx, p.Gen.Wh, p.Gen.Bx, p.Gen.Bh, p.GenZ, p.Out, p.OutB, p.Init, p.InitB}
}
