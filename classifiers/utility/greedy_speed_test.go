package utility

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"dptext/internal/fixtures"
	"dptext/internal/linalg"
	"dptext/internal/rngs"
)

// plainGreedyF1 is GreedyF1.Measure written plainly: one dot product per pair of distinct
// words, in dimension order.
func plainGreedyF1(g *GreedyF1, original, private []string) float64 {
	if len(original) == 0 || len(private) == 0 {
		return math.NaN()
	}
	a, b := g.distinct(original), g.distinct(private)
	bestA, bestB := make([]float64, len(a.words)), make([]float64, len(b.words))
	for i := range bestA {
		bestA[i] = math.Inf(-1)
	}
	for j := range bestB {
		bestB[j] = math.Inf(-1)
	}
	dim := g.store.Dim()
	for i, wa := range a.words {
		for j, wb := range b.words {
			var s float64
			switch {
			case wa == wb:
				s = 1
			case a.rows[i] < 0 || b.rows[j] < 0:
				s = 0
			default:
				va := g.unit[a.rows[i]*dim : (a.rows[i]+1)*dim]
				vb := g.unit[b.rows[j]*dim : (b.rows[j]+1)*dim]
				for k, x := range va {
					s += x * vb[k]
				}
			}
			bestA[i] = math.Max(bestA[i], s)
			bestB[j] = math.Max(bestB[j], s)
		}
	}
	r, p := g.weighted(a, bestA), g.weighted(b, bestB)
	if math.IsNaN(r) || math.IsNaN(p) {
		return math.NaN()
	}
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// greedyDocs are n pairs of documents of about words words over the store's words and a few
// words without a vector, with repeats.
func greedyDocs(rng *rand.Rand, vocab []string, n, words int) [][2][]string {
	draw := func() []string {
		doc := make([]string, 1+rng.IntN(words))
		for i := range doc {
			if rng.IntN(10) == 0 {
				doc[i] = fmt.Sprintf("unknown%d", rng.IntN(5))
			} else {
				doc[i] = vocab[rng.IntN(len(vocab))]
			}
		}
		return doc
	}
	out := make([][2][]string, n)
	for i := range out {
		out[i] = [2][]string{draw(), draw()}
	}
	return out
}

// Measure gives the plain loop's value bit for bit (==, or both NaN) on 300 pairs of random
// documents with repeated words and words without vectors, of 1 to 60 words (so every
// remainder of the sixteen-row groups), with and without centring and idf, with the assembly
// kernel and without it. Mutant: the kernel adding one row's products into another's
// accumulator — the test fails.
func TestGreedySimilaritiesEqualThePlainLoop(t *testing.T) {
	vocab := fixtures.NumberedWords("w%03d", 300)
	store := fixtures.NormalStore(t, rngs.New(5, "greedy/store"), vocab, 37, 1)
	rng := rngs.New(5, "greedy/docs")
	pairs := greedyDocs(rng, vocab, 300, 60)
	var reference [][]string
	for _, p := range pairs[:50] {
		reference = append(reference, p[0])
	}
	for _, assembly := range []bool{true, false} {
		saved := linalg.SetAssembly(assembly)
		for _, o := range []GreedyF1Options{{}, DefaultGreedyF1Options()} {
			g, err := NewGreedyF1(store, reference, o)
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range pairs {
				got, want := g.Measure(p[0], p[1]), plainGreedyF1(g, p[0], p[1])
				if got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
					linalg.SetAssembly(saved)
					t.Fatalf("assembly %v, %+v, pair %d: Measure %v, plain loop %v", assembly, o, i, got, want)
				}
			}
		}
		linalg.SetAssembly(saved)
	}
}

