package nearest

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"dptext/internal/fixtures"
)

// BenchmarkDecoderSmallBatches decodes batches of 1 to 13 queries on a 20,000-row store of
// dimension 100 (the vocabulary of configs/mechanisms.toml) with one Int8 worker: the batches
// of the distinguishing game's coupled releases and of the audit, where a batch is a few
// words.
func BenchmarkDecoderSmallBatches(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	store := fixtures.RandomStore(b, rng, 20000, 100, 0.4)
	all := queriesNear(rng, store, 13, 0.4)
	dec, err := New(store, Options{Workers: 1, Method: Int8})
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1, 2, 4, 5, 8, 12, 13} {
		b.Run(fmt.Sprintf("queries=%d", n), func(b *testing.B) {
			dst := make([]int, n)
			for b.Loop() {
				dec.Decode(all[:n*100], dst)
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "words/s")
		})
	}
}
