package expmech

import (
	"sync"

	"dptext/embeddings"
	"dptext/internal/linalg"
)

// DistanceRows keeps, per word x of a store, the row of Euclidean distances d(x, y) to every
// word y of the store, computed exactly as the distance mechanisms compute them (float64 sums
// of the float32 vectors' differences, in dimension order; see ratingsBatch). SanText, SanText+
// and TEM at any ε rate a word by these distances only (−min(d, γ) over their outputs), so the
// mechanisms of one run built on the same store share one DistanceRows (ShareDistances): the
// O(|V|) pass per distinct word is made once per run instead of once per cell and ε, and since
// a row is a pure function of the word, sharing it changes speed, never output.
//
// It holds at most its budget of rows; once full it keeps the rows it has and computes the
// others every time (a run's cells read mostly the same words, so a fixed set serves them as
// well as any eviction would). Safe for concurrent use.
type DistanceRows struct {
	store *embeddings.Store
	limit int
	mu    sync.RWMutex
	rows  map[int][]float64
	// again counts rows computed again because the budget was full.
	again int
}

// Stats returns the rows kept, the budget in rows, and how many rows were computed again
// because the budget was full (0 for a nil DistanceRows).
func (d *DistanceRows) Stats() (kept, budget, again int) {
	if d == nil {
		return 0, 0, 0
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	return len(d.rows), d.limit, d.again
}

// NewDistanceRows returns an empty DistanceRows over store holding at most budget bytes of
// rows (8 bytes per word of the store each; budget 0 keeps none).
func NewDistanceRows(store *embeddings.Store, budget int64) *DistanceRows {
	return &DistanceRows{store: store, limit: int(budget / int64(8*max(1, store.Len()))), rows: map[int][]float64{}}
}

// get returns the distance rows of xs (indexed like xs), computing the missing ones four at a
// time and keeping them while the budget lasts.
func (d *DistanceRows) get(xs []int) [][]float64 {
	out := make([][]float64, len(xs))
	var missing []int
	var at []int
	d.mu.RLock()
	for i, x := range xs {
		if r, ok := d.rows[x]; ok {
			out[i] = r
		} else {
			missing = append(missing, x)
			at = append(at, i)
		}
	}
	d.mu.RUnlock()
	if len(missing) == 0 {
		return out
	}
	computed := distancesBatch(d.store, nil, missing)
	d.mu.Lock()
	for k, r := range computed {
		out[at[k]] = r
		if _, ok := d.rows[missing[k]]; !ok {
			if len(d.rows) < d.limit {
				d.rows[missing[k]] = r
			} else {
				d.again++
			}
		}
	}
	d.mu.Unlock()
	return out
}

// ShareDistances makes s read its distance rows from rows (built on the same store; any other
// store is ignored). Output is unchanged.
func (s *SanText) ShareDistances(rows *DistanceRows) { s.em.share(rows) }

// ShareDistances makes m read its distance rows from rows (built on the same store; any other
// store is ignored). Output is unchanged.
func (m *TEM) ShareDistances(rows *DistanceRows) { m.em.share(rows) }

func (e *distanceEM) share(rows *DistanceRows) {
	if rows != nil && rows.store == e.store {
		e.shared = rows
	}
}

// ratingsFromDistances turns full distance rows (over every store row) into ratings over e's
// outputs: −min(d, γ), the expression ratingsBatch evaluates (the builtin min, which has
// math.Min's rules for NaN, infinities and signed zeros, inlined).
func (e *distanceEM) ratingsFromDistances(ds [][]float64) [][]float64 {
	out := make([][]float64, len(ds))
	g := e.gamma
	for i, d := range ds {
		r := make([]float64, e.size())
		if e.outputs == nil {
			linalg.NegMin(r, d[:len(r)], g)
		} else {
			for j, row := range e.outputs {
				r[j] = -min(d[row], g)
			}
		}
		out[i] = r
	}
	return out
}
