package rowcache

import (
	"container/list"
	"sync"
)

// Cache is a bounded least-recently-used cache from a word's row in the store to a float64
// row over the vocabulary (ratings or cumulative exponential-mechanism weights), safe for
// concurrent use. Callers cache only rows that are a pure function of the word, so the cache
// changes speed, never output.
type Cache struct {
	mu    sync.Mutex
	limit int
	order *list.List // front = most recently used; values are *rowCacheEntry
	index map[int]*list.Element
}

type rowCacheEntry struct {
	id  int
	row []float64
}

// New returns a cache holding at most limit rows; limit 0 caches nothing.
func New(limit int) *Cache {
	return &Cache{limit: limit, order: list.New(), index: map[int]*list.Element{}}
}

// Get returns the cached row of word id, if any, and marks it most recently used.
func (c *Cache) Get(id int) ([]float64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.index[id]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*rowCacheEntry).row, true
}

// Put stores the row of word id, evicting the least recently used rows beyond the limit. A row
// already cached is kept (and marked most recently used).
func (c *Cache) Put(id int, row []float64) {
	if c.limit <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.index[id]; ok {
		c.order.MoveToFront(e)
		return
	}
	c.index[id] = c.order.PushFront(&rowCacheEntry{id: id, row: row})
	for c.order.Len() > c.limit {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.index, last.Value.(*rowCacheEntry).id)
	}
}

// Lookup returns a map with every distinct id as a key, holding its cached row or nil, and
// the ids without a cached row, distinct and in order of first appearance.
func (c *Cache) Lookup(ids []int) (rows map[int][]float64, missing []int) {
	rows = make(map[int][]float64, len(ids))
	for _, id := range ids {
		if _, done := rows[id]; done {
			continue
		}
		row, ok := c.Get(id)
		rows[id] = row
		if !ok {
			missing = append(missing, id)
		}
	}
	return rows, missing
}
