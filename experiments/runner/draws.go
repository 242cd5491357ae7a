package runner

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"dptext/internal/rngs"
	"dptext/mechanisms"
)

// Common random numbers. Mechanisms of the config that share draws (mechanisms.DrawSharer with
// equal DrawKey: EMD with oov = "keep" and with oov = "drop" at the same ε) draw once per set,
// repeat and document, from the stream of the first of them in the config, and each releases
// its output from those draws: the same noisy vectors and decoded words, different
// out-of-vocabulary policies. Their rows are then a paired comparison, and the decoding is done
// once. A mechanism sharing its draws with no earlier entry draws from its own cell's stream,
// as every other mechanism does, so a config with one EMD entry is unaffected.

// sharedDraws are the draws of a group's documents, with each document's generator state
// after its draws (a ChaCha8 state), from which every member's Release continues.
type sharedDraws struct {
	draws  []mechanisms.Draws
	states [][]byte
}

// drawStream returns the cell path whose streams the draws of cell c's mechanism ds come from:
// that of the first entry of the config with the same component name whose mechanism at c's
// set, repeat and ε has the same DrawKey (c's own path when none precedes it).
func (r *runner) drawStream(c cell, ds mechanisms.DrawSharer) (string, error) {
	name := r.cfg.Mechanisms[c.mech].Name
	for mi, mc := range r.cfg.Mechanisms[:c.mech] {
		if mc.Name != name || !slices.Contains(mc.Grid(), c.eps) {
			continue
		}
		first := cell{set: c.set, mech: mi, eps: c.eps, rep: c.rep}
		m, err := r.mechanism(first)
		if err != nil {
			return "", err
		}
		if other, ok := m.(mechanisms.DrawSharer); ok && other.DrawKey() == ds.DrawKey() {
			return r.cellPath(first), nil
		}
	}
	return r.cellPath(c), nil
}

// releaseShared privatises docs (the unit what of cell c) with ds from the draws of its group
// (drawStream), made once per run by the first cell that needs them: document i's draws come
// from the stream "<path>/<what>=i", as privatise's would, and its release continues that
// stream where the draws left it, so a mechanism alone in its group releases exactly what
// Apply on its own stream releases.
func (r *runner) releaseShared(ds mechanisms.DrawSharer, c cell, what string, docs [][]string) ([][]string, error) {
	path, err := r.drawStream(c, ds)
	if err != nil {
		return nil, err
	}
	key := path + "/" + what
	sd, err := getLazy(r, r.draws, key, func() (*sharedDraws, error) {
		sd := &sharedDraws{draws: make([]mechanisms.Draws, len(docs)), states: make([][]byte, len(docs))}
		srcs, gens := make([]*rand.ChaCha8, len(docs)), make([]*rand.Rand, len(docs))
		for i := range docs {
			srcs[i] = rand.NewChaCha8(rngs.Key(uint64(r.cfg.Seed), fmt.Sprintf("%s=%d", key, i)))
			gens[i] = rand.New(srcs[i])
		}
		if bd, ok := ds.(mechanisms.BatchDrawSharer); ok {
			// Every document's draws in one call (the same draws, decoded together).
			draws, err := bd.DrawBatch(gens, docs)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", path, what, err)
			}
			if len(draws) != len(docs) {
				return nil, fmt.Errorf("%s: %s: %d draws for %d documents", path, what, len(draws), len(docs))
			}
			copy(sd.draws, draws)
		} else {
			for i, doc := range docs {
				d, err := ds.Draw(gens[i], doc)
				if err != nil {
					return nil, fmt.Errorf("%s: %s: document %d: %w", path, what, i, err)
				}
				sd.draws[i] = d
			}
		}
		for i, src := range srcs {
			state, err := src.MarshalBinary()
			if err != nil {
				return nil, err
			}
			sd.states[i] = state
		}
		return sd, nil
	})
	if err != nil {
		return nil, err
	}
	if len(sd.draws) != len(docs) {
		return nil, fmt.Errorf("%s: %s: %d shared draws for %d documents", path, what, len(sd.draws), len(docs))
	}
	out := make([][]string, len(docs))
	for i, doc := range docs {
		src := &rand.ChaCha8{}
		if err := src.UnmarshalBinary(sd.states[i]); err != nil {
			return nil, err
		}
		if out[i], err = ds.Release(rand.New(src), doc, sd.draws[i]); err != nil {
			return nil, fmt.Errorf("%s: %s: document %d: %w", r.cellPath(c), what, i, err)
		}
	}
	return out, nil
}
