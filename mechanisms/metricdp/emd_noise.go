package metricdp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"dptext/embeddings"
	"dptext/mechanisms"
	"dptext/mechanisms/nearest"
)

// LaplaceRadius draws the length of n-dimensional Laplace noise of parameter ε: Gamma with
// shape n and scale 1/ε (Fernandes et al. 2019, Def. 6 and Thm. 4.1). gonum's Beta is the
// rate, hence Beta: ε.
func LaplaceRadius(rng *rand.Rand, n int, epsilon float64) float64 {
	return distuv.Gamma{Alpha: float64(n), Beta: epsilon, Src: rng}.Rand()
}

// SphereDirection fills u with a direction uniform on the unit sphere: standard normals
// divided by their norm (Marsaglia 1972), redrawn in the (probability-zero) case of norm 0.
func SphereDirection(rng *rand.Rand, u []float64) {
	for {
		sq := 0.0
		for i := range u {
			u[i] = rng.NormFloat64()
			sq += u[i] * u[i]
		}
		if sq > 0 {
			norm := math.Sqrt(sq)
			for i := range u {
				u[i] /= norm
			}
			return
		}
	}
}

// A perturbation writes one noisy vector z = x + noise into dst, drawing the noise from rng,
// and checks that z can be decoded (checkNoisy). scratch has len(x) values for its own use (the
// caller's, so that a perturbation is safe for concurrent use).
type perturbation func(rng *rand.Rand, x []float32, scratch, dst []float64) error

// laplacePerturbation is the n-dimensional Laplace noise of parameter ε (density ∝ exp(−ε‖z−x‖)),
// drawn as LaplaceNoisyVector draws it.
func laplacePerturbation(epsilon float64) perturbation {
	return func(rng *rand.Rand, x []float32, scratch, dst []float64) error {
		return LaplaceNoisyVector(rng, epsilon, x, scratch, dst)
	}
}

// wordDecoding is the engine the noise-then-decode mechanisms (EMD, CMP, Mahalanobis, Vickrey)
// share: the vocabulary and its exact decoder, and the out-of-vocabulary policy deciding which
// tokens get noise.
type wordDecoding struct {
	store   *embeddings.Store
	decoder *nearest.Decoder
	oov     *nearestKnown // nil unless oovPolicy is "nearest-known"
	// oovPolicy is OOVKeep, OOVDrop or OOVNearestKnown.
	oovPolicy string
}

// PositionWise is true unless out-of-vocabulary words are dropped: every privatised word is
// decoded from its own noise, and a kept or mapped out-of-vocabulary word stays in its place
// (mechanisms.PositionWise).
func (w wordDecoding) PositionWise() bool { return w.oovPolicy != OOVDrop }

// newWordDecoding checks the options common to the noise-then-decode mechanisms (name prefixes
// the errors) and builds the shared decoder of store's topK most frequent words.
func newWordDecoding(name string, store *embeddings.Store, topK, workers int, oovPolicy string) (wordDecoding, error) {
	if store == nil || store.Len() == 0 {
		return wordDecoding{}, fmt.Errorf("%s: empty embedding store", name)
	}
	if topK < 0 {
		return wordDecoding{}, fmt.Errorf("%s: top_k = %d: want 0 (whole vocabulary) or a positive count", name, topK)
	}
	switch oovPolicy {
	case OOVKeep, OOVDrop, OOVNearestKnown:
	default:
		return wordDecoding{}, fmt.Errorf("%s: oov = %q: want %q, %q or %q", name, oovPolicy, OOVKeep, OOVDrop, OOVNearestKnown)
	}
	if workers < 0 {
		return wordDecoding{}, fmt.Errorf("%s: workers = %d: want 0 (all cores) or a positive count", name, workers)
	}
	decoder, err := nearest.Shared(store, topK, workers)
	if err != nil {
		return wordDecoding{}, fmt.Errorf("%s: %w", name, err)
	}
	w := wordDecoding{store: decoder.Store(), decoder: decoder, oovPolicy: oovPolicy}
	if oovPolicy == OOVNearestKnown {
		w.oov = newNearestKnown(w.store)
	}
	return w, nil
}

// privatisedRow is the vocabulary row whose vector word is privatised by (under
// "nearest-known", its mapped word's for an out-of-vocabulary word), or −1 for an
// out-of-vocabulary word kept or dropped.
func (w *wordDecoding) privatisedRow(word string) int {
	row, ok := w.store.Lookup(word)
	if !ok && w.oov != nil {
		row, ok = w.oov.lookup(word), true
	}
	if !ok {
		return -1
	}
	return row
}

// noisyQueries resolves every token of doc to the vocabulary row it privatises (rows[i] = −1 for
// an out-of-vocabulary word kept or dropped) and draws, in document order, one noisy vector per
// privatised token with perturb (row-major in queries). The error names the token.
func (w *wordDecoding) noisyQueries(rng *rand.Rand, doc []string, perturb perturbation) (rows []int, queries []float64, err error) {
	return w.appendNoisy(rng, doc, perturb, nil)
}

