package mechanisms

import (
	"fmt"
	"math"
	"math/rand/v2"

	"dptext/embeddings"
	"dptext/nearest"
)

// EMD out-of-vocabulary policies (option oov).
const (
	// OOVKeep passes out-of-vocabulary words through unchanged, as published. They leak: the
	// paper's Harry Potter character names survived every ε.
	OOVKeep = "keep"
	// OOVDrop removes out-of-vocabulary words from the output.
	OOVDrop = "drop"
	// OOVNearestKnown replaces each out-of-vocabulary word by the vocabulary word closest in
	// edit distance before adding noise (see nearestKnown).
	OOVNearestKnown = "nearest-known"
)

// EMDOptions configures the EMD mechanism.
type EMDOptions struct {
	// TopK restricts the vocabulary to the K most frequent words of the store (0: all). The
	// paper used 100,000 and 30,000.
	TopK int `toml:"top_k"`
	// OOV is the out-of-vocabulary policy: "keep", "drop" or "nearest-known".
	OOV string `toml:"oov"`
	// Workers is the number of goroutines decoding one document (0: GOMAXPROCS). Outputs do
	// not depend on it; use 1 when documents are already processed in parallel.
	Workers int `toml:"workers"`
}

// DefaultEMDOptions returns the published setting: the whole store, out-of-vocabulary words
// kept, decoding on all cores.
func DefaultEMDOptions() EMDOptions {
	return EMDOptions{TopK: 0, OOV: OOVKeep, Workers: 0}
}

// EMD is the Earth Mover's privacy mechanism of Fernandes, Dras and McIver (2019, §4–5,
// Algorithms 1–2). Each in-vocabulary word w of a document, with vector x = Vec(w) ∈ ℝⁿ, is
// replaced by the vocabulary word nearest (Euclidean, exact, ties by lowest rank) to
//
//	z = x + r·u,   r ~ Gamma(shape n, scale 1/ε),   u uniform on the unit sphere,
//
// i.e. z has density ∝ exp(−ε‖z − x‖) (the n-dimensional Laplace mechanism, Thm. 4.1). The
// privacy unit is the document as a bag of N words: any two bags of size N are
// εN·E_d-indistinguishable (Thm. 5.1), E_d being the Earth Mover's distance between equal-size
// bags (minimum-cost perfect matching of Euclidean word distances divided by N; BagDistance).
// Words are privatised independently, in document order, so the output keeps the input's order.
//
// Out-of-vocabulary words fall outside the guarantee unless the policy handles them: with
// "keep" the bound holds only between documents with the same out-of-vocabulary words in the
// same multiset (they are at infinite distance from anything else); with "drop" all of them
// count as one common point (their number is revealed); with "nearest-known" each is mapped,
// deterministically, to a vocabulary word, and the bound holds for the mapped bags.
type EMD struct {
	store   *embeddings.Store
	epsilon float64
	opts    EMDOptions
	decoder *nearest.Decoder
	oov     *nearestKnown // nil unless opts.OOV is "nearest-known"
}

// NewEMD returns the EMD mechanism at ε > 0 over store's vocabulary (restricted to its TopK
// most frequent words when opts.TopK > 0).
func NewEMD(store *embeddings.Store, epsilon float64, opts EMDOptions) (*EMD, error) {
	if store == nil || store.Len() == 0 {
		return nil, fmt.Errorf("emd: empty embedding store")
	}
	if !(epsilon > 0) || math.IsInf(epsilon, 1) {
		return nil, fmt.Errorf("emd: epsilon = %g: want a finite number > 0", epsilon)
	}
	if opts.TopK < 0 {
		return nil, fmt.Errorf("emd: top_k = %d: want 0 (whole vocabulary) or a positive count", opts.TopK)
	}
	switch opts.OOV {
	case OOVKeep, OOVDrop, OOVNearestKnown:
	default:
		return nil, fmt.Errorf("emd: oov = %q: want %q, %q or %q", opts.OOV, OOVKeep, OOVDrop, OOVNearestKnown)
	}
	if opts.Workers < 0 {
		return nil, fmt.Errorf("emd: workers = %d: want 0 (all cores) or a positive count", opts.Workers)
	}
	decoder, err := nearest.Shared(store, opts.TopK, opts.Workers)
	if err != nil {
		return nil, fmt.Errorf("emd: %w", err)
	}
	store = decoder.Store()
	m := &EMD{store: store, epsilon: epsilon, opts: opts, decoder: decoder}
	if opts.OOV == OOVNearestKnown {
		m.oov = newNearestKnown(store)
	}
	return m, nil
}

