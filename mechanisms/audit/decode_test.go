package audit

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"dptext/internal/fixtures"
	"dptext/mechanisms"
	"dptext/mechanisms/metricdp"
	"dptext/mechanisms/nearest"
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

// TryApplyBatch releases each document with the mutant's TryApply, so that the audit sees the
// mutant and not the batch path of the EMD it embeds.
func (m avoidInput) TryApplyBatch(rngs []*rand.Rand, docs [][]string) ([][]string, error) {
	return oneByOne(m, rngs, docs)
}

// oneByOne is a batch path that releases each document with m's own TryApply.
func oneByOne(m mechanisms.FallibleMechanism, rngs []*rand.Rand, docs [][]string) ([][]string, error) {
	out := make([][]string, len(docs))
	for d, doc := range docs {
		var err error
		if out[d], err = m.TryApply(rngs[d], doc); err != nil {
			return nil, err
		}
	}
	return out, nil
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
	return mechanisms.ApplyOrPanic(m, rng, doc)
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

// vickreyChoiceMutant is a mutant of Vickrey's choice: it draws Vickrey's noise (its noise
// step) and decodes to the two nearest words as Vickrey does, but releases the second nearest
// with probability scale·p₂ instead of the published p₂ = t·d₁/(t·d₁ + (1−t)·d₂), and, with
// avoidInput, always when the nearest is the input word (a choice that reads the input). Every
// release is one of the two nearest words of its noisy vector, so the nearest-words check
// passes it; only the choice test can see it.
type vickreyChoiceMutant struct {
	*metricdp.Vickrey
	decoder    *nearest.Decoder
	avoidInput bool
	scale      float64
}

// vickreyAvoidInput is the mutant releasing the second nearest whenever the nearest is the
// input, and otherwise choosing by Vickrey's own rule.
func vickreyAvoidInput(v *metricdp.Vickrey, d *nearest.Decoder) vickreyChoiceMutant {
	return vickreyChoiceMutant{Vickrey: v, decoder: d, avoidInput: true, scale: 1}
}

// TryApplyBatch releases each document with the mutant's TryApply (see avoidInput's).
func (m vickreyChoiceMutant) TryApplyBatch(rngs []*rand.Rand, docs [][]string) ([][]string, error) {
	return oneByOne(m, rngs, docs)
}

func (m vickreyChoiceMutant) TryApply(rng *rand.Rand, doc []string) ([]string, error) {
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
		d1, d2 := math.Sqrt(sqDist(z, store.Vector(first[0]))), math.Sqrt(sqDist(z, store.Vector(second[0])))
		t := m.Threshold()
		if (m.avoidInput && first[0] == x) || (t*d1 > 0 && rng.Float64() < m.scale*t*d1/(t*d1+(1-t)*d2)) {
			first[0] = second[0]
		}
		out = append(out, store.Word(first[0]))
	}
	return out, nil
}

func (m vickreyChoiceMutant) Apply(rng *rand.Rand, doc []string) []string {
	return mechanisms.ApplyOrPanic(m, rng, doc)
}

var _ mechanisms.FallibleMechanism = vickreyChoiceMutant{}

// TestVickreyChoice: at default audit settings (K = 3,000, α = 0.05) over the grid fixture,
// Vickrey (Laplace and Mahalanobis noise, t = ½ and t = 0.9) passes the choice tests of its
// decoding, and the mutant releasing the second nearest whenever the nearest is the input fails
// them at ε = 1 and ε = 10 — while it passes the nearest-words check, which the mutant evades.
func TestVickreyChoice(t *testing.T) {
	store := fixtures.Grid(t, 10)
	for _, eps := range []float64{1, 10} {
		for _, thr := range []float64{0.5, 0.9} {
			for _, noise := range []string{metricdp.VickreyNoiseLaplace, metricdp.VickreyNoiseMahalanobis} {
				vo := metricdp.DefaultVickreyOptions()
				vo.Workers, vo.T, vo.Noise = 1, thr, noise
				v, err := metricdp.NewVickrey(store, eps, vo)
				if err != nil {
					t.Fatal(err)
				}
				d, err := nearest.Shared(v.DecodeStore(), 0, 1)
				if err != nil {
					t.Fatal(err)
				}
				for _, tc := range []struct {
					name    string
					m       mechanisms.Mechanism
					mutated bool
				}{{"vickrey", v, false}, {"vickrey avoiding its input", vickreyAvoidInput(v, d), true}} {
					r := mustRun(t, target(t, tc.name, tc.m, store), DefaultOptions())
					choice, failed := 0, 0
					var first string
					for _, f := range r.Findings {
						if f.Level != "decoding" || !strings.HasPrefix(f.Kind, "choice") {
							if f.Level == "decoding" && f.Violates() {
								t.Errorf("%s ε = %v t = %v %s: nearest-words check fails: %s", tc.name, eps, thr, noise, f.Describe())
							}
							continue
						}
						choice++
						if f.Violates() {
							failed++
							if first == "" {
								first = f.Describe()
							}
						}
					}
					if choice == 0 {
						t.Fatalf("%s ε = %v t = %v %s: no choice test", tc.name, eps, thr, noise)
					}
					if tc.mutated && failed == 0 {
						t.Errorf("ε = %v t = %v %s: the mutant passed all %d choice tests", eps, thr, noise, choice)
					}
					if !tc.mutated && failed > 0 {
						t.Errorf("ε = %v t = %v %s: Vickrey fails %d of %d choice tests: %s", eps, thr, noise, failed, choice, first)
					}
					t.Logf("%s ε = %v t = %v %s: %d of %d choice tests fail (level %.3g) %s", tc.name, eps, thr, noise, failed, choice, r.Level, first)
				}
			}
		}
	}
}

// TestExhaustiveNearerMatchesOneAtATime: the four-draws-per-pass search answers exactly as
// nearerRows does one draw at a time, on noisy vectors near and far from their released rows,
// with releases that are the nearest, the second nearest and a far word (choices 1 and 2), for
// counts of draws that do and do not fill groups of four. Mutant (run by hand): rows offered
// from the second of each group of four (an off-by-one in the pass) fails.
func TestExhaustiveNearerMatchesOneAtATime(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	store := fixtures.RandomStore(t, rng, 1003, 12, 1)
	n := store.Dim()
	for _, draws := range []int{1, 4, 9, 30} {
		z := make([]float64, draws*n)
		released := make([]int, draws)
		for j := range draws {
			base := store.Vector(rng.IntN(store.Len()))
			scale := []float64{0.01, 0.3, 2}[j%3]
			for t := range n {
				z[j*n+t] = float64(base[t]) + scale*rng.NormFloat64()
			}
			switch j % 3 {
			case 0:
				released[j] = nearestRow(store, z[j*n:(j+1)*n])
			default:
				released[j] = rng.IntN(store.Len())
			}
		}
		for _, choices := range []int{1, 2} {
			got := exhaustiveNearer(store, z, released, choices)
			for j := range draws {
				if want := nearerRows(store, z[j*n:(j+1)*n], released[j], nil, choices); got[j] != want {
					t.Errorf("%d draws, choices %d, draw %d: %d, want %d", draws, choices, j, got[j], want)
				}
			}
		}
	}
}
