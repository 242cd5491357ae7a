package metricdp

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"dptext/embeddings"
	"dptext/internal/fixtures"
	"dptext/internal/rngs"
	"dptext/mechanisms"
)

// TestEMDBagOrderDependsOnlyOnTheMultiset applies EMD at an ε so large that no word moves to
// the two orders of one bag, 4000 times each. Under order "bag" the first output word must be
// "g0_0" about half the time for both inputs (binomial: mean 2000, SD 31.6; the test allows 5 SD,
// false-failure rate below 1e-6 per input); under "keep" it always is the first input word.
// The published (in-place) release fails the first check: it is what made order leak.
func TestEMDBagOrderDependsOnlyOnTheMultiset(t *testing.T) {
	store := fixtures.Grid(t, 4)
	const runs = 4000
	for _, order := range []string{mechanisms.OrderBag, mechanisms.OrderKeep} {
		m, err := NewEMD(store, 1e9, EMDOptions{OOV: OOVKeep, Workers: 1, Order: order})
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range [][]string{{"g0_0", "g3_3"}, {"g3_3", "g0_0"}} {
			first := 0
			for i := range runs {
				out := m.Apply(rngs.New(uint64(i), "bag"), doc)
				if !slices.Equal(slices.Sorted(slices.Values(out)), []string{"g0_0", "g3_3"}) {
					t.Fatalf("order %s: output %v is not the input bag", order, out)
				}
				if out[0] == "g0_0" {
					first++
				}
			}
			want := 0
			if doc[0] == "g0_0" {
				want = runs
			}
			if order == mechanisms.OrderBag {
				if math.Abs(float64(first)-runs/2) > 5*math.Sqrt(runs/4.0) {
					t.Errorf("order bag, input %v: g0_0 first in %d of %d outputs, want about half", doc, first, runs)
				}
			} else if first != want {
				t.Errorf("order keep, input %v: g0_0 first in %d of %d outputs, want %d", doc, first, runs, want)
			}
		}
	}
	if _, err := NewEMD(store, 1, EMDOptions{OOV: OOVKeep, Order: "sorted"}); err == nil || !strings.Contains(err.Error(), `order = "sorted"`) {
		t.Errorf("order = sorted: error %v", err)
	}
}

