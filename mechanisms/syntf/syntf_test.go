package syntf

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"dptext/embeddings"
	"dptext/internal/fixtures"
	"dptext/mechanisms"
)

// randomSynTFStore returns n distinct random lowercase words of 1–8 letters (from a small alphabet,
// so that bigrams are shared) with standard normal vectors of dim dimensions.
func randomSynTFStore(t testing.TB, seed uint64, n, dim int) *embeddings.Store {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 99))
	seen := map[string]bool{}
	words := make([]string, 0, n)
	for len(words) < n {
		var b strings.Builder
		for range 1 + rng.IntN(8) {
			b.WriteByte("abcdeilnorst"[rng.IntN(12)])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	return fixtures.NormalStore(t, rng, words, dim, 1)
}

func synTFTestOptions() SynTFOptions {
	o := DefaultSynTFOptions()
	o.EllBlock = 7
	o.EllWorkers = 2
	return o
}

// bruteSynTFRating is an independent float64 implementation of ρ for tests.
func bruteSynTFRating(store *embeddings.Store, v, w int, s float64, clip string) float64 {
	a, b := store.Vector(v), store.Vector(w)
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	cos := dot / math.Sqrt(na*nb)
	bigrams := func(x string) map[string]int {
		m := map[string]int{}
		r := []rune(x)
		for i := 0; i+1 < len(r); i++ {
			m[string(r[i:i+2])]++
		}
		return m
	}
	bv, bw := bigrams(store.Word(v)), bigrams(store.Word(w))
	total, common := 0, 0
	for g, c := range bv {
		total += c
		common += min(c, bw[g])
	}
	for _, c := range bw {
		total += c
	}
	overlap := 0.0
	switch {
	case total > 0:
		overlap = 2 * float64(common) / float64(total)
	case v == w:
		overlap = 1
	}
	rho := cos - s*overlap
	if clip == SynTFClipUnit {
		rho = min(max(rho, 0), 1)
	}
	return rho
}

func TestSynTFRatingRangeAndSymmetry(t *testing.T) {
	store := randomSynTFStore(t, 1, 40, 5)
	for _, clip := range []string{SynTFClipUnit, SynTFClipNone} {
		r := newSynTFRater(store, 0.3, clip)
		lo, hi := r.bounds()
		n := store.Len()
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		rho := make([]float32, n*n)
		r.rows(rho, all, r.newScratch(n))
		for v := range n {
			for w := range n {
				x := float64(rho[v*n+w])
				if x < lo || x > hi {
					t.Fatalf("clip %s: ρ(%d,%d) = %g outside [%g, %g]", clip, v, w, x, lo, hi)
				}
				if want := bruteSynTFRating(store, v, w, 0.3, clip); math.Abs(x-want) > 1e-5 {
					t.Fatalf("clip %s: ρ(%s,%s) = %g, brute force %g", clip, store.Word(v), store.Word(w), x, want)
				}
				if math.Abs(x-float64(rho[w*n+v])) > 1e-6 {
					t.Fatalf("clip %s: ρ not symmetric at (%d,%d)", clip, v, w)
				}
			}
		}
	}
}

// bruteSynTFEll computes ℓ directly from eq. (1): the exact probabilities of every row, then the
// maximum over w of ln max_v P(w|v) − ln min_v P(w|v).
func bruteSynTFEll(store *embeddings.Store, eps, s float64, clip string) float64 {
	n := store.Len()
	delta := 2 + s
	if clip == SynTFClipUnit {
		delta = 1
	}
	p := make([][]float64, n)
	for v := range n {
		row := make([]float64, n)
		for w := range n {
			row[w] = bruteSynTFRating(store, v, w, s, clip)
		}
		p[v] = mechanisms.ExponentialProbabilities(row, eps/(2*delta))
	}
	ell := 0.0
	for w := range n {
		hi, lo := 0.0, 1.0
		for v := range n {
			hi, lo = max(hi, p[v][w]), min(lo, p[v][w])
		}
		ell = max(ell, math.Log(hi/lo))
	}
	return ell
}

func TestComputeEllMatchesBruteForce(t *testing.T) {
	store := randomSynTFStore(t, 2, 50, 6)
	for _, clip := range []string{SynTFClipUnit, SynTFClipNone} {
		for _, eps := range []float64{1, 12} {
			want := bruteSynTFEll(store, eps, 0.3, clip)
			// Block sizes: 7 does not divide 50; 64 exceeds it; 1 is the smallest.
			for _, block := range []int{7, 64, 1} {
				for _, workers := range []int{1, 3} {
					o := synTFTestOptions()
					o.Clip, o.EllBlock = clip, block
					got, err := ComputeEll(store, eps, o, workers)
					if err != nil {
						t.Fatal(err)
					}
					// float32 cosines: |error of ε·ρ/(2Δ)| ≲ 1e-6·ε, so 1e-4 is ample.
					if math.Abs(got.Ell-want) > 1e-4 {
						t.Fatalf("clip %s ε=%g block %d workers %d: ℓ = %.8f, brute force %.8f", clip, eps, block, workers, got.Ell, want)
					}
					pv, _ := synTFProbabilitiesOf(store, eps, o, got.VMaxRow)
					pw, _ := synTFProbabilitiesOf(store, eps, o, got.VMinRow)
					if d := math.Log(pv[got.WRow] / pw[got.WRow]); math.Abs(d-got.Ell) > 1e-4 {
						t.Fatalf("reported witnesses give ln ratio %.6f, ℓ = %.6f", d, got.Ell)
					}
				}
			}
		}
	}
}

// synTFProbabilitiesOf returns P(·|v) of a SynTF built without ℓ.
func synTFProbabilitiesOf(store *embeddings.Store, eps float64, o SynTFOptions, v int) ([]float64, error) {
	o.TightBound = false
	m, err := NewSynTF(store, eps, o)
	if err != nil {
		return nil, err
	}
	p, _ := m.Probabilities(store.Word(v))
	return p, nil
}

// One pass for several ε gives what separate passes give, and the printed table has them.
func TestComputeEllGridAndPrint(t *testing.T) {
	store := randomSynTFStore(t, 10, 45, 5)
	o := synTFTestOptions()
	eps := []float64{2, 30, 9}
	grid, err := ComputeEllGrid(store, eps, o, 2)
	if err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	if err := PrintSynTFPrivacy(&buf, store, eps, 150, o, 2); err != nil {
		t.Fatal(err)
	}
	for i, e := range eps {
		one, _ := ComputeEll(store, e, o, 1)
		if one != grid[i] {
			t.Fatalf("ε=%g: grid %+v, alone %+v", e, grid[i], one)
		}
		if ellN := fmt.Sprintf("%.4f", one.Ell*150); !strings.Contains(buf.String(), ellN) {
			t.Fatalf("table lacks ℓn = %s:\n%s", ellN, buf.String())
		}
	}
}

func TestSynTFBoundsOrdered(t *testing.T) {
	for _, n := range []int{30, 120} {
		store := randomSynTFStore(t, uint64(n), n, 4)
		for _, clip := range []string{SynTFClipUnit, SynTFClipNone} {
			for _, eps := range []float64{0.1, 1, 5, 20, 47.5, 200} {
				o := synTFTestOptions()
				o.Clip = clip
				m, err := NewSynTF(store, eps, o)
				if err != nil {
					t.Fatal(err)
				}
				l := m.Loss()
				if !(l.Ell <= l.EpsilonLnEta+1e-9 && l.EpsilonLnEta < l.Epsilon) {
					t.Fatalf("|V|=%d clip %s ε=%g: want ℓ ≤ ε+ln η < ε, got %+v", n, clip, eps, l)
				}
				g := m.Guarantee(nil)
				if g.Kind != mechanisms.KindPure || g.Epsilon != g.Bounds["ell_n"] || g.Bounds["eps_n"] != eps*150 ||
					g.Bounds["eps_ln_eta_n"] != l.EpsilonLnEta*150 {
					t.Fatalf("guarantee %+v for loss %+v", g, l)
				}
			}
		}
	}
}

func TestSynTFEta(t *testing.T) {
	for _, c := range []struct {
		eps float64
		l   int
	}{{1, 2}, {10, 100}, {47.5, 30000}, {3, 7}} {
		want := math.Log((math.Exp(-c.eps/2) + float64(c.l) - 1) / (math.Exp(c.eps/2) + float64(c.l) - 1))
		if got := SynTFEta(c.eps, c.l); math.Abs(got-want) > 1e-12 {
			t.Fatalf("ln η(%g, %d) = %g, want %g", c.eps, c.l, got, want)
		}
	}
	// For L = 2, η = (e^{−ε/2} + 1)/(e^{ε/2} + 1) = e^{−ε/2}, so ε + ln η = ε/2.
	if got := 10 + SynTFEta(10, 2); math.Abs(got-5) > 1e-12 {
		t.Fatalf("ε + ln η(10, 2) = %g, want 5", got)
	}
	// Huge ε: ln η ≈ ln(L−1) − ε/2, without overflow.
	if got := SynTFEta(1e4, 30000); math.IsInf(got, 0) || math.IsNaN(got) || math.Abs(got-(math.Log(29999)-5e3)) > 1e-6 {
		t.Fatalf("ln η(1e4, 30000) = %g", got)
	}
}

// χ² goodness of fit of SynTF's substitutes for one source word against the exact
// probabilities. A one-word document makes every draw v the same word, so the n outputs are
// i.i.d. from P(·|v). With 12 words (11 degrees of freedom) the 0.999 quantile of χ² is 31.26:
// the test fails by chance once in 1,000 seeds (the seed is fixed). The same counts tested
// against the distribution of a mis-scaled mechanism (scale ε/Δ instead of ε/(2Δ), i.e. ε off
// by a factor 2) give a χ² far above that quantile, which the test checks too: it has the power
// to catch such a bug.
func TestSynTFSamplesMatchExponentialMechanism(t *testing.T) {
	store := randomSynTFStore(t, 3, 12, 4)
	o := synTFTestOptions()
	o.Length = 60000
	o.TightBound = false
	const eps = 6.0
	m, err := NewSynTF(store, eps, o)
	if err != nil {
		t.Fatal(err)
	}
	src := store.Word(5)
	out := m.Apply(rand.New(rand.NewChaCha8([32]byte{7})), []string{src})
	counts := make([]float64, store.Len())
	for _, w := range out {
		row, _ := store.Lookup(w)
		counts[row]++
	}
	chi2 := func(p []float64) float64 {
		x := 0.0
		for i := range p {
			e := float64(len(out)) * p[i]
			x += (counts[i] - e) * (counts[i] - e) / e
		}
		return x
	}
	p, _ := m.Probabilities(src)
	if x := chi2(p); x > 31.26 {
		t.Fatalf("χ² = %.1f > 31.26 (11 d.o.f., p = 0.001): counts %v, probabilities %v", x, counts, p)
	}
	ratings := make([]float32, store.Len())
	m.rater.rows(ratings, []int{5}, m.rater.newScratch(1))
	r64 := make([]float64, len(ratings))
	for i, u := range ratings {
		r64[i] = float64(u)
	}
	if x := chi2(mechanisms.ExponentialProbabilities(r64, 2*m.scale)); x < 31.26 {
		t.Fatalf("χ² against a mechanism with doubled ε = %.1f: the test could not detect mis-scaling", x)
	}
}

func TestSynTFGolden(t *testing.T) {
	store := randomSynTFStore(t, 4, 60, 5)
	o := synTFTestOptions()
	o.Length = 20
	m, err := NewSynTF(store, 10, o)
	if err != nil {
		t.Fatal(err)
	}
	doc := []string{store.Word(3), "Unknown", store.Word(3), "the", "1,000", strings.ToUpper(store.Word(17)), store.Word(40)}
	got := struct {
		Output []string
		TF     []TermCount
		Bounds map[string]float64
	}{Output: m.Apply(rand.New(rand.NewChaCha8([32]byte{42})), doc)}
	got.TF = m.TF(got.Output)
	got.Bounds = m.Guarantee(doc).Bounds
	gotJSON, err := json.MarshalIndent(got, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	data := golden(t, "syntf_golden.json", append(gotJSON, '\n'))
	want := got
	want.Output, want.TF, want.Bounds = nil, nil, nil
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Output, want.Output) || !reflect.DeepEqual(got.TF, want.TF) {
		t.Fatalf("output changed:\n got %v\nwant %v", got.Output, want.Output)
	}
	// ℓ rests on float32 cosines, whose last bits depend on the summation order of the
	// dot-product kernel; 1e-6 relative covers that and nothing else.
	for k, v := range want.Bounds {
		if math.Abs(got.Bounds[k]-v) > 1e-6*math.Abs(v) {
			t.Fatalf("bound %s = %.12g, golden %.12g", k, got.Bounds[k], v)
		}
	}
}

// The row cache changes speed, never output, and concurrent Apply calls are safe.
func TestSynTFCacheAndConcurrencyDoNotChangeOutput(t *testing.T) {
	store := randomSynTFStore(t, 5, 80, 5)
	docs := [][]string{
		{store.Word(1), store.Word(2), store.Word(2)},
		{store.Word(2), store.Word(70), store.Word(9), store.Word(1)},
		{"nothing", "in", "vocabulary"},
	}
	run := func(cacheRows int, parallel bool) [][]string {
		o := synTFTestOptions()
		o.CacheRows, o.TightBound, o.Length = cacheRows, false, 40
		m, err := NewSynTF(store, 8, o)
		if err != nil {
			t.Fatal(err)
		}
		out := make([][]string, 3*len(docs))
		var wg sync.WaitGroup
		for i := range out {
			do := func() { out[i] = m.Apply(rand.New(rand.NewPCG(uint64(i), 1)), docs[i%len(docs)]) }
			if parallel {
				wg.Add(1)
				go func() { defer wg.Done(); do() }()
			} else {
				do()
			}
		}
		wg.Wait()
		return out
	}
	ref := run(0, false)
	for _, got := range [][][]string{run(2, false), run(256, true)} {
		if !reflect.DeepEqual(got, ref) {
			t.Fatalf("outputs differ with cache/concurrency")
		}
	}
}

func TestSynTFPreprocessing(t *testing.T) {
	words := []string{"dog", "Dog", "cat", "house"}
	vecs := make([]float32, 4*2)
	for i := range vecs {
		vecs[i] = float32(i%3) + 1
	}
	store, _ := embeddings.New(words, 2, vecs)
	o := synTFTestOptions()
	o.TightBound = false
	m, _ := NewSynTF(store, 1, o)
	if got, want := m.Terms([]string{"Dog", "the", "3.5", "1990s", "CAT"}), []string{"dog", "1990s", "cat"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("lower: Terms = %v, want %v", got, want)
	}
	o.Case, o.RemoveNumbers, o.RemoveStopwords = "orth", false, false
	m, _ = NewSynTF(store, 1, o)
	if got, want := m.Terms([]string{"Dog", "the", "3.5"}), []string{"Dog", "the", "3.5"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("orth: Terms = %v, want %v", got, want)
	}
	// tf-idf: "dog" in every reference document has idf weight 1; "cat" in none has ln 3 + 1.
	o = synTFTestOptions()
	o.TightBound = false
	m, _ = NewSynTF(store, 1, o)
	idf := m.FitIDF([][]string{{"dog"}, {"dog", "house"}})
	if w := idf.Weight("cat"); math.Abs(w-(math.Log(3)+1)) > 1e-12 || idf.Weight("dog") != 1 {
		t.Fatalf("idf weights cat %g dog %g", w, idf.Weight("dog"))
	}
	o.Weighting, o.IDF = "tfidf", idf
	m, _ = NewSynTF(store, 1, o)
	support, cum := m.theta([]string{"dog", "cat", "unknown"})
	wantDog := 1 / (1 + math.Log(3) + 1)
	if len(support) != 2 || math.Abs(cum[0]-wantDog) > 1e-12 || cum[1] != 1 {
		t.Fatalf("θ support %v cumulative %v, want P(dog) = %g", support, cum, wantDog)
	}
	d := m.Diagnose([]string{"dog", "cat", "unknown"}, []string{"dog", "house"})
	if d["syntf_terms"] != 3 || d["syntf_oov_terms"] != 1 || d["syntf_output_in_input"] != 0.5 {
		t.Fatalf("diagnostics %v", d)
	}
}

func TestNewSynTFRejectsBadOptions(t *testing.T) {
	store := randomSynTFStore(t, 6, 10, 3)
	for _, c := range []struct {
		edit func(*SynTFOptions)
		eps  float64
		want string
	}{
		{func(o *SynTFOptions) {}, 0, "epsilon"},
		{func(o *SynTFOptions) { o.Case = "upper" }, 1, `case = "upper"`},
		{func(o *SynTFOptions) { o.Weighting = "bm25" }, 1, `weighting = "bm25"`},
		{func(o *SynTFOptions) { o.Weighting = "tfidf" }, 1, "SynTFOptions.IDF"},
		{func(o *SynTFOptions) { o.Length = 0 }, 1, "n = 0"},
		{func(o *SynTFOptions) { o.BigramFactor = -1 }, 1, "s = -1"},
		{func(o *SynTFOptions) { o.Clip = "soft" }, 1, `clip = "soft"`},
		{func(o *SynTFOptions) { o.EllBlock = 0 }, 1, "ell_block"},
		{func(o *SynTFOptions) { o.CacheRows = -1 }, 1, "cache_rows"},
		{func(o *SynTFOptions) { o.Lemmatize, o.WordNetDir = true, t.TempDir() }, 1, "wordnet_dir"},
	} {
		o := synTFTestOptions()
		c.edit(&o)
		if _, err := NewSynTF(store, c.eps, o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one mentioning %q", err, c.want)
		}
	}
}

// The ℓ cache is read when its entry is verified, recomputed when it is not, and ignored
// under EllRecompute (--force). A verified entry rewritten compactly (same content, key and
// checksum) is read and left as it is; entries edited to ℓ × 1.5, 0, −3156.9 and 1e300 — with
// the checksum left as it was, and with a checksum recomputed for the edit, which only the
// recomputation of the loss at the entry's words catches — are reported on EllLog and replaced
// by the computed ℓ; with EllRecompute even a verified entry is computed afresh and rewritten.
// The mutants: without the checksum and recomputation (the former reader), the edited ℓ is
// returned; without EllRecompute's skip, the compact entry survives a forced call.
func TestComputeEllCache(t *testing.T) {
	store := randomSynTFStore(t, 7, 30, 4)
	o := synTFTestOptions()
	o.EllCacheDir = t.TempDir()
	var log strings.Builder
	o.EllLog = &log
	first, err := ComputeEll(store, 5, o, 1)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(o.EllCacheDir, "syntf-ell-*.json"))
	if len(files) != 1 {
		t.Fatalf("cache files %v", files)
	}
	var entry synTFEllFile
	data, _ := os.ReadFile(files[0])
	if err := json.Unmarshal(data, &entry); err != nil {
		t.Fatal(err)
	}
	compact, _ := json.Marshal(entry)
	if err := os.WriteFile(files[0], compact, 0o644); err != nil {
		t.Fatal(err)
	}
	second, err := ComputeEll(store, 5, o, 1)
	if err != nil || second != first || log.Len() != 0 {
		t.Fatalf("verified entry: %+v (first %+v), err %v, log %q", second, first, err, log.String())
	}
	if data, _ := os.ReadFile(files[0]); string(data) != string(compact) {
		t.Fatal("a verified entry was recomputed and rewritten instead of read")
	}
	for _, ell := range []float64{first.Ell * 1.5, 0, -3156.9, 1e300} {
		for _, resum := range []bool{false, true} {
			edited := entry
			edited.Ell = ell
			if resum {
				edited.SHA256 = synTFEllChecksum(edited.Key, edited.EllResult)
			}
			data, _ := json.Marshal(edited)
			if err := os.WriteFile(files[0], data, 0o644); err != nil {
				t.Fatal(err)
			}
			log.Reset()
			got, err := ComputeEll(store, 5, o, 1)
			if err != nil || got != first {
				t.Errorf("ℓ edited to %v (checksum recomputed: %v): got %+v, err %v; want the computed %+v", ell, resum, got, err, first)
			}
			if !strings.Contains(log.String(), "is not used") {
				t.Errorf("ℓ edited to %v (checksum recomputed: %v): nothing logged", ell, resum)
			}
			var again synTFEllFile
			data, _ = os.ReadFile(files[0])
			if json.Unmarshal(data, &again) != nil || again.Ell != first.Ell {
				t.Errorf("ℓ edited to %v: the entry was not replaced: %s", ell, data)
			}
		}
	}
	if err := os.WriteFile(files[0], compact, 0o644); err != nil {
		t.Fatal(err)
	}
	o.EllRecompute = true
	if got, err := ComputeEll(store, 5, o, 1); err != nil || got != first {
		t.Fatalf("EllRecompute: %+v, %v", got, err)
	}
	if data, _ := os.ReadFile(files[0]); string(data) == string(compact) {
		t.Error("EllRecompute read the cache entry instead of computing ℓ afresh and rewriting it")
	}
	// A different ε is a different key.
	o.EllRecompute = false
	if third, _ := ComputeEll(store, 6, o, 1); third.Ell == first.Ell {
		t.Fatal("ε = 6 read the ε = 5 cache entry")
	}
}

func BenchmarkComputeEll30k(b *testing.B) {
	store := randomSynTFStore(b, 8, 30000, 100)
	o := DefaultSynTFOptions()
	for b.Loop() {
		if _, err := ComputeEll(store, 47.5, o, 0); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSynTFApply(b *testing.B) {
	store := randomSynTFStore(b, 9, 30000, 100)
	o := DefaultSynTFOptions()
	o.TightBound = false
	m, err := NewSynTF(store, 47.5, o)
	if err != nil {
		b.Fatal(err)
	}
	doc := make([]string, 400)
	for i := range doc {
		doc[i] = store.Word((i * 37) % 3000)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for b.Loop() {
		m.Apply(rng, doc)
	}
}