// Epsilon is the per-word ε.
func (m *EMD) Epsilon() float64 { return m.epsilon }

// Store is the (top_k-restricted) vocabulary the mechanism draws from.
func (m *EMD) Store() *embeddings.Store { return m.store }

// Apply privatises doc: every in-vocabulary word (and, under "nearest-known", every mapped
// out-of-vocabulary word) gets one draw of noise from rng, in document order, and all of the
// document's noisy vectors are decoded as one batch.
func (m *EMD) Apply(rng *rand.Rand, doc []string) []string {
	dim := m.store.Dim()
	rows := make([]int, len(doc)) // vocabulary row to privatise, or −1 for an OOV word kept/dropped
	noisy := 0
	for i, w := range doc {
		row, ok := m.store.Lookup(w)
		if !ok && m.oov != nil {
			row, ok = m.oov.lookup(w), true
		}
		if !ok {
			row = -1
		} else {
			noisy++
		}
		rows[i] = row
	}
	queries := make([]float64, 0, noisy*dim)
	direction := make([]float64, dim)
	for _, row := range rows {
		if row < 0 {
			continue
		}
		radius := laplaceRadius(rng, dim, m.epsilon)
		sphereDirection(rng, direction)
		for t, x := range m.store.Vector(row) {
			queries = append(queries, float64(x)+radius*direction[t])
		}
	}
	decoded := make([]int, noisy)
	m.decoder.Decode(queries, decoded)
	out := make([]string, 0, len(doc))
	next := 0
	for i, row := range rows {
		switch {
		case row >= 0:
			out = append(out, m.store.Word(decoded[next]))
			next++
		case m.opts.OOV == OOVKeep:
			out = append(out, doc[i])
		}
	}
	return out
}

// Guarantee is εN·E_d-privacy for a document of N words (metric "EMD"): the probability of any
// output changes by at most a factor exp(εN·E_d(doc, doc')) = exp(ε·Σ matched word distances)
// between doc and any doc' of the same length (see EMD for out-of-vocabulary words).
func (m *EMD) Guarantee(doc []string) Guarantee {
	return Guarantee{Kind: KindMetric, Epsilon: m.epsilon * float64(len(doc)), Metric: "EMD"}
}

// Diagnose reports, for one document:
//   - "oov_tokens": original tokens outside the vocabulary, and under the name of the active
//     policy ("oov_kept", "oov_dropped" or "oov_replaced") how many it treated;
//   - "unchanged_share": the share of in-vocabulary tokens whose output is the word itself, and
//     "mean_cosine": the mean cosine similarity of their input and output vectors (both absent
//     when there are none).
//
// private must be Apply's output for original.
func (m *EMD) Diagnose(original, private []string) map[string]float64 {
	oov, inVocab, unchanged := 0, 0, 0
	cosSum := 0.0
	j := 0 // position in private aligned with the current original token
	for _, w := range original {
		row, known := m.store.Lookup(w)
		if !known {
			oov++
			if m.opts.OOV != OOVDrop {
				j++
			}
			continue
		}
		inVocab++
		if j < len(private) {
			if private[j] == w {
				unchanged++
			}
			if out, ok := m.store.Lookup(private[j]); ok {
				cosSum += cosine(m.store.Vector(row), m.store.Vector(out))
			}
		}
		j++
	}
	d := map[string]float64{"oov_tokens": float64(oov)}
	if inVocab > 0 {
		d["unchanged_share"] = float64(unchanged) / float64(inVocab)
		d["mean_cosine"] = cosSum / float64(inVocab)
	}
	switch m.opts.OOV {
	case OOVKeep:
		d["oov_kept"] = float64(oov)
	case OOVDrop:
		d["oov_dropped"] = float64(oov)
	case OOVNearestKnown:
		d["oov_replaced"] = float64(oov)
	}
	return d
}