// Measure keeps each original's bag and Gram matrix and takes the products of a release's words
// that are also the original's from it: every value must still be the plain loop's bit for
// bit, with each original measured again and again, in random order and from four goroutines
// at once, against releases that keep 0 %, 70 % and 100 % of its words (the others replaced by
// other vocabulary words or words without a vector), and against itself. Mutant: a kept word's
// products read from the next word's column of the Gram matrix → the test fails.
func TestGreedyReusesOriginalsExactly(t *testing.T) {
	vocab := fixtures.NumberedWords("w%03d", 400)
	store := fixtures.NormalStore(t, rngs.New(6, "greedy/store"), vocab, 37, 1)
	rng := rngs.New(6, "greedy/reuse")
	pairs := greedyDocs(rng, vocab, 40, 80)
	g, err := NewGreedyF1(store, nil, DefaultGreedyF1Options())
	if err != nil {
		t.Fatal(err)
	}
	type job struct{ original, private []string }
	var jobs []job
	for _, p := range pairs {
		for _, keep := range []float64{0, 0.7, 1} {
			release := make([]string, len(p[0]))
			for i, w := range p[0] {
				switch {
				case rng.Float64() < keep:
					release[i] = w
				case rng.IntN(8) == 0:
					release[i] = "nowhere"
				default:
					release[i] = vocab[rng.IntN(len(vocab))]
				}
			}
			jobs = append(jobs, job{p[0], release}, job{p[0], p[1]})
		}
	}
	rng.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
	errs := make(chan string, len(jobs))
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for k := w; k < len(jobs); k += 4 {
				got, want := g.Measure(jobs[k].original, jobs[k].private), plainGreedyF1(g, jobs[k].original, jobs[k].private)
				if got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
					errs <- fmt.Sprintf("job %d: Measure %v, plain loop %v", k, got, want)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	if len(g.originals) == 0 {
		t.Fatal("no original kept: the test does not reach the reuse")
	}
}

// GreedyF1 keeps at most maxKept products: past the bound an original is measured afresh each
// time (the plain loop's values still), and what is kept stays within it. Mutant: the bound
// not checked → every original kept.
func TestGreedyKeepsAtMostItsBound(t *testing.T) {
	vocab := fixtures.NumberedWords("w%03d", 200)
	store := fixtures.NormalStore(t, rngs.New(7, "greedy/store"), vocab, 16, 1)
	pairs := greedyDocs(rngs.New(7, "greedy/bound"), vocab, 12, 40)
	g, err := NewGreedyF1(store, nil, DefaultGreedyF1Options())
	if err != nil {
		t.Fatal(err)
	}
	first := len(g.distinct(pairs[0][0]).words)
	g.maxKept = first * first
	for range 2 {
		for i, p := range pairs {
			if got, want := g.Measure(p[0], p[1]), plainGreedyF1(g, p[0], p[1]); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("pair %d: Measure %v, plain loop %v", i, got, want)
			}
		}
	}
	kept := 0
	for _, bucket := range g.originals {
		kept += len(bucket)
	}
	if kept != 1 || g.kept > g.maxKept {
		t.Errorf("%d originals kept (%d products, bound %d), want only the first", kept, g.kept, g.maxKept)
	}
}

// Measure against the plain loop on 420 pairs of 209-word documents over a 20,000 × 100
// vocabulary (the size of configs/mechanisms.toml's cells).
func BenchmarkGreedyF1(b *testing.B) {
	vocab := fixtures.NumberedWords("w%05d", 20000)
	store := fixtures.NormalStore(b, rngs.New(5, "greedy/store"), vocab, 100, 1)
	pairs := greedyDocs(rngs.New(5, "greedy/docs"), vocab[:3000], 420, 2*209)
	g, err := NewGreedyF1(store, nil, DefaultGreedyF1Options())
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		measure func(a, b []string) float64
	}{{"blocked", g.Measure}, {"plain", func(a, b []string) float64 { return plainGreedyF1(g, a, b) }}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				for _, p := range pairs {
					c.measure(p[0], p[1])
				}
			}
		})
	}
}
