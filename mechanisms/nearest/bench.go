package nearest

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"time"
)

// Throughput decodes queries (row-major, Store().Dim() values each) with dec in batches of
// batch vectors, after decoding the first batch once untimed as a warm-up, and returns the
// words decoded per second of the timed batches, the rows re-checked in float64 per query, and
// the decoded rows (so that callers can check two decoders agree). This is the number behind
// `dptext bench decode`.
func Throughput(dec *Decoder, queries []float64, batch int) (wordsPerSecond, recheckedPerQuery float64, rows []int, err error) {
	dim := dec.Store().Dim()
	if batch <= 0 {
		return 0, 0, nil, fmt.Errorf("bench decode: batch = %d: want > 0", batch)
	}
	if len(queries) == 0 || len(queries)%dim != 0 {
		return 0, 0, nil, fmt.Errorf("bench decode: %d query values: want a positive multiple of the dimension %d", len(queries), dim)
	}
	n := len(queries) / dim
	rows = make([]int, n)
	warm := min(batch, n)
	dec.Decode(queries[:warm*dim], rows[:warm])
	before := dec.Stats()
	var elapsed time.Duration
	for done := 0; done < n; done += batch {
		m := min(batch, n-done)
		start := time.Now()
		dec.Decode(queries[done*dim:(done+m)*dim], rows[done:done+m])
		elapsed += time.Since(start)
	}
	after := dec.Stats()
	return float64(n) / elapsed.Seconds(), float64(after.Rechecked-before.Rechecked) / float64(n), rows, nil
}

// ZipfRows draws m rows of a vocabulary of n words by Zipf's law over frequency rank (row r with
// probability ∝ 1/(r+1)), the frequency profile of running text (stores are in frequency
// order): the words whose noisy vectors `dptext bench decode` and the tests decode.
func ZipfRows(rng *rand.Rand, n, m int) []int {
	cum := make([]float64, n)
	total := 0.0
	for r := range cum {
		total += 1 / float64(r+1)
		cum[r] = total
	}
	rows := make([]int, m)
	for i := range rows {
		rows[i] = min(n-1, sort.SearchFloat64s(cum, rng.Float64()*total))
	}
	return rows
}
