package nearest

import (
	"sync"

	"dptext/embeddings"
)

// decoders holds one Decoder per (store, top_k, workers), so that the mechanisms of an ε grid
// share one packed copy of the vocabulary (40 MB for 100,000 × 100) instead of one each.
var decoders struct {
	sync.Mutex
	byKey map[decoderKey]*Decoder
}

type decoderKey struct {
	store         *embeddings.Store
	topK, workers int
}

// Shared returns the decoder (default method) of store's topK most frequent words (0: all)
// using workers goroutines per call (0: GOMAXPROCS), packing it on first use and returning the
// same Decoder to every later caller with the same arguments.
func Shared(store *embeddings.Store, topK, workers int) (*Decoder, error) {
	decoders.Lock()
	defer decoders.Unlock()
	key := decoderKey{store, topK, workers}
	if d, ok := decoders.byKey[key]; ok {
		return d, nil
	}
	d, err := New(store.TopK(topK), Options{Workers: workers})
	if err != nil {
		return nil, err
	}
	if decoders.byKey == nil {
		decoders.byKey = map[decoderKey]*Decoder{}
	}
	decoders.byKey[key] = d
	return d, nil
}
