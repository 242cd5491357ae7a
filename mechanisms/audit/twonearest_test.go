package audit

import (
	"math"
	"math/rand/v2"
	"testing"

	"dptext/embeddings"
)

// nearTieStore is a vocabulary of random rows (dimension dim, entries of about 3, like GloVe's
// norms of 5 to 10) in triples around random centres c_i: row 3i near c_i, row 3i+2 the mirror
// image of row 3i+1 through c_i; the last triple's mirrored rows are equal instead (a
// duplicate). A vector a hair off c_i has row 3i nearest and rows 3i+1 and 3i+2 second and
// third, their squared distances differing by less than float32 resolves: a float32 screen
// without its bound often keeps the wrong one of the two.
func nearTieStore(t *testing.T, rng *rand.Rand, triples, dim int) (*embeddings.Store, [][]float64) {
	t.Helper()
	rows := 3 * triples
	vecs := make([]float32, rows*dim)
	var centres [][]float64
	for i := range triples {
		c := make([]float64, dim)
		for d := range dim {
			c[d] = 3 * rng.NormFloat64()
			vecs[3*i*dim+d] = float32(c[d] + 0.3*rng.NormFloat64())
			a := float32(c[d] + rng.NormFloat64())
			vecs[(3*i+1)*dim+d] = a
			vecs[(3*i+2)*dim+d] = float32(2*c[d] - float64(a))
			if i == triples-1 {
				vecs[(3*i+2)*dim+d] = a
			}
		}
		centres = append(centres, c)
	}
	words := make([]string, rows)
	for i := range words {
		words[i] = string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676))
	}
	store, err := embeddings.New(words, dim, vecs)
	if err != nil {
		t.Fatal(err)
	}
	return store, centres
}

// screenTestVector is a noisy vector of one of three kinds over a nearTieStore: 0, a hair
// (10⁻⁹ of a unit) off a random centre but the last, its second and third nearest rows tied
// up to rounding; 1, near the duplicated rows; 2, around a random row at a radius from 0.1 to
// 30, as the Laplace-like noise of the mechanisms.
func screenTestVector(rng *rand.Rand, store *embeddings.Store, centres [][]float64, kind int) []float64 {
	dim := store.Dim()
	z := make([]float64, dim)
	switch kind {
	case 0:
		c := centres[rng.IntN(len(centres)-1)]
		for d := range z {
			z[d] = c[d] + 1e-9*rng.NormFloat64()
		}
	case 1:
		r := store.Vector(store.Len() - 2)
		for d := range z {
			z[d] = float64(r[d]) + 0.01*rng.NormFloat64()
		}
	default:
		r := store.Vector(rng.IntN(store.Len()))
		radius := 0.1 * math.Pow(300, rng.Float64())
		dir, norm := make([]float64, dim), 0.0
		for d := range dir {
			dir[d] = rng.NormFloat64()
			norm += dir[d] * dir[d]
		}
		for d := range z {
			z[d] = float64(r[d]) + radius*dir[d]/math.Sqrt(norm)
		}
	}
	return z
}

// twoNearestAll equals the exhaustive scalar search twoNearest — rows and distances, bit for
// bit — on 3,000 noisy vectors: 1,000 a hair (10⁻⁹ of a unit) off a centre of nearTieStore
// (second and third nearest tied up to rounding, decided by the float64 search), 1,000 near the
// duplicated rows (an exact tie: the lower row first), and 1,000 at Laplace-like radii from 0.1
// to 30 around random rows. Mutants: the screen's factor K set to 0 (the float32 estimates
// trusted as they are) or to K/1000 returns a wrong second word on the near-ties (checked).
func TestTwoNearestAllIsExhaustive(t *testing.T) {
	rng := rand.New(rand.NewPCG(77, 3))
	const triples, dim = 200, 50
	store, centres := nearTieStore(t, rng, triples, dim)
	var z []float64
	for i := range 3000 {
		z = append(z, screenTestVector(rng, store, centres, i/1000)...)
	}
	k := len(z) / dim
	got := twoNearestAll(store, z, k)
	ties := 0
	for j := range k {
		want := twoNearest(store, z[j*dim:(j+1)*dim])
		if got[j] != want {
			t.Fatalf("vector %d: twoNearestAll %+v, exhaustive %+v", j, got[j], want)
		}
		if w3 := thirdNearest(store, z[j*dim:(j+1)*dim], want); math.Abs(w3-want.d2*want.d2) < 1e-6 || want.d1 == want.d2 {
			ties++
		}
	}
	if ties < 1000 {
		t.Errorf("only %d near-ties among the vectors: the test does not test the screen's bound", ties)
	}
}

// thirdNearest is the smallest squared distance of z to a row other than p's two.
func thirdNearest(store *embeddings.Store, z []float64, p nearestPair) float64 {
	best := math.Inf(1)
	for r := range store.Len() {
		if r != p.w1 && r != p.w2 {
			best = min(best, sqDist(z, store.Vector(r)))
		}
	}
	return best
}

// exhaustiveNearer equals nearerRows over the whole vocabulary for every draw: releases that
// are the nearest row, the second, a random row, and the higher of two duplicate rows (the
// lower one is nearer by the tie rule), at choices 1 and 2, on the vectors of
// TestTwoNearestAllIsExhaustive's kinds. Mutant: rows cut on the screen's estimate instead of
// its lower end fails (a duplicate row, as near as the release, is dropped).
func TestExhaustiveNearerIsNearerRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(78, 4))
	const triples, dim = 150, 40
	store, centres := nearTieStore(t, rng, triples, dim)
	rows := store.Len()
	var z []float64
	var released []int
	for i := range 1200 {
		zj := screenTestVector(rng, store, centres, i%3)
		p := twoNearest(store, zj)
		rel := []int{p.w1, p.w2, rng.IntN(rows), rows - 1}[rng.IntN(4)]
		z, released = append(z, zj...), append(released, rel)
	}
	for _, choices := range []int{1, 2} {
		got := exhaustiveNearer(store, z, released, choices)
		found := 0
		for j, rel := range released {
			want := nearerRows(store, z[j*dim:(j+1)*dim], rel, nil, choices)
			if got[j] != want {
				t.Fatalf("choices %d, draw %d released row %d: exhaustiveNearer %d, nearerRows %d", choices, j, rel, got[j], want)
			}
			if want >= 0 {
				found++
			}
		}
		if found < 200 || found > 1100 {
			t.Errorf("choices %d: %d of %d draws have a nearer row: the releases do not test both answers", choices, found, len(released))
		}
	}
}

// twoNearest is the two nearest rows of the whole vocabulary to z (ties to the lower row) with
// their Euclidean distances, by the scalar loop: the
// reference twoNearestAll is tested against.
func twoNearest(store *embeddings.Store, z []float64) nearestPair {
	b1, b2, s1, s2 := -1, -1, math.Inf(1), math.Inf(1)
	for r := range store.Len() {
		d := sqDist(z, store.Vector(r))
		switch {
		case d < s1:
			b2, s2, b1, s1 = b1, s1, r, d
		case d < s2:
			b2, s2 = r, d
		}
	}
	return nearestPair{b1, b2, math.Sqrt(s1), math.Sqrt(s2)}
}
