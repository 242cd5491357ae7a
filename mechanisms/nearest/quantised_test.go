package nearest

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"dptext/embeddings"
	"dptext/internal/fixtures"
)

// int8Bounds runs the Int8 kernel for query z over the whole vocabulary of d and returns every
// row's lower and upper bound. The query goes in the first slot of a pass of int8WideTiles
// tiles, so that the AVX-512 kernel runs when it is selected.
func int8Bounds(d *Decoder, z []float64) (lower, upper []float32) {
	const wq = int8WideTiles * int8TileQueries
	q := d.q
	tileBytes := q.groups * 4 * int8TileQueries
	tiles := make([]int8, int8WideTiles*tileBytes)
	consts := make([]float32, wq*queryConsts*8)
	q.prepareQuery(z, tiles, 0, consts)
	n := d.store.Len()
	out := make([]float32, wq*d.npanels*panelRows)
	stride := d.npanels * panelRows
	mins := make([]float32, wq*panelRows)
	thr := make([]float32, wq)
	masks := make([]uint16, wq*blockPanels)
	for p0 := 0; p0 < d.npanels; p0 += blockPanels { // at most blockPanels panels per call
		np := min(blockPanels, d.npanels-p0)
		tileScoresInt8Wide(tiles, tileBytes, int8WideTiles, wq, q.panels[p0*q.groups*groupBytes:], q.info[p0*infoFields*panelRows:],
			consts, q.groups, np, out[p0*panelRows:], stride, mins, thr, masks)
	}
	lower = out[:n]
	// The kernel keeps only lane minima of U: each row's own U comes from a one-row panel (the
	// other rows padding, whose bounds are +Inf), whose L must equal the full scan's.
	upper = make([]float32, n)
	for w := range n {
		one := singleRow(q, w)
		o := make([]float32, wq*panelRows)
		m := make([]float32, wq*panelRows)
		for i := range m {
			m[i] = float32(math.Inf(1))
		}
		tileScoresInt8Wide(tiles, tileBytes, int8WideTiles, wq, one.panels, one.info, consts, q.groups, 1, o, panelRows, m, thr, masks)
		if o[0] != lower[w] {
			panic(fmt.Sprintf("row %d: lower bound %g alone, %g in the full scan", w, o[0], lower[w]))
		}
		upper[w] = m[0] // lane 0 holds row 0
	}
	return lower, upper
}

// singleRow returns a one-panel copy of row w of q, the other rows of the panel padding.
func singleRow(q *quantised, w int) *quantised {
	p, j := w/panelRows, w%panelRows
	s := &quantised{dim: q.dim, groups: q.groups,
		panels: make([]uint8, q.groups*groupBytes), info: make([]float32, infoFields*panelRows)}
	for g := range q.groups {
		copy(s.panels[g*groupBytes:g*groupBytes+4], q.panels[p*q.groups*groupBytes+g*groupBytes+(j/8)*32+(j%8)*4:])
	}
	for i := range panelRows {
		s.info[i] = float32(math.Inf(1))
	}
	for f := range infoFields {
		s.info[f*panelRows] = q.info[p*infoFields*panelRows+f*panelRows+j]
	}
	return s
}

// exactScore is f(v) = ‖v‖² − 2 z·v in exact arithmetic.
func exactScore(z []float64, v []float32) *big.Float {
	const prec = 2048
	f := new(big.Float).SetPrec(prec)
	for t, x := range v {
		vx := new(big.Float).SetPrec(prec).SetFloat64(float64(x))
		zt := new(big.Float).SetPrec(prec).SetFloat64(z[t])
		sq := new(big.Float).SetPrec(prec).Mul(vx, vx)
		zv := new(big.Float).SetPrec(prec).Mul(zt, vx)
		f.Add(f, sq)
		f.Sub(f, zv.Add(zv, zv))
	}
	return f
}

// adversarialStore holds rows that stress the quantisation bound: one huge coordinate among
// tiny ones (a coarse step that rounds everything else to the minimum), constant and zero rows,
// alternating extremes, values on the midpoints of the quantisation grid, and tiny values.
func adversarialStore(tb testing.TB, rng *rand.Rand, dim int) *embeddings.Store {
	var vecs []float32
	add := func(f func(t int) float64) {
		for t := range dim {
			vecs = append(vecs, float32(f(t)))
		}
	}
	for range 8 {
		k := rng.IntN(dim)
		big := math.Ldexp(1, 4+rng.IntN(10)) * float64(1-2*rng.IntN(2))
		add(func(t int) float64 {
			if t == k {
				return big
			}
			return rng.NormFloat64() * 1e-3
		})
		c := rng.NormFloat64() * 5
		add(func(int) float64 { return c })
		add(func(int) float64 { return 0 })
		add(func(t int) float64 { return float64(1-2*(t%2)) * 300 })
		add(func(t int) float64 { return -1 + (float64(rng.IntN(255))+0.5)*2/255 }) // near midpoints of the grid of [−1, 1]
		add(func(int) float64 { return rng.NormFloat64() * 1e-30 })
		add(func(int) float64 { return rng.NormFloat64() * 0.4 })
	}
	return fixtures.Store(tb, vecs, dim)
}