// appendNoisy is noisyQueries with the noisy vectors appended to dst (a batch's buffer).
func (w *wordDecoding) appendNoisy(rng *rand.Rand, doc []string, perturb perturbation, dst []float64) (rows []int, queries []float64, err error) {
	dim := w.store.Dim()
	rows = make([]int, len(doc))
	noisy := 0
	for i, word := range doc {
		rows[i] = w.privatisedRow(word)
		if rows[i] >= 0 {
			noisy++
		}
	}
	q := len(dst)
	queries = slices.Grow(dst, noisy*dim)[:q+noisy*dim]
	scratch := make([]float64, dim)
	for i, row := range rows {
		if row < 0 {
			continue
		}
		if err := perturb(rng, w.store.Vector(row), scratch, queries[q:q+dim]); err != nil {
			return nil, nil, fmt.Errorf("word %d (%q): %w", i, doc[i], err)
		}
		q += dim
	}
	return rows, queries, nil
}

// release assembles the output in document order: decoded[k] is the output row of the k-th
// privatised token; out-of-vocabulary tokens are kept or dropped by the policy.
func (w *wordDecoding) release(doc []string, rows, decoded []int) []string {
	out := make([]string, 0, len(doc))
	next := 0
	for i, row := range rows {
		switch {
		case row >= 0:
			out = append(out, w.store.Word(decoded[next]))
			next++
		case w.oovPolicy == OOVKeep:
			out = append(out, doc[i])
		}
	}
	return out
}

// releasedUnits lists, in order, what the mechanism releases for doc: a vocabulary row to be
// privatised (rows[i] ≥ 0) or an out-of-vocabulary word passed through (rows[i] = −1, words[i]
// the word). Dropped words are absent.
func (w *wordDecoding) releasedUnits(doc []string) (rows []int, words []string) {
	for _, word := range doc {
		row, ok := w.store.Lookup(word)
		if !ok && w.oov != nil {
			row, ok = w.oov.lookup(word), true
		}
		switch {
		case ok:
			rows, words = append(rows, row), append(words, "")
		case w.oovPolicy == OOVKeep:
			rows, words = append(rows, -1), append(words, word)
		}
	}
	return rows, words
}

// positionalDistance is Σᵢ dist(xᵢ, yᵢ) over the released units of x and y in order (see
// releasedUnits): +Inf when their numbers differ or when an out-of-vocabulary word passed
// through is not matched by the same word at the same position.
func (w *wordDecoding) positionalDistance(x, y []string, dist func(a, b []float32) float64) float64 {
	ax, bx := w.releasedUnits(x)
	ay, by := w.releasedUnits(y)
	if len(ax) != len(ay) {
		return math.Inf(1)
	}
	total := 0.0
	for i := range ax {
		switch {
		case ax[i] >= 0 && ay[i] >= 0:
			total += dist(w.store.Vector(ax[i]), w.store.Vector(ay[i]))
		case ax[i] < 0 && ay[i] < 0 && bx[i] == by[i]:
		default:
			return math.Inf(1)
		}
	}
	return total
}

// passedThrough lists the out-of-vocabulary words of doc the "keep" policy releases unchanged.
func (w *wordDecoding) passedThrough(doc []string) []string {
	if w.oovPolicy != OOVKeep {
		return nil
	}
	return mechanisms.UnknownWords(w.store, doc)
}

// diagnoseInPlace reports, for a mechanism releasing every token in place, "oov_tokens", the
// policy's count ("oov_kept", "oov_dropped" or "oov_replaced") and "unchanged_share": the share
// of in-vocabulary tokens whose output is the word itself (absent when there are none).
func (w *wordDecoding) diagnoseInPlace(original, private []string) map[string]float64 {
	oov, inVocab, unchanged := 0, 0, 0
	j := 0
	for _, word := range original {
		if _, known := w.store.Lookup(word); !known {
			oov++
			if w.oovPolicy != OOVDrop {
				j++
			}
			continue
		}
		inVocab++
		if j < len(private) && private[j] == word {
			unchanged++
		}
		j++
	}
	d := map[string]float64{"oov_tokens": float64(oov)}
	if inVocab > 0 {
		d["unchanged_share"] = float64(unchanged) / float64(inVocab)
	}
	d[oovDiagnostic(w.oovPolicy)] = float64(oov)
	return d
}

// EMDEpsilonRange is the ε the EMD mechanism accepts. Below 1e-3 the noise radius, Gamma(n, 1/ε)
// with mean n/ε, is at least a thousand times the dimension: many times the diameter of any
// embedding in use, so the output no longer depends on the input and smaller ε buys nothing;
// near 1e-16 the radius (about 1e18) drowns every word difference in float64 rounding, so every
// word decoded to the first vocabulary row, and near 1e-38 the noise overflowed. Above 1e12 the
// noise is below float32 resolution of any vector, so every word is released unchanged: the
// guarantee would claim a meaning the arithmetic cannot carry.
var EMDEpsilonRange = mechanisms.EpsilonRange{Min: 1e-3, Max: 1e12}

// maxNoisyNorm bounds the norm of a noisy EMD vector: the decoder squares ‖z‖ + max‖v‖ in
// float32 (max about 3.4e38), which stays finite and far from overflow below 2^40.
const maxNoisyNorm = 1 << 40

// checkNoisy returns an error unless every value of the noisy vector z is finite and ‖z‖ is at
// most maxNoisyNorm, so that decoding it is meaningful (a non-finite query would otherwise
// decode silently to row 0, or index out of range).
func checkNoisy(z []float64) error {
	sq := 0.0
	for _, v := range z {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("non-finite noisy vector (value %v): the noise is not representable", v)
		}
		sq += v * v
	}
	if !(math.Sqrt(sq) <= maxNoisyNorm) {
		return fmt.Errorf("noisy vector of norm %g beyond %g: the noise is not representable", math.Sqrt(sq), float64(maxNoisyNorm))
	}
	return nil
}
