package expmech

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"dptext/embeddings"
	"dptext/internal/fixtures"
	"dptext/internal/ngram"
	"dptext/internal/rngs"
	"dptext/mechanisms"
)

// expMechFanStore has words w0…w(n−1) on the unit circle at angles of 180°/(n−1) apart, so that
// cos(w0, wj) = cos(j·180°/(n−1)) runs from 1 to −1, and the extra word "zero" with a zero vector.
func expMechFanStore(t testing.TB, n int) *embeddings.Store {
	words := make([]string, 0, n+1)
	vecs := make([]float32, 0, 2*(n+1))
	for j := range n {
		a := float64(j) * math.Pi / float64(n-1)
		words = append(words, fmt.Sprintf("w%d", j))
		vecs = append(vecs, float32(3*math.Cos(a)), float32(3*math.Sin(a))) // raw length 3: cosines ignore it
	}
	words = append(words, "zero")
	vecs = append(vecs, 0, 0)
	s, err := embeddings.New(words, 2, vecs)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// expMechExact returns the exponential mechanism's probabilities exp(ε·ρ/2)/Z written out
// directly from the formula (not through the package's helpers).
func expMechExact(ratings []float64, eps float64) []float64 {
	p := make([]float64, len(ratings))
	z := 0.0
	for v, r := range ratings {
		p[v] = math.Exp(eps * r / 2)
		z += p[v]
	}
	for v := range p {
		p[v] /= z
	}
	return p
}

// expMechEmbeddingRatings are (cos + 1)/2 of every word of the fan store against row `from`.
func expMechEmbeddingRatings(store *embeddings.Store, from int) []float64 {
	r := make([]float64, store.Len())
	a := store.Vector(from)
	for v := range r {
		b := store.Vector(v)
		na, nb := math.Hypot(float64(a[0]), float64(a[1])), math.Hypot(float64(b[0]), float64(b[1]))
		cos := 0.0
		if na > 0 && nb > 0 {
			cos = (float64(a[0])*float64(b[0]) + float64(a[1])*float64(b[1])) / (na * nb)
		}
		r[v] = (cos + 1) / 2
	}
	return r
}

// expMechChiSquare is Pearson's χ² of counts against probabilities p.
func expMechChiSquare(counts []int, p []float64) float64 {
	n := 0
	for _, c := range counts {
		n += c
	}
	chi2 := 0.0
	for v, c := range counts {
		e := float64(n) * p[v]
		chi2 += (float64(c) - e) * (float64(c) - e) / e
	}
	return chi2
}

// chi2Critical001 holds the 0.999 quantiles of χ² by degrees of freedom (standard tables), so a
// correct sampler fails a test that uses them once in 1,000 seeds; the seeds are fixed, so the
// tests are deterministic.
var chi2Critical001 = map[int]float64{4: 18.467, 5: 20.515, 6: 22.458, 7: 24.322}

func expMechCount(store *embeddings.Store, out []string, counts []int) {
	for _, w := range out {
		id, _ := store.Lookup(w)
		counts[id]++
	}
}

// expMechCheckEpsilon passes if counts fit the exponential mechanism's probabilities for the
// ratings at eps (χ² at false-failure rate 0.001, len(counts)−1 d.o.f.) and fit neither 2·eps
// nor eps/2, so that a mechanism mis-scaling ε by a factor 2 (e.g. ε·ρ instead of ε·ρ/2) fails.
func expMechCheckEpsilon(t *testing.T, counts []int, ratings []float64, eps float64) {
	t.Helper()
	crit := chi2Critical001[len(counts)-1]
	if chi2 := expMechChiSquare(counts, expMechExact(ratings, eps)); chi2 > crit {
		t.Fatalf("χ² = %.2f > %.2f: counts %v, want probabilities %v", chi2, crit, counts, expMechExact(ratings, eps))
	}
	for _, wrong := range []float64{2 * eps, eps / 2} {
		if chi2 := expMechChiSquare(counts, expMechExact(ratings, wrong)); chi2 <= crit {
			t.Fatalf("counts also fit ε = %g (χ² = %.2f): the test could not detect a mis-scaled ε", wrong, chi2)
		}
	}
}

// The embedding rating: frequencies of 60,000 draws for the token w0 against the exact
// probabilities (7 categories, 6 d.o.f., false-failure rate 0.001). The same counts are also
// checked against the probabilities at 2ε and ε/2: the test must reject those, so a mechanism
// that mis-scales ε by a factor 2 (e.g. ε·ρ instead of ε·ρ/2) fails it.
func TestExpMechEmbeddingMatchesExactProbabilities(t *testing.T) {
	store := expMechFanStore(t, 6)
	const eps = 4.0
	m, err := NewExpMech(store, eps, DefaultExpMechOptions())
	if err != nil {
		t.Fatal(err)
	}
	doc := slices.Repeat([]string{"w0"}, 60000)
	counts := make([]int, store.Len())
	expMechCount(store, m.Apply(rngs.New(1, "expmech/chi2/embedding"), doc), counts)
	expMechCheckEpsilon(t, counts, expMechEmbeddingRatings(store, 0), eps)
}

// A small language model over the fan store's words for the context rating.
func expMechContextModel(t testing.TB, store *embeddings.Store) *ngram.Bidirectional {
	docs := [][]string{
		{"w0", "w1", "w2", "w3"}, {"w0", "w1", "w2", "w4"}, {"w0", "w5", "w2", "w3"},
		{"w3", "w2", "w1", "w0"}, {"w1", "w1", "w2", "zero"},
	}
	lm, err := ngram.TrainBidirectional(store.Words(), docs, ngram.Options{Order: 2, Discount: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	return lm
}

// The context rating: 30,000 draws at position 1 of "w0 w4 w2" against the exact probabilities
// of ρ = w·P/max P + (1−w)·(cos+1)/2 (6 d.o.f., false-failure rate 0.001), and against 2ε and
// ε/2, which must be rejected.
func TestExpMechContextMatchesExactProbabilities(t *testing.T) {
	store := expMechFanStore(t, 6)
	lm := expMechContextModel(t, store)
	const eps, weight = 6.0, 0.7
	opts := DefaultExpMechOptions()
	opts.Rating, opts.Context, opts.ContextWeight = ExpMechRatingContext, lm, weight
	m, err := NewExpMech(store, eps, opts)
	if err != nil {
		t.Fatal(err)
	}
	doc := []string{"w0", "w4", "w2"}
	p := make([]float64, store.Len())
	lm.Distribution(p, doc, 1)
	peak := slices.Max(p)
	ratings := expMechEmbeddingRatings(store, 4)
	for v := range ratings {
		ratings[v] = weight*p[v]/peak + (1-weight)*ratings[v]
	}
	rng := rngs.New(1, "expmech/chi2/context")
	counts := make([]int, store.Len())
	for range 30000 {
		out := m.Apply(rng, doc)
		id, _ := store.Lookup(out[1])
		counts[id]++
	}
	expMechCheckEpsilon(t, counts, ratings, eps)
}

// The two-stage variant against its exact distribution: k = 2 candidates drawn without
// replacement with ε₁/k each, then the exponential mechanism with ε₂ over the pair, summed over
// all ordered pairs (5 words, 4 d.o.f., false-failure rate 0.001).
func TestExpMechTwoStageMatchesExactProbabilities(t *testing.T) {
	store := expMechFanStore(t, 5)
	words := store.Words()[:5] // the zero-vector word would only add a category
	store, _ = embeddings.New(words, 2, store.Matrix()[:10])
	const eps1, eps2, k = 3.0, 5.0, 2
	opts := DefaultExpMechOptions()
	opts.Candidates, opts.CandidateEpsilon = k, eps1
	m, err := NewExpMech(store, eps2, opts)
	if err != nil {
		t.Fatal(err)
	}
	r := expMechEmbeddingRatings(store, 1)
	w := make([]float64, len(r))
	total := 0.0
	for v := range r {
		w[v] = math.Exp(eps1 / k * r[v] / 2)
		total += w[v]
	}
	want := make([]float64, len(r))
	for a := range r {
		for b := range r {
			if a == b {
				continue
			}
			pPair := w[a] / total * w[b] / (total - w[a])
			pa := expMechExact([]float64{r[a], r[b]}, eps2)
			want[a] += pPair * pa[0]
			want[b] += pPair * pa[1]
		}
	}
	counts := make([]int, store.Len())
	expMechCount(store, m.Apply(rngs.New(1, "expmech/chi2/two-stage"), slices.Repeat([]string{"w1"}, 40000)), counts)
	if chi2 := expMechChiSquare(counts, want); chi2 > chi2Critical001[4] {
		t.Fatalf("χ² = %.2f > %.2f: counts %v, want %v", chi2, chi2Critical001[4], counts, want)
	}
}

func TestExpMechOOVPolicies(t *testing.T) {
	store := expMechFanStore(t, 6)
	doc := []string{"w0", "unknownword", "w3"}

	uniform, err := NewExpMech(store, 50, DefaultExpMechOptions())
	if err != nil {
		t.Fatal(err)
	}
	counts := make([]int, store.Len())
	rng := rngs.New(1, "expmech/oov")
	for range 7000 {
		out := uniform.Apply(rng, doc)
		id, ok := store.Lookup(out[1])
		if !ok {
			t.Fatalf("oov = uniform output %q, want a vocabulary word", out[1])
		}
		counts[id]++
	}
	p := slices.Repeat([]float64{1 / float64(store.Len())}, store.Len())
	if chi2 := expMechChiSquare(counts, p); chi2 > chi2Critical001[6] {
		t.Fatalf("oov = uniform: χ² = %.2f against the uniform distribution: %v", chi2, counts)
	}
	if g := uniform.Guarantee(doc); g.Epsilon != 150 {
		t.Fatalf("oov = uniform: guarantee %+v, want ε·l = 150", g)
	}
	if d := uniform.Diagnose(doc, doc); d["oov_tokens"] != 1 || d["unchanged_share"] != 1 {
		t.Fatalf("diagnostics %v", d)
	}

	opts := DefaultExpMechOptions()
	opts.OOV = ExpMechOOVKeep
	keep, err := NewExpMech(store, 50, opts)
	if err != nil {
		t.Fatal(err)
	}
	if out := keep.Apply(rng, doc); out[1] != "unknownword" {
		t.Fatalf("oov = keep changed the token: %q", out)
	}
	if g := keep.Guarantee(doc); !math.IsInf(g.Epsilon, 1) || g.Bounds["eps_l"] != 150 {
		t.Fatalf("oov = keep with an OOV token: guarantee %+v, want +Inf (eps_l 150)", g)
	}
	if g := keep.Guarantee([]string{"w0", "w1"}); g.Epsilon != 100 {
		t.Fatalf("oov = keep without OOV tokens: guarantee %+v, want 100", g)
	}
}

func TestExpMechGuarantee(t *testing.T) {
	store := expMechFanStore(t, 6)
	doc := strings.Fields("w0 w1 w2 w3 w4 w5 w0 w1 w2 w3")
	lm := expMechContextModel(t, store)
	cases := []struct {
		name   string
		eps    float64
		modify func(*ExpMechOptions)
		want   float64
		bounds map[string]float64
	}{
		{"embedding", 5, func(*ExpMechOptions) {}, 50, map[string]float64{"eps_l": 50, "word_eps": 5}},
		{"context", 5, func(o *ExpMechOptions) { o.Rating, o.Context = ExpMechRatingContext, lm }, 50,
			map[string]float64{"eps_l": 50, "word_eps": 15}}, // window 1: 3 positions read a token
		{"two-stage", 5, func(o *ExpMechOptions) { o.Candidates, o.CandidateEpsilon = 3, 2 }, 70,
			map[string]float64{"eps_l": 70, "word_eps": 7, "candidate_eps_l": 20, "token_eps_l": 50}},
		{"random", 5, func(o *ExpMechOptions) { o.Rating = ExpMechRatingRandom }, 0, map[string]float64{"eps_l": 50}},
	}
	for _, c := range cases {
		opts := DefaultExpMechOptions()
		c.modify(&opts)
		m, err := NewExpMech(store, c.eps, opts)
		if err != nil {
			t.Fatal(err)
		}
		g := m.Guarantee(doc)
		if g.Kind != mechanisms.KindPure || g.Epsilon != c.want || fmt.Sprint(g.Bounds) != fmt.Sprint(c.bounds) {
			t.Errorf("%s: guarantee %+v, want pure ε = %g with bounds %v", c.name, g, c.want, c.bounds)
		}
	}
}

func TestNewExpMechRejectsBadOptions(t *testing.T) {
	store := expMechFanStore(t, 6)
	other, _ := embeddings.New([]string{"a", "b"}, 1, []float32{1, 2})
	otherLM, err := ngram.TrainBidirectional(other.Words(), nil, ngram.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		eps    float64
		modify func(*ExpMechOptions)
		want   string
	}{
		{0, func(*ExpMechOptions) {}, "epsilon = 0"},
		{math.Inf(1), func(*ExpMechOptions) {}, "epsilon = +Inf"},
		{1e-300, func(*ExpMechOptions) {}, "epsilon = 1e-300"},
		{1, func(o *ExpMechOptions) { o.Rating = "bert" }, `rating = "bert": want "embedding", "context" or "random"`},
		{1, func(o *ExpMechOptions) { o.Rating = ExpMechRatingContext }, "needs a context model"},
		{1, func(o *ExpMechOptions) { o.Rating, o.Context = ExpMechRatingContext, otherLM }, "train it on the store's words"},
		{1, func(o *ExpMechOptions) { o.ContextWeight = 1.5 }, "context_weight = 1.5"},
		{1, func(o *ExpMechOptions) { o.Candidates = -1 }, "candidates = -1"},
		{1, func(o *ExpMechOptions) { o.Candidates = 99 }, "candidates = 99: want 0 (one stage) or 1 to 7"},
		{1, func(o *ExpMechOptions) { o.Candidates = 2 }, "candidate_epsilon = 0"},
		{1, func(o *ExpMechOptions) { o.CandidateEpsilon = 2 }, "needs candidates > 0"},
		{1, func(o *ExpMechOptions) { o.Rating, o.Candidates, o.CandidateEpsilon = ExpMechRatingRandom, 2, 1 }, `not "random"`},
		{1, func(o *ExpMechOptions) { o.OOV = "drop" }, `oov = "drop": want "uniform" or "keep"`},
		{1, func(o *ExpMechOptions) { o.CacheRows = -1 }, "cache_rows = -1"},
	}
	for _, c := range cases {
		opts := DefaultExpMechOptions()
		c.modify(&opts)
		if _, err := NewExpMech(store, c.eps, opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
	}
	if _, err := NewExpMech(store, 0, ExpMechOptions{Rating: ExpMechRatingRandom, OOV: ExpMechOOVUniform}); err != nil {
		t.Errorf("the random rating needs no ε: %v", err)
	}
}

// expMechGoldenStore is a random 200-word store (seeded), with a language model on random text.
func expMechGoldenStore(t testing.TB, n, dim int) *embeddings.Store {
	return fixtures.NormalStore(t, rand.New(rand.NewPCG(3, 5)), fixtures.NumberedWords("v%03d", n), dim, 1)
}

func expMechZipfDocs(store *embeddings.Store, seed uint64, docs, length int) [][]string {
	rng := rand.New(rand.NewPCG(seed, 1))
	z := rand.NewZipf(rng, 1.1, 2, uint64(store.Len()+9))
	out := make([][]string, docs)
	for d := range out {
		for range length {
			k := int(z.Uint64())
			if k >= store.Len() {
				out[d] = append(out[d], fmt.Sprintf("oov%d", k))
				continue
			}
			out[d] = append(out[d], store.Word(k))
		}
	}
	return out
}

func expMechVariants(t testing.TB, store *embeddings.Store) map[string]*ExpMech {
	lm, err := ngram.TrainBidirectional(store.Words(), expMechZipfDocs(store, 9, 40, 200), ngram.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	variants := map[string]func(*ExpMechOptions){
		"embedding":         func(*ExpMechOptions) {},
		"embedding-nocache": func(o *ExpMechOptions) { o.CacheRows = 0 },
		"context":           func(o *ExpMechOptions) { o.Rating, o.Context = ExpMechRatingContext, lm },
		"context-only":      func(o *ExpMechOptions) { o.Rating, o.Context, o.ContextWeight = ExpMechRatingContext, lm, 1 },
		"two-stage":         func(o *ExpMechOptions) { o.Candidates, o.CandidateEpsilon = 5, 4 },
		"random":            func(o *ExpMechOptions) { o.Rating = ExpMechRatingRandom },
		"keep":              func(o *ExpMechOptions) { o.OOV = ExpMechOOVKeep },
	}
	out := map[string]*ExpMech{}
	for name, modify := range variants {
		opts := DefaultExpMechOptions()
		opts.CacheRows = 16 // smaller than a document's distinct words: eviction happens
		modify(&opts)
		m, err := NewExpMech(store, 12, opts)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = m
	}
	return out
}

// Golden outputs for a fixed seed of every variant on a 150-token document (three blocks of
// the row computation); `-update` rewrites testdata/expmech_golden.txt. The cache must not
// change the output: "embedding-nocache" equals "embedding".
func TestExpMechGolden(t *testing.T) {
	store := expMechGoldenStore(t, 200, 8)
	doc := expMechZipfDocs(store, 21, 1, 150)[0]
	doc[5], doc[70] = "outsider", "stranger" // out of vocabulary: "keep" keeps them
	variants := expMechVariants(t, store)
	names := make([]string, 0, len(variants))
	for name := range variants {
		names = append(names, name)
	}
	slices.Sort(names)
	var b strings.Builder
	outputs := map[string]string{}
	for _, name := range names {
		out := strings.Join(variants[name].Apply(rngs.New(42, "expmech/golden"), doc), " ")
		outputs[name] = out
		fmt.Fprintf(&b, "%s: %s\n", name, out)
	}
	if outputs["embedding"] != outputs["embedding-nocache"] {
		t.Fatalf("the row cache changed the output")
	}
	if want := golden(t, "expmech_golden.txt", []byte(b.String())); b.String() != string(want) {
		t.Fatalf("output differs from testdata/expmech_golden.txt (run with -update if the change is intended):\n%s", b.String())
	}
}

// One mechanism shared by goroutines (with a small, contended cache) gives every document the
// output it gets alone.
func TestExpMechConcurrentUseMatchesSequential(t *testing.T) {
	store := expMechGoldenStore(t, 200, 8)
	docs := expMechZipfDocs(store, 33, 8, 100)
	for name, m := range expMechVariants(t, store) {
		want := make([][]string, len(docs))
		for d, doc := range docs {
			want[d] = m.Apply(rngs.New(7, fmt.Sprint("doc=", d)), doc)
		}
		got := make([][]string, len(docs))
		var wg sync.WaitGroup
		for d, doc := range docs {
			wg.Go(func() { got[d] = m.Apply(rngs.New(7, fmt.Sprint("doc=", d)), doc) })
		}
		wg.Wait()
		for d := range docs {
			if !slices.Equal(got[d], want[d]) {
				t.Fatalf("%s: document %d differs under concurrency", name, d)
			}
		}
	}
}

// LogProbabilities is the distribution the sampler draws from: for the embedding rating it
// equals the logarithm of the cached cumulative row's increments, and for the context rating
// a one-word document's 30,000 draws fit it (χ², 6 d.o.f., false-failure rate 0.001).
func TestExpMechLogProbabilities(t *testing.T) {
	store := expMechFanStore(t, 6)
	const eps = 4.0
	m, err := NewExpMech(store, eps, DefaultExpMechOptions())
	if err != nil {
		t.Fatal(err)
	}
	lp, ok := m.LogProbabilities("w2")
	if !ok {
		t.Fatal("embedding rating: no exact distribution")
	}
	// Against float64 cosines (the mechanism computes them in float32) and, to rounding,
	// against the row the sampler draws from.
	want := expMechExact(expMechEmbeddingRatings(store, 2), eps)
	cum := m.rows([]string{"w2"})[2]
	for v := range lp {
		inc := cum[v]
		if v > 0 {
			inc -= cum[v-1]
		}
		if math.Abs(math.Exp(lp[v])-want[v]) > 1e-6 || math.Abs(math.Exp(lp[v])-inc) > 1e-12 {
			t.Errorf("P(%d) = %v, want %v (sampler row %v)", v, math.Exp(lp[v]), want[v], inc)
		}
	}
	opts := DefaultExpMechOptions()
	opts.Rating, opts.Context, opts.ContextWeight = ExpMechRatingContext, expMechContextModel(t, store), 0.7
	ctx, err := NewExpMech(store, eps, opts)
	if err != nil {
		t.Fatal(err)
	}
	lp, ok = ctx.LogProbabilities("w3")
	if !ok || ctx.IndependentPositions() {
		t.Fatal("context rating: no exact one-word distribution, or positions called independent")
	}
	p := make([]float64, len(lp))
	for v := range lp {
		p[v] = math.Exp(lp[v])
	}
	counts := make([]int, store.Len())
	rng := rngs.New(2, "expmech/logprob/context")
	for range 30000 {
		expMechCount(store, ctx.Apply(rng, []string{"w3"}), counts)
	}
	crit := chi2Critical001[len(counts)-1]
	if chi2 := expMechChiSquare(counts, p); chi2 > crit {
		t.Errorf("χ² = %.2f > %.2f: counts %v, want %v", chi2, crit, counts, p)
	}
	opts.Candidates, opts.CandidateEpsilon = 2, 1
	two, err := NewExpMech(store, eps, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := two.LogProbabilities("w3"); ok {
		t.Error("two-stage variant claims an exact distribution")
	}
}