// adversarialQueries are queries with one huge coordinate, all-zero queries, copies of rows and
// the plain noisy kind.
func adversarialQueries(rng *rand.Rand, store *embeddings.Store, m int) []float64 {
	dim := store.Dim()
	q := make([]float64, 0, m*dim)
	for i := range m {
		v := store.Vector(rng.IntN(store.Len()))
		for t := range dim {
			var x float64
			switch i % 4 {
			case 0:
				x = rng.NormFloat64() * 1e-2
				if t == i%dim {
					x = 1e4
				}
			case 1:
				x = 0
			case 2:
				x = float64(v[t])
			default:
				x = float64(v[t]) + rng.NormFloat64()*2
			}
			q = append(q, x)
		}
	}
	return q
}

// TestInt8BoundHoldsAgainstExactScores checks L_v ≤ f(v) ≤ U_v, f computed exactly with
// math/big, for every row and query of random and adversarial data, with both kernels. It fails
// if any term of the bound (quantisation of the rows, of the query, float32 rounding) is too
// small for the data.
func TestInt8BoundHoldsAgainstExactScores(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cases := []struct {
		name    string
		store   *embeddings.Store
		queries []float64
	}{}
	// 100 and 1017 have an odd number of groups of 4 (25, 255): where the AVX-512 kernel runs,
	// their queries take 127 and 64 levels (queryLevels).
	for _, dim := range []int{1, 3, 50, 100, 101, 1017} {
		s := fixtures.RandomStore(t, rng, 40, dim, 0.4)
		cases = append(cases, struct {
			name    string
			store   *embeddings.Store
			queries []float64
		}{fmt.Sprintf("random dim %d", dim), s, queriesNear(rng, s, 12, 1)})
		a := adversarialStore(t, rng, dim)
		cases = append(cases, struct {
			name    string
			store   *embeddings.Store
			queries []float64
		}{fmt.Sprintf("adversarial dim %d", dim), a, adversarialQueries(rng, a, 12)})
	}
	forEachKernel(t, func(t *testing.T, kernel string) {
		for _, c := range cases {
			d, err := New(c.store, Options{Method: Int8})
			if err != nil {
				t.Fatal(err)
			}
			dim := c.store.Dim()
			worst := 0.0 // largest |f̂ − f| / b seen: must stay ≤ 1
			for i := range len(c.queries) / dim {
				z := c.queries[i*dim : (i+1)*dim]
				lower, upper := int8Bounds(d, z)
				for w := range c.store.Len() {
					f := exactScore(z, c.store.Vector(w))
					if f.Cmp(big.NewFloat(float64(lower[w]))) < 0 || f.Cmp(big.NewFloat(float64(upper[w]))) > 0 {
						t.Fatalf("%s kernel, %s, query %d, row %d: exact score %s outside [%g, %g]",
							kernel, c.name, i, w, f.Text('g', 10), lower[w], upper[w])
					}
					ff, _ := f.Float64()
					mid, half := (float64(lower[w])+float64(upper[w]))/2, (float64(upper[w])-float64(lower[w]))/2
					if half > 0 {
						worst = max(worst, math.Abs(ff-mid)/half)
					}
				}
			}
			t.Logf("%s kernel, %s: largest |error| / bound = %.3f", kernel, c.name, worst)
		}
	})
}

