package mechanisms

import (
	"container/list"
	"math"
	"sync"

	"dptext/embeddings"
	"dptext/linalg"
)

// blockSize is how many positions of a document get their rating rows in one matrix product.
const blockSize = 64

// unitRows returns the store's vectors scaled to unit Euclidean length, so that a matrix
// product gives cosines. A zero vector stays zero (cosine 0 with everything).
func unitRows(store *embeddings.Store) []float32 {
	dim := store.Dim()
	unit := make([]float32, store.Len()*dim)
	for i := range store.Len() {
		v := store.Vector(i)
		norm := 0.0
		for _, x := range v {
			norm += float64(x) * float64(x)
		}
		if norm == 0 {
			continue
		}
		inv := 1 / math.Sqrt(norm)
		for j, x := range v {
			unit[i*dim+j] = float32(float64(x) * inv)
		}
	}
	return unit
}

// rowsCumulative says whether the cached rows are cumulative exponential-mechanism weights
// (embedding rating, one stage: the whole distribution depends only on the token) rather than
// embedding ratings (combined with context or cut to candidates per position).
func (m *ExpMech) rowsCumulative() bool {
	return m.opts.Rating == ExpMechRatingEmbedding && m.opts.Candidates == 0
}

// rows returns the row of every in-vocabulary token of block, from the cache or computed in one
// matrix product: cumulative weights when rowsCumulative, embedding ratings otherwise. The
// context rating with weight 1 needs no embedding rows and gets none.
func (m *ExpMech) rows(block []string) map[int][]float64 {
	if m.opts.Rating == ExpMechRatingContext && m.opts.ContextWeight == 1 {
		return nil
	}
	rows := make(map[int][]float64, len(block))
	var missing []int
	for _, w := range block {
		id, ok := m.store.Lookup(w)
		if !ok {
			continue
		}
		if _, done := rows[id]; done {
			continue
		}
		if row := m.cache.get(id); row != nil {
			rows[id] = row
			continue
		}
		rows[id] = nil
		missing = append(missing, id)
	}
	if len(missing) == 0 {
		return rows
	}
	n, dim := m.store.Len(), m.store.Dim()
	query := make([]float32, len(missing)*dim)
	for q, id := range missing {
		copy(query[q*dim:], m.unit[id*dim:(id+1)*dim])
	}
	cos := make([]float32, len(missing)*n)
	linalg.MulABt(cos, query, len(missing), m.unit, n, dim)
	for q, id := range missing {
		row := make([]float64, n)
		for v, c := range cos[q*n : (q+1)*n] {
			row[v] = min(max((float64(c)+1)/2, 0), 1) // clip float rounding of |cos| ≤ 1
		}
		if m.rowsCumulative() {
			row = ExponentialCumulative(row, m.epsilon/2)
		}
		rows[id] = row
		m.cache.put(id, row)
	}
	return rows
}

// rowCache is a bounded least-recently-used map from a token's row to its rating row, safe for
// concurrent use. It only saves work: outputs do not depend on what it holds.
type rowCache struct {
	mu    sync.Mutex
	limit int
	order *list.List // front = most recent; values are *cacheEntry
	index map[int]*list.Element
}

type cacheEntry struct {
	id  int
	row []float64
}

func newRowCache(limit int) *rowCache {
	return &rowCache{limit: limit, order: list.New(), index: make(map[int]*list.Element)}
}

func (c *rowCache) get(id int) []float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.index[id]
	if !ok {
		return nil
	}
	c.order.MoveToFront(e)
	return e.Value.(*cacheEntry).row
}

func (c *rowCache) put(id int, row []float64) {
	if c.limit == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.index[id]; ok {
		c.order.MoveToFront(e)
		return
	}
	c.index[id] = c.order.PushFront(&cacheEntry{id: id, row: row})
	if c.order.Len() > c.limit {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.index, last.Value.(*cacheEntry).id)
	}
}
