package metricdp

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"dptext/embeddings"
	"dptext/mechanisms"
)

// CMPOptions configures the CMP mechanism.
type CMPOptions struct {
	// TopK restricts the vocabulary to the K most frequent words of the store (0: all).
	TopK int `toml:"top_k"`
	// OOV is the out-of-vocabulary policy: "keep", "drop" or "nearest-known" (see EMD).
	OOV string `toml:"oov"`
	// Workers is the number of goroutines decoding one document (0: GOMAXPROCS); outputs do not
	// depend on it.
	Workers int `toml:"workers"`
}

// DefaultCMPOptions returns the whole store, out-of-vocabulary words kept, all cores.
func DefaultCMPOptions() CMPOptions { return CMPOptions{OOV: OOVKeep} }

// CMP is the multivariate calibrated perturbation mechanism of Feyisetan, Balle, Drake and
// Diethe (WSDM 2020, §3, Algorithm 1): each in-vocabulary word w with vector x = φ(w) ∈ ℝⁿ is
// replaced, in place, by the vocabulary word nearest (Euclidean, exact, ties by lowest rank) to
//
//	z = x + r·u,   r ~ Gamma(n, 1/ε),   u uniform on the unit sphere,
//
// the n-dimensional Laplace noise of density ∝ exp(−ε‖z − x‖). It is the EMD mechanism released
// in input order (EMD with order "keep"; the noise and decoding are EMD's own code). The privacy
// unit is the word: any two words w, w′ are ε·d(w, w′)-indistinguishable, d the Euclidean
// distance of their vectors (§2.2, Thm. 1); for a document of N words released in place the
// guarantee is positional, exp(ε·Σᵢ d(xᵢ, x′ᵢ)) against any document of the same length (metric
// "positional"). Out-of-vocabulary words follow the policy, as for EMD.
//
// The paper calibrates ε by two statistics of each word w over K draws (§4.2): N_w, how often w
// is released unchanged, and S_w, how many distinct words it is released as (CalibrateCMP;
// `dptext calibrate --draws K`).
type CMP struct {
	*EMD
}

// NewCMP returns the CMP mechanism at ε > 0 (ε in EMDEpsilonRange) over store's vocabulary
// (restricted to its TopK most frequent words when opts.TopK > 0).
func NewCMP(store *embeddings.Store, epsilon float64, opts CMPOptions) (*CMP, error) {
	e, err := NewEMD(store, epsilon, EMDOptions{TopK: opts.TopK, OOV: opts.OOV, Workers: opts.Workers, Order: mechanisms.OrderKeep})
	if err != nil {
		return nil, fmt.Errorf("cmp: %s", strings.TrimPrefix(err.Error(), "emd: "))
	}
	return &CMP{EMD: e}, nil
}

// Apply privatises doc in place (see EMD.TryApply; CMP never shuffles).
func (m *CMP) Apply(rng *rand.Rand, doc []string) []string { return m.EMD.Apply(rng, doc) }

// Diagnose reports EMD's per-document diagnostics (positional: "unchanged_share", the document's
// estimate of N_w/K, and "mean_cosine", "oov_tokens" and the policy's count) and
// "distinct_outputs": the mean, over the distinct in-vocabulary words of the document, of the
// number of distinct words the mechanism released at their positions (the document's estimate
// of S_w from as many draws as the word occurs). private must be Apply's output for original.
func (m *CMP) Diagnose(original, private []string) map[string]float64 {
	d := m.EMD.Diagnose(original, private)
	outputs := map[string]map[string]bool{}
	j := 0
	for _, w := range original {
		if _, known := m.store.Lookup(w); !known {
			if m.opts.OOV != OOVDrop {
				j++
			}
			continue
		}
		if outputs[w] == nil {
			outputs[w] = map[string]bool{}
		}
		if j < len(private) {
			outputs[w][private[j]] = true
		}
		j++
	}
	if len(outputs) > 0 {
		total := 0
		for _, set := range outputs {
			total += len(set)
		}
		d["distinct_outputs"] = float64(total) / float64(len(outputs))
	}
	return d
}