// queryLevels must keep the integer sums exact in every kernel that may score the layout: 31
// where the AVX2 kernels may run (an even number of groups on an AVX2 CPU: their int16 pair
// sums of 2·2·255·Q must stay below 2¹⁵), else at most 127 (a signed byte) with n·255·Q < 2²⁴
// (I_v exact in float32) — and no fewer levels than that allows. Checked for every dimension
// up to MaxInt8Dim and both parities of the group count, as if on each CPU. Mutants: 127
// without the cap for long rows; 127 where the AVX2 kernels may run.
func TestQueryLevelsKeepTheSumsExact(t *testing.T) {
	saved := useAVX2
	defer func() { useAVX2 = saved }()
	for _, avx2 := range []bool{false, true} {
		useAVX2 = avx2
		for n := 1; n <= MaxInt8Dim; n++ {
			for _, groups := range []int{(n + 3) / 4, (n + 7) / 8 * 2} {
				q := queryLevels(n, groups)
				avx2Runs := avx2 && groups%2 == 0
				switch {
				case q < 1 || q > 127 || n*255*q >= 1<<24:
					t.Fatalf("n = %d, %d groups: Q = %d: want 1 ≤ Q ≤ 127 and n·255·Q < 2²⁴", n, groups, q)
				case avx2Runs && 2*2*255*q >= 1<<15:
					t.Fatalf("n = %d, %d groups, AVX2: Q = %d saturates the int16 pair sums", n, groups, q)
				case !avx2Runs && q < 127 && n*255*(q+1) < 1<<24:
					t.Fatalf("n = %d, %d groups: Q = %d where %d keeps the sums exact", n, groups, q, q+1)
				}
			}
		}
	}
}

// TestExactTiesGoToTheLowestRow builds queries at exactly equal float64 distance from two or
// more rows (mirror images z ± δ·e_k with δ a power of two, and duplicated rows), with the tied
// rows in both orders and at random places in the vocabulary, and checks every method returns the
// lowest tied row as the naive scan does.
func TestExactTiesGoToTheLowestRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const dim = 24
	base := fixtures.RandomStore(t, rng, 3000, dim, 0.4)
	vecs := append([]float32(nil), base.Matrix()...)
	var queries []float64
	var want []int
	perm := rng.Perm(base.Len()) // distinct rows for every tie
	for i := range 40 {
		z := make([]float64, dim)
		for t := range z {
			z[t] = math.Round(rng.NormFloat64()*64) / 256 // multiples of 2⁻⁸, so z ± δ is exact in float32
		}
		lo, hi := min(perm[2*i], perm[2*i+1]), max(perm[2*i], perm[2*i+1])
		delta := math.Ldexp(1, -3-rng.IntN(5))
		k := rng.IntN(dim)
		for t := range dim {
			vecs[lo*dim+t], vecs[hi*dim+t] = float32(z[t]), float32(z[t])
		}
		if i%2 == 0 { // mirror images: the lower row on the + side or the − side
			sign := float64(1 - 2*rng.IntN(2))
			vecs[lo*dim+k] = float32(z[k] + sign*delta)
			vecs[hi*dim+k] = float32(z[k] - sign*delta)
		} else { // duplicates at distance δ² from z
			vecs[lo*dim+k] = float32(z[k] + delta)
			vecs[hi*dim+k] = float32(z[k] + delta)
		}
		queries = append(queries, z...)
		want = append(want, lo)
	}
	store := fixtures.Store(t, vecs, dim)
	forEachKernel(t, func(t *testing.T, kernel string) {
		checkAgainstNaive(t, kernel+" kernel, exact ties", store, queries)
	})
	for i := range want {
		if got := naiveDecode(store, queries[i*dim:(i+1)*dim]); got != want[i] {
			t.Errorf("query %d: naive decoding gives row %d, the constructed tie's lower row is %d (the construction is wrong)", i, got, want[i])
		}
	}
}

// FuzzDecodersMatchNaive builds a small vocabulary and queries from the fuzzer's bytes (each
// value a signed byte times a power of two chosen by the next byte, so rows mix tiny and huge
// coordinates, duplicates and ties) and checks both methods and every kernel against the naive
// float64 scan.
func FuzzDecodersMatchNaive(f *testing.F) {
	f.Add([]byte{3, 5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18})
	f.Add([]byte{1, 2, 0x80, 0x7f, 0x80, 0x7f, 0, 0, 0, 0xff, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 4 {
			return
		}
		dim, rows := 1+int(data[0])%9, 1+int(data[1])%40
		next := 2
		value := func() float64 {
			if next+1 >= len(data) {
				next = 2
			}
			x := math.Ldexp(float64(int8(data[next])), int(data[next+1]%24)-12)
			next += 2
			return x
		}
		vecs := make([]float32, rows*dim)
		for i := range vecs {
			vecs[i] = float32(value())
		}
		store := fixtures.Store(t, vecs, dim)
		queries := make([]float64, 25*dim) // 7 tiles: full AVX-512 passes at 1, 2 and 3 workers
		for i := range queries {
			queries[i] = value()
		}
		forEachKernel(t, func(t *testing.T, kernel string) {
			checkAgainstNaive(t, kernel+" kernel, fuzzed", store, queries)
		})
	})
}
