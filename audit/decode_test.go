package audit

import (
	"math/rand/v2"
	"strings"
	"testing"

	"dptext/internal/fixtures"
	"dptext/mechanisms"
	"dptext/mechanisms/metricdp"
	"dptext/nearest"
)

// avoidInput is a mutant of EMD whose text path never releases the input word: it draws the
// noise EMD draws (its noise step, one vector per word in document order) but, when the nearest
// word of the noisy vector is the input, releases the second nearest. P(x | x) = 0 while
// P(x | x′) > 0: an infinite loss that the noise tests, which trust the decoding, cannot see.
type avoidInput struct {
	*metricdp.EMD
	bag     bool
	decoder *nearest.Decoder // the exact two-nearest search EMD's own decoder uses
}

func newAvoidInput(t *testing.T, emd *metricdp.EMD, bag bool) avoidInput {
	d, err := nearest.Shared(emd.DecodeStore(), 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	return avoidInput{EMD: emd, bag: bag, decoder: d}
}

func (m avoidInput) TryApply(rng *rand.Rand, doc []string) ([]string, error) {
	store := m.DecodeStore()
	out := make([]string, 0, len(doc))
	for _, w := range doc {
		x, ok := store.Lookup(w)
		if !ok {
			out = append(out, w)
			continue
		}
		z, err := m.NoisyVectors(rng, w, 1)
		if err != nil {
			return nil, err
		}
		first, second := []int{0}, []int{0}
		m.decoder.Decode2(z, first, second)
		if first[0] == x {
			first[0] = second[0]
		}
		out = append(out, store.Word(first[0]))
	}
	if m.bag {
		rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	}
	return out, nil
}

func (m avoidInput) Apply(rng *rand.Rand, doc []string) []string {
	out, err := m.TryApply(rng, doc)
	if err != nil {
		panic(err)
	}
	return out
}

var _ mechanisms.FallibleMechanism = avoidInput{}

// TestDecodingCheck: EMD, CMP, Mahalanobis and Vickrey (which releases one of the two nearest
// words) pass the decoding check; EMD whose decoding avoids the input word fails it at ε = 1
// and ε = 10, naming the draw and both outputs, although its noise step is EMD's own.
func TestDecodingCheck(t *testing.T) {
	store := fixtures.Grid(t, 10)
	for name, m := range noiseMechanisms(t, store, 1) {
		r := mustRun(t, target(t, name, m, store), options(1000))
		n := 0
		for _, f := range r.Findings {
			if f.Level == "decoding" {
				n++
				if f.Violates() {
					t.Errorf("%s: %s", name, f.Describe())
				}
			}
		}
		if n == 0 {
			t.Errorf("%s: no decoding check", name)
		}
	}
	for _, eps := range []float64{1, 10} {
		emd, err := metricdp.NewEMD(store, eps, metricdp.EMDOptions{OOV: metricdp.OOVKeep, Workers: 1, Order: mechanisms.OrderBag})
		if err != nil {
			t.Fatal(err)
		}
		r := mustRun(t, target(t, "emd avoiding its input", newAvoidInput(t, emd, true), store), options(1000))
		var caught []Finding
		for _, f := range r.Violations() {
			if f.Level == "decoding" {
				caught = append(caught, f)
			}
		}
		if len(caught) == 0 {
			t.Fatalf("ε = %v: EMD avoiding its input passed the decoding check", eps)
		}
		if d := caught[0].Describe(); !strings.Contains(d, "draw ") || !strings.Contains(d, "exhaustive search decodes") {
			t.Errorf("ε = %v: the failure does not name the draw and both outputs: %s", eps, d)
		}
		t.Logf("ε = %v: %d of %d decoding checks fail; %s", eps, len(caught), len(r.Findings), caught[0].Describe())
	}
}
