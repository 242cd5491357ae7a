package metricdp

import (
	"fmt"
	"math/rand/v2"

	"dptext/embeddings"
	"dptext/internal/linalg"
	"dptext/mechanisms"
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
	// Order is the release order: "bag" (shuffled; the εN·E_d guarantee) or "keep" (input
	// positions; the positional guarantee). Empty means "keep".
	Order string `toml:"order"`
}

// DefaultEMDOptions returns the published setting — the whole store, out-of-vocabulary words
// kept, decoding on all cores — released as a bag, the object the published guarantee is about.
func DefaultEMDOptions() EMDOptions {
	return EMDOptions{TopK: 0, OOV: OOVKeep, Workers: 0, Order: mechanisms.OrderBag}
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
// Words are privatised independently, in document order. With order "bag" the outputs are then
// shuffled uniformly (one more draw from the same generator), so the release order depends only
// on the multiset and the bag guarantee holds; with order "keep" each output stays in its input
// position and the guarantee is the positional ε·Σᵢ d(xᵢ, x′ᵢ) (Eq. 6 of the paper), which can
// be far larger than εN·E_d (two swapped words: E_d = 0).
//
// Out-of-vocabulary words fall outside the guarantee unless the policy handles them: with
// "keep" the bound holds only between documents with the same out-of-vocabulary words in the
// same multiset (they are at infinite distance from anything else); with "drop" all of them
// count as one common point (their number is revealed); with "nearest-known" each is mapped,
// deterministically, to a vocabulary word, and the bound holds for the mapped bags.
type EMD struct {
	wordDecoding
	epsilon float64
	opts    EMDOptions
	perturb perturbation
}

// NewEMD returns the EMD mechanism at ε > 0 over store's vocabulary (restricted to its TopK
// most frequent words when opts.TopK > 0).
func NewEMD(store *embeddings.Store, epsilon float64, opts EMDOptions) (*EMD, error) {
	if store == nil || store.Len() == 0 {
		return nil, fmt.Errorf("emd: empty embedding store")
	}
	if err := EMDEpsilonRange.Check(epsilon); err != nil {
		return nil, fmt.Errorf("emd: %w", err)
	}
	switch opts.Order {
	case mechanisms.OrderBag, mechanisms.OrderKeep:
	case "":
		opts.Order = mechanisms.OrderKeep
	default:
		return nil, fmt.Errorf("emd: order = %q: want %q or %q", opts.Order, mechanisms.OrderBag, mechanisms.OrderKeep)
	}
	w, err := newWordDecoding("emd", store, opts.TopK, opts.Workers, opts.OOV)
	if err != nil {
		return nil, err
	}
	return &EMD{wordDecoding: w, epsilon: epsilon, opts: opts, perturb: laplacePerturbation(epsilon)}, nil
}

// Epsilon is the per-word ε.
func (m *EMD) Epsilon() float64 { return m.epsilon }

// PositionWise is true for order "keep" without dropping out-of-vocabulary words; order "bag"
// shuffles the words after the noise (mechanisms.PositionWise).
func (m *EMD) PositionWise() bool {
	return m.opts.Order == mechanisms.OrderKeep && m.wordDecoding.PositionWise()
}

// Store is the (top_k-restricted) vocabulary the mechanism draws from.
func (m *EMD) Store() *embeddings.Store { return m.store }

// Apply privatises doc (see TryApply). The constructor's checks (ε in EMDEpsilonRange, finite
// vectors) guarantee representable noise, so TryApply cannot fail for a constructed EMD; should
// it ever, Apply panics with its error rather than release a wrong output. Callers that prefer
// an error use TryApply (or Privatize).
func (m *EMD) Apply(rng *rand.Rand, doc []string) []string {
	return mechanisms.ApplyOrPanic(m, rng, doc)
}

// TryApply privatises doc: every in-vocabulary word (and, under "nearest-known", every mapped
// out-of-vocabulary word) gets one draw of noise from rng, in document order, and all of the
// document's noisy vectors are decoded as one batch (Draw); the released words are then
// assembled by the out-of-vocabulary policy and, under order "bag", shuffled uniformly with rng
// (Release). It returns an error, and no output, when a noisy vector is not finite or too large
// to decode meaningfully.
func (m *EMD) TryApply(rng *rand.Rand, doc []string) ([]string, error) {
	d, err := m.Draw(rng, doc)
	if err != nil {
		return nil, err
	}
	return m.Release(rng, doc, d)
}

// emdDraws are EMD's draws of one document: the vocabulary row each token privatises (−1 for
// an out-of-vocabulary word kept or dropped) and the decoded row of each privatised token.
type emdDraws struct {
	rows, decoded []int
}

// DrawKey identifies EMD's draws: the vocabulary, ε and which tokens get noise. "keep" and
// "drop" noise the same tokens (the in-vocabulary ones) and share a key; "nearest-known" also
// noises the mapped out-of-vocabulary words, so its draws are its own. The release order is
// not part of the key: it is drawn in Release.
func (m *EMD) DrawKey() string {
	noised := "in-vocabulary"
	if m.oovPolicy == OOVNearestKnown {
		noised = "in-vocabulary+nearest-known"
	}
	return fmt.Sprintf("emd/vocabulary=%p/epsilon=%v/noised=%s", m.store, m.epsilon, noised)
}

// Draw draws the noise of every privatised token of doc from rng, in document order, and
// decodes the noisy vectors (see TryApply).
func (m *EMD) Draw(rng *rand.Rand, doc []string) (mechanisms.Draws, error) {
	d, err := m.DrawBatch([]*rand.Rand{rng}, [][]string{doc})
	if err != nil {
		return nil, err
	}
	return d[0], nil
}

// Release assembles the output of doc from draws d of a mechanism with the same DrawKey:
// decoded words in place of the privatised tokens, out-of-vocabulary words kept or dropped by
// the policy; under order "bag" the words are then shuffled uniformly with rng.
func (m *EMD) Release(rng *rand.Rand, doc []string, d mechanisms.Draws) ([]string, error) {
	dr, ok := d.(*emdDraws)
	if !ok || len(dr.rows) != len(doc) {
		return nil, fmt.Errorf("emd: draws %T are not EMD's draws of this %d-word document", d, len(doc))
	}
	for i, row := range dr.rows {
		if row != m.privatisedRow(doc[i]) {
			return nil, fmt.Errorf("emd: draws of another document or policy (word %d, %q)", i, doc[i])
		}
	}
	return arrange(m.release(doc, dr.rows, dr.decoded), m.drawOrder(rng, m.releasedLen(dr.rows))), nil
}

// releasedLen is the number of words the release of a document with these privatised rows
// holds: its privatised tokens and, under "keep", its out-of-vocabulary words.
func (m *EMD) releasedLen(rows []int) int {
	n := 0
	for _, row := range rows {
		if row >= 0 || m.oovPolicy == OOVKeep {
			n++
		}
	}
	return n
}

// drawOrder draws the release order of n words from rng: under order "bag" a uniform
// permutation (rng.Shuffle on the positions), nil under "keep". It needs only n, so a batch
// draws it at the document's turn, before any decoding.
func (m *EMD) drawOrder(rng *rand.Rand, n int) []int {
	if m.opts.Order != mechanisms.OrderBag {
		return nil
	}
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	rng.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	return perm
}

// arrange returns out in the order perm (out[perm[i]] at i; out itself for nil): what
// rng.Shuffle would have made of out with the swaps that made perm.
func arrange(out []string, perm []int) []string {
	if perm == nil {
		return out
	}
	shuffled := make([]string, len(out))
	for i, p := range perm {
		shuffled[i] = out[p]
	}
	return shuffled
}

// LaplaceNoisyVector writes z = x + r·u into dst, r ~ Gamma(n, 1/ε) and u uniform on the sphere
// (direction is scratch of len(x)), and checks that z can be decoded (checkNoisy).
func LaplaceNoisyVector(rng *rand.Rand, epsilon float64, x []float32, direction, dst []float64) error {
	radius := LaplaceRadius(rng, len(x), epsilon)
	SphereDirection(rng, direction)
	for t, v := range x {
		dst[t] = float64(v) + radius*direction[t]
	}
	return checkNoisy(dst)
}

// Decode sets rows[i] to the vocabulary row the mechanism releases for the i-th noisy vector
// of queries (row-major, len(rows) × Dim() values): the exact nearest word, as TryApply decodes.
// Calibration (package calibrate) decodes its own draws with it.
func (m *EMD) Decode(queries []float64, rows []int) { m.decoder.Decode(queries, rows) }

// Guarantee is, under order "bag", εN·E_d-privacy for a document of N words (metric "EMD"):
// the probability of any output changes by at most a factor exp(εN·E_d(doc, doc′)) =
// exp(ε·Σ matched word distances) between doc and any doc′ of the same length. Under order
// "keep" it is the positional bound (metric "positional"): exp(ε·Σᵢ d(docᵢ, doc′ᵢ)) =
// exp(εN·(1/N)Σᵢ d(docᵢ, doc′ᵢ)). See EMD for out-of-vocabulary words and PairDistance for the
// exact figure between two given documents.
func (m *EMD) Guarantee(doc []string) mechanisms.Guarantee {
	metric := mechanisms.MetricEMD
	if m.opts.Order == mechanisms.OrderKeep {
		metric = mechanisms.MetricPositional
	}
	return mechanisms.Guarantee{Kind: mechanisms.KindMetric, Epsilon: m.epsilon * float64(len(doc)), Metric: metric}
}

// Diagnose reports, for one document:
//   - "oov_tokens": original tokens outside the vocabulary, and under the name of the active
//     policy ("oov_kept", "oov_dropped" or "oov_replaced") how many it treated;
//   - "unchanged_share": the share of in-vocabulary tokens whose output is the word itself, and
//     "mean_cosine": the mean cosine similarity of their input and output vectors (both absent
//     when there are none). Under order "bag" the output's order says nothing about which
//     input produced which output, so both are taken over the best pairing: "unchanged_share"
//     is the largest share of in-vocabulary input tokens that can be paired with an identical
//     output token (multiset intersection), "mean_cosine" the mean cosine of the pairing of
//     in-vocabulary inputs with in-vocabulary outputs that maximises the total cosine. Both
//     equal the positional figures when no word is replaced by another word of the document,
//     and never fall below them.
//
// private must be Apply's output for original.
func (m *EMD) Diagnose(original, private []string) map[string]float64 {
	oov, inVocab, unchanged := 0, 0, 0
	cosSum := 0.0
	if m.opts.Order == mechanisms.OrderBag {
		oov, inVocab, unchanged, cosSum = m.diagnoseBag(original, private)
	} else {
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
					cosSum += linalg.Cosine(m.store.Vector(row), m.store.Vector(out))
				}
			}
			j++
		}
	}
	d := map[string]float64{"oov_tokens": float64(oov)}
	if inVocab > 0 {
		d["unchanged_share"] = float64(unchanged) / float64(inVocab)
		d["mean_cosine"] = cosSum / float64(inVocab)
	}
	d[oovDiagnostic(m.opts.OOV)] = float64(oov)
	return d
}

// oovDiagnostic names the diagnostic that counts the out-of-vocabulary tokens handled by
// policy: "oov_kept", "oov_dropped" or "oov_replaced".
func oovDiagnostic(policy string) string {
	switch policy {
	case OOVDrop:
		return "oov_dropped"
	case OOVNearestKnown:
		return "oov_replaced"
	}
	return "oov_kept"
}