// TestEMDPairDistance checks the exact bound of each order between two documents: swapped words
// cost nothing as a bag and twice their distance in place; out-of-vocabulary words pair off only
// with themselves.
func TestEMDPairDistance(t *testing.T) {
	store := fixtures.Grid(t, 4)
	build := func(order, oov string) *EMD {
		m, err := NewEMD(store, 2, EMDOptions{OOV: oov, Workers: 1, Order: order})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	bag, keep := build(mechanisms.OrderBag, OOVKeep), build(mechanisms.OrderKeep, OOVKeep)
	for _, c := range []struct {
		x, y      string
		bag, keep float64
	}{
		{"g0_0 g3_0", "g3_0 g0_0", 0, 6},
		{"g0_0 g3_0", "g3_3 g0_1", 4, math.Sqrt(18) + math.Sqrt(10)},
		{"g1_1 snape", "snape g1_2", 1, math.Inf(1)},
		{"g1_1 snape", "g1_2 snape", 1, 1},
		{"g1_1 snape", "g1_1 harry", math.Inf(1), math.Inf(1)},
		{"g1_1", "g1_1 g1_1", math.Inf(1), math.Inf(1)},
	} {
		x, y := strings.Fields(c.x), strings.Fields(c.y)
		if got := bag.PairDistance(x, y); math.Abs(got-c.bag) > 1e-9 && !(math.IsInf(got, 1) && math.IsInf(c.bag, 1)) {
			t.Errorf("bag: D(%v, %v) = %v, want %v", x, y, got, c.bag)
		}
		if got := keep.PairDistance(x, y); math.Abs(got-c.keep) > 1e-9 && !(math.IsInf(got, 1) && math.IsInf(c.keep, 1)) {
			t.Errorf("keep: D(%v, %v) = %v, want %v", x, y, got, c.keep)
		}
	}
	// "drop" reveals the number of unknown words only; "nearest-known" maps them first.
	drop := build(mechanisms.OrderBag, OOVDrop)
	if d := drop.PairDistance([]string{"g1_1", "snape"}, []string{"harry", "g1_2"}); d != 1 {
		t.Errorf("drop: D = %v, want 1", d)
	}
	if d := drop.PairDistance([]string{"g1_1", "snape"}, []string{"g1_1", "g1_2"}); !math.IsInf(d, 1) {
		t.Errorf("drop with different numbers of unknown words: D = %v, want +Inf", d)
	}
	if bag.PairDistanceKey() == keep.PairDistanceKey() || bag.PairDistanceKey() != build(mechanisms.OrderBag, OOVKeep).PairDistanceKey() {
		t.Error("PairDistanceKey does not identify the distance function")
	}
	if g := bag.Guarantee([]string{"g1_1"}); g.Metric != mechanisms.MetricEMD {
		t.Errorf("bag guarantee metric %q", g.Metric)
	}
}

// TestEMDBagDiagnose: with nothing moving, the bag's pairing finds every word unchanged at
// cosine 1 although the output order is shuffled.
func TestEMDBagDiagnose(t *testing.T) {
	store := fixtures.RandomStore(t, rand.New(rand.NewPCG(4, 4)), 200, 5, 1)
	m, err := NewEMD(store, 1e9, EMDOptions{OOV: OOVKeep, Workers: 1, Order: mechanisms.OrderBag})
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Fields("w1 snape w2 w3 w4 w5 w6 w1")
	out := m.Apply(rngs.New(3, "diag"), doc)
	d := m.Diagnose(doc, out)
	if d["unchanged_share"] != 1 || math.Abs(d["mean_cosine"]-1) > 1e-6 || d["oov_kept"] != 1 {
		t.Errorf("Diagnose = %v, want everything unchanged", d)
	}
	// Replacing one word by another of the document counts as a change only in place.
	d = m.Diagnose([]string{"w1", "w2"}, []string{"w2", "w2"})
	if d["unchanged_share"] != 0.5 {
		t.Errorf("one of two words matched: unchanged_share %v, want 0.5", d["unchanged_share"])
	}
}

// TestTinyEpsilonIsRejected: ε outside the representable range is an error at construction (it
// used to index out of range near 1e-38 and to decode every word to row 0 below 1e-16), and the
// noise path refuses a non-finite vector instead of decoding it.
func TestTinyEpsilonIsRejected(t *testing.T) {
	store := fixtures.Grid(t, 3)
	for _, eps := range []float64{1e-40, 1e-16, 1e-4, 1e13, math.NaN(), math.Inf(1), 0, -1} {
		if _, err := NewEMD(store, eps, DefaultEMDOptions()); err == nil || !strings.Contains(err.Error(), "[0.001, 1e+12]") {
			t.Errorf("emd ε = %v: error %v, want the range [0.001, 1e+12]", eps, err)
		}
	}
	if _, err := NewEMD(store, 1e-3, DefaultEMDOptions()); err != nil {
		t.Errorf("emd ε = 1e-3 rejected: %v", err)
	}
	z := make([]float64, 2)
	dir := make([]float64, 2)
	for _, x := range [][]float32{{float32(math.Inf(1)), 0}, {float32(math.NaN()), 1}} {
		if err := LaplaceNoisyVector(rngs.New(1, ""), 1, x, dir, z); err == nil {
			t.Errorf("noisy vector of %v accepted", x)
		}
	}
	if err := LaplaceNoisyVector(rngs.New(1, ""), 1e-300, []float32{0, 0}, dir, z); err == nil {
		t.Error("noise of radius 1e300 accepted")
	}
	bad, err := embeddings.New([]string{"a", "b"}, 1, []float32{1, float32(math.NaN())})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewEMD(bad, 1, DefaultEMDOptions()); err == nil || !strings.Contains(err.Error(), `"b"`) {
		t.Errorf("store with a NaN vector: error %v, want one naming the word", err)
	}
}

// TestPositionWise: the noise-then-decode mechanisms release position by position (the
// distinguishing game's coupling relies on it) except when they shuffle (EMD's order "bag") or
// drop out-of-vocabulary words (the output is shorter); and a position-wise release has the
// input's length with every out-of-vocabulary word in its place.
func TestPositionWise(t *testing.T) {
	store := fixtures.Grid(t, 4)
	doc := []string{store.Word(0), "qqunknown", store.Word(3), store.Word(1), "qqunknown"}
	for _, c := range []struct {
		order, oov string
		want       bool
	}{
		{mechanisms.OrderKeep, OOVKeep, true}, {mechanisms.OrderKeep, OOVNearestKnown, true},
		{mechanisms.OrderKeep, OOVDrop, false}, {mechanisms.OrderBag, OOVKeep, false},
	} {
		m, err := NewEMD(store, 2, EMDOptions{Order: c.order, OOV: c.oov})
		if err != nil {
			t.Fatal(err)
		}
		cm, err := NewCMP(store, 2, CMPOptions{OOV: c.oov})
		if err != nil {
			t.Fatal(err)
		}
		if got := m.PositionWise(); got != c.want {
			t.Errorf("emd order %q, oov %q: PositionWise %v, want %v", c.order, c.oov, got, c.want)
		}
		if got, want := cm.PositionWise(), c.oov != OOVDrop; got != want {
			t.Errorf("cmp oov %q: PositionWise %v, want %v", c.oov, got, want)
		}
		if !c.want {
			continue
		}
		out := m.Apply(rand.New(rand.NewPCG(1, 2)), doc)
		if len(out) != len(doc) {
			t.Fatalf("emd order %q, oov %q: %d words for %d", c.order, c.oov, len(out), len(doc))
		}
		if c.oov == OOVKeep && (out[1] != doc[1] || out[4] != doc[4]) {
			t.Errorf("emd oov keep: out-of-vocabulary words moved: %q", out)
		}
	}
}
