package erae

import (
	"container/heap"
	"math"
	"math/rand/v2"
)

// RewardCap and RewardFloor bound the embedding reward γ(w, v) = min(max(cos(Em w, Em v),
// RewardFloor), RewardCap): Eq. 9's cap at 0.85 and, as in the authors' code
// (McGill-DMaS/Authorship-Anonymization, which clips the similarity to [1e-5, 0.85]), a floor
// just above 0. Without the floor a negative cosine (about half of the exploration draws with
// centred vectors) rewards pushing that word's probability to 0: L_embed then has no minimum and
// the logits of dissimilar words run off to the softmax's underflow. With it every term
// γ·(−ln p) is ≥ 0, so L_embed ≥ 0.
const (
	RewardCap   = 0.85
	RewardFloor = 1e-5
)

// candidate is one rewarded word of the embedding reward at one position (row of the batch).
type candidate struct {
	pos   int
	v     int32
	gamma float64
}

// rewarder holds the fixed word vectors, scaled to unit length, that define γ.
type rewarder struct {
	unit []float32 // V×E
	dim  int
	// floor is γ's lower bound, RewardFloor (the tests lower it to show what it prevents).
	floor float64
}

// newRewarder returns the rewarder of vectors (V×dim, row by row). When centered, the rows'
// mean vector is subtracted from every row before scaling, so that the cosine of two words
// measures what they share beyond the direction common to the whole vocabulary (as the cosine
// scorer's default, utility.DefaultCosineOptions).
func newRewarder(vectors []float32, dim int, centered bool) *rewarder {
	mean := make([]float64, dim)
	if centered && len(vectors) > 0 {
		for off := 0; off < len(vectors); off += dim {
			for j, x := range vectors[off : off+dim] {
				mean[j] += float64(x)
			}
		}
		for j := range mean {
			mean[j] /= float64(len(vectors) / dim)
		}
	}
	unit := make([]float32, len(vectors))
	row := make([]float64, dim)
	for off := 0; off < len(vectors); off += dim {
		norm := 0.0
		for j, x := range vectors[off : off+dim] {
			row[j] = float64(x) - mean[j]
			norm += row[j] * row[j]
		}
		if norm == 0 {
			continue
		}
		inv := 1 / math.Sqrt(norm)
		for j, x := range row {
			unit[off+j] = float32(x * inv)
		}
	}
	return &rewarder{unit: unit, dim: dim, floor: RewardFloor}
}

// gamma is γ(w, v) = min(max(cos(Em w, Em v), RewardFloor), RewardCap).
func (r *rewarder) gamma(w, v int32) float64 {
	return min(max(r.cosine(w, v), r.floor), RewardCap)
}

// cosine is cos(Em w, Em v) (0 when either vector is zero).
func (r *rewarder) cosine(w, v int32) float64 {
	a := r.unit[int(w)*r.dim : int(w+1)*r.dim]
	b := r.unit[int(v)*r.dim : int(v+1)*r.dim]
	dot := 0.0
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
	}
	return dot
}

// selectCandidates returns, for every position whose original token is in the vocabulary, the k
// words of highest probability (𝔼_k, the exploitation part of L_embed) and k words drawn
// uniformly from the vocabulary (𝕍_k, the exploration part), each with its reward γ(x_i, v).
func selectCandidates[T Float](r *rewarder, probs []T, ids []int32, vocab, k int, rng *rand.Rand) []candidate {
	var out []candidate
	var h topHeap
	for pos, id := range ids {
		if int(id) >= vocab {
			continue
		}
		row := probs[pos*vocab : (pos+1)*vocab]
		h = h[:0]
		for v, p := range row {
			if len(h) < k {
				heap.Push(&h, scored{int32(v), float64(p)})
			} else if float64(p) > h[0].p {
				h[0] = scored{int32(v), float64(p)}
				heap.Fix(&h, 0)
			}
		}
		for _, s := range h {
			out = append(out, candidate{pos, s.v, r.gamma(id, s.v)})
		}
		for range k {
			v := int32(rng.IntN(vocab))
			out = append(out, candidate{pos, v, r.gamma(id, v)})
		}
	}
	return out
}

type scored struct {
	v int32
	p float64
}

// topHeap is a min-heap by probability (ties: the larger row on top, so smaller rows are kept).
type topHeap []scored

func (h topHeap) Len() int { return len(h) }
func (h topHeap) Less(i, j int) bool {
	if h[i].p != h[j].p {
		return h[i].p < h[j].p
	}
	return h[i].v > h[j].v
}
func (h topHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *topHeap) Push(x any)   { *h = append(*h, x.(scored)) }
func (h *topHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Losses are the mean per-token losses of a batch.
type Losses struct {
	// Recon is L_recon (Eq. 8) per rated position, in nats.
	Recon float64
	// Embed is L_embed (the embedding reward's loss) per rated position.
	Embed float64
	// Tokens is the number of rated positions (original token in the vocabulary).
	Tokens int
}

// lossGrad computes the combined loss λ_recon·L_recon + λ_embed·L_embed (Eq. 10) averaged over
// the rated positions, and replaces probs by its gradient with respect to the logits:
//
//	∂/∂z_v = [λ_recon·(P_v − 1{v = x_i}) + λ_embed·Σ_c γ_c·(P_v − 1{v = v_c})] / count.
//
// cands must be ordered by position (as candidates returns them).
func lossGrad[T Float](probs []T, ids []int32, vocab int, cands []candidate, recon, embed float64) Losses {
	var l Losses
	for _, id := range ids {
		if int(id) < vocab {
			l.Tokens++
		}
	}
	if l.Tokens == 0 {
		clear(probs)
		return l
	}
	scale := 1 / float64(l.Tokens)
	ci := 0
	for pos, id := range ids {
		row := probs[pos*vocab : (pos+1)*vocab]
		if int(id) >= vocab {
			clear(row)
			for ci < len(cands) && cands[ci].pos == pos {
				ci++
			}
			continue
		}
		l.Recon -= logp(row[id])
		start := ci
		total := 0.0
		for ci < len(cands) && cands[ci].pos == pos {
			c := cands[ci]
			l.Embed -= c.gamma * logp(row[c.v])
			total += c.gamma
			ci++
		}
		a := T((recon + embed*total) * scale)
		for v := range row {
			row[v] *= a
		}
		row[id] -= T(recon * scale)
		for _, c := range cands[start:ci] {
			row[c.v] -= T(embed * c.gamma * scale)
		}
	}
	l.Recon *= scale
	l.Embed *= scale
	return l
}

// logp is ln p, with p floored at the smallest normal float32 so that an underflowed
// probability gives a large finite loss.
func logp[T Float](p T) float64 {
	return math.Log(max(float64(p), 1.1754943508222875e-38))
}
