package metricdp

import (
	"testing"

	"dptext/internal/fixtures"
	"dptext/internal/rngs"
	"dptext/mechanisms"
)

// TestNoisyVectorsAreWhatApplyDecodes: the noise step a NoiseStep exposes is the one its
// release decodes — with the same generator state, decoding NoisyVectors gives Apply's words
// (CMP, Mahalanobis, and Vickrey at t = 0, whose choice is then the nearest word) — so an audit
// of the exposed noise is an audit of the released noise.
func TestNoisyVectorsAreWhatApplyDecodes(t *testing.T) {
	store := fixtures.Grid(t, 8)
	cmp, err := NewCMP(store, 1, CMPOptions{OOV: OOVKeep, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	mo := DefaultMahalanobisOptions()
	mo.Workers = 1
	mah, err := NewMahalanobis(store, 1, mo)
	if err != nil {
		t.Fatal(err)
	}
	vo := DefaultVickreyOptions()
	vo.Workers, vo.T = 1, 0
	vic, err := NewVickrey(store, 1, vo)
	if err != nil {
		t.Fatal(err)
	}
	const k = 200
	x := store.Word(27)
	doc := make([]string, k)
	for i := range doc {
		doc[i] = x
	}
	for name, c := range map[string]struct {
		ns  mechanisms.NoiseStep
		m   mechanisms.Mechanism
		dec *wordDecoding
	}{
		"cmp": {cmp, cmp, &cmp.wordDecoding}, "mahalanobis": {mah, mah, &mah.wordDecoding}, "vickrey": {vic, vic, &vic.wordDecoding},
	} {
		out := c.m.Apply(rngs.New(5, "noisestep"), doc)
		z, err := c.ns.NoisyVectors(rngs.New(5, "noisestep"), x, k)
		if err != nil {
			t.Fatal(err)
		}
		decoded := make([]int, k)
		c.dec.decoder.Decode(z, decoded)
		for i, r := range decoded {
			if store.Word(r) != out[i] {
				t.Fatalf("%s: draw %d decodes to %s, Apply released %s", name, i, store.Word(r), out[i])
			}
		}
		if _, err := c.ns.NoisyVectors(rngs.New(5, "noisestep"), "unknown-word", 1); err == nil {
			t.Errorf("%s: noise of an unknown word: no error", name)
		}
	}
}
