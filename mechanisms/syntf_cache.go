package mechanisms

import (
	"container/list"
	"sync"
)

// synTFRowCache is a bounded least-recently-used cache of SynTF's per-source-word cumulative
// probability rows (|V| float64 each), shared by concurrent Apply calls. Rows are a pure
// function of the source word, so the cache changes speed, never output.
type synTFRowCache struct {
	mu    sync.Mutex
	limit int
	order *list.List // front = most recently used; values are *synTFCachedRow
	byRow map[int]*list.Element
}

type synTFCachedRow struct {
	source int
	cum    []float64
}

func newSynTFRowCache(limit int) *synTFRowCache {
	return &synTFRowCache{limit: limit, order: list.New(), byRow: map[int]*list.Element{}}
}

// get returns the cached row of source word v, if any.
func (c *synTFRowCache) get(v int) ([]float64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byRow[v]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*synTFCachedRow).cum, true
}

// put stores the row of source word v, evicting the least recently used rows beyond the limit.
func (c *synTFRowCache) put(v int, cum []float64) {
	if c.limit <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byRow[v]; ok {
		c.order.MoveToFront(e)
		return
	}
	c.byRow[v] = c.order.PushFront(&synTFCachedRow{source: v, cum: cum})
	for c.order.Len() > c.limit {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byRow, last.Value.(*synTFCachedRow).source)
	}
}
