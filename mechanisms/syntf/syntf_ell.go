package syntf

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"text/tabwriter"

	"dptext/embeddings"
	"dptext/internal/atomicfile"
	"dptext/internal/filehash"
	"dptext/internal/linalg"
)

// SynTF's privacy accounting (Weggenmann and Kerschbaum 2018, Sect. 3.4). Every pair of
// documents is adjacent; each of the n output words costs at most
//
//	ε            (Theorem 3.3: exponential mechanism with sensitivity Δ),
//	ε + ln η     (Theorem 3.4 / Cor. 3.5), where
//	             η(ε, L) = (e^{−ε/2} + L − 1) / (e^{ε/2} + L − 1) < 1 for a vocabulary of size L.
//	             Theorem 3.4 bounds the loss by ε̄ + ln η(ε̄, L) with ε̄ = ε·Δ̄/Δ, Δ̄ the widest
//	             spread of one source word's ratings. Here Δ̄ ≤ Δ (ρ lies in an interval of
//	             width Δ), and ε̄ + ln η(ε̄, L) is non-decreasing in ε̄ (its derivative is
//	             1 − ½·a/(a+L−1) − ½·b/(b+L−1) ≥ 0 with a = e^{−ε̄/2}, b = e^{ε̄/2}), so
//	             ε + ln η(ε, L) bounds it,
//	ℓ            (Sect. 3.4.2, eq. (1): the exact loss of one exponential-mechanism draw),
//	             ℓ = max_w max_{v,v'} ln(P(w|v) / P(w|v')),
//
// and sequential composition over the n draws multiplies each by n. Always ℓ ≤ ε + ln η ≤ ε:
// the first is the exact maximum the second bounds, and ln η < 0.

// SynTFEta is η(ε, L) of Theorem 3.4: (e^{−ε/2} + L − 1) / (e^{ε/2} + L − 1). It returns ln η,
// computed without overflow for large ε.
func SynTFEta(epsilon float64, vocabSize int) (lnEta float64) {
	// ln(e^{-ε/2} + L − 1) − ln(e^{ε/2} + L − 1), both terms as log-sum-exp.
	m := math.Log(float64(vocabSize - 1))
	return synTFLogAddExp(-epsilon/2, m) - synTFLogAddExp(epsilon/2, m)
}

func synTFLogAddExp(a, b float64) float64 {
	if math.IsInf(b, -1) {
		return a
	}
	hi, lo := max(a, b), min(a, b)
	return hi + math.Log1p(math.Exp(lo-hi))
}

// SynTFLoss is the per-output-word privacy loss of SynTF under the three bounds.
type SynTFLoss struct {
	Epsilon      float64 // ε (Theorem 3.3)
	EpsilonLnEta float64 // ε + ln η(ε, |V|) (Cor. 3.5)
	// Ell is the exact loss ℓ (Sect. 3.4.2); NaN when it was not computed.
	Ell float64
}

// Bounds returns the document-level bounds for n output words under the names used in
// Guarantee.Bounds: "eps_n", "eps_ln_eta_n" and, when ℓ is known, "ell_n".
func (l SynTFLoss) Bounds(n int) map[string]float64 {
	b := map[string]float64{
		"eps_n":        l.Epsilon * float64(n),
		"eps_ln_eta_n": l.EpsilonLnEta * float64(n),
	}
	if !math.IsNaN(l.Ell) {
		b["ell_n"] = l.Ell * float64(n)
	}
	return b
}

// Tightest returns the smallest of the known per-word bounds.
func (l SynTFLoss) Tightest() float64 {
	t := min(l.Epsilon, l.EpsilonLnEta)
	if !math.IsNaN(l.Ell) {
		t = min(t, l.Ell)
	}
	return t
}

// EllResult is the exact privacy loss ℓ of SynTF's exponential mechanism and where it is
// attained: ℓ = ln P(W|VMax) − ln P(W|VMin), rows in the store's order.
type EllResult struct {
	Ell     float64 `json:"ell"`
	W       string  `json:"w"`
	VMax    string  `json:"v_max"`
	VMin    string  `json:"v_min"`
	WRow    int     `json:"-"`
	VMaxRow int     `json:"-"`
	VMinRow int     `json:"-"`
}

// ComputeEll computes ℓ = max_w max_{v,v'} ln(P(w|v)/P(w|v')) for SynTF over the whole vocabulary
// of store at privacy parameter epsilon, with the rating options of opts (BigramFactor, Clip,
// EllBlock, EllCacheDir). It is ComputeEllGrid for one ε.
func ComputeEll(store *embeddings.Store, epsilon float64, opts SynTFOptions, workers int) (EllResult, error) {
	res, err := ComputeEllGrid(store, []float64{epsilon}, opts, workers)
	if err != nil {
		return EllResult{}, err
	}
	return res[0], nil
}

// ComputeEllGrid computes ℓ for every ε of epsilons in one pass over the ratings (which do not
// depend on ε). Since ln P(w|v) = ε·ρ(v,w)/(2Δ) − ln Z_v, ℓ needs every row normaliser Z_v:
// the vocabulary is processed in blocks of EllBlock source words, each block's ratings against
// all words computed by one matrix product (linalg.MulABt) plus bigram overlaps, its normalisers
// by a log-sum-exp per row, and per target word w the running maximum and minimum over v of
// ln P(w|v). Only workers × EllBlock × |V| ratings exist at once; workers ≤ 0 means GOMAXPROCS.
// Maxima and minima are exact, so the result does not depend on the number of workers. With
// EllCacheDir set, each ε's result is read from, or written to, a file there named by a hash
// of the vocabulary, the vectors, the rating parameters and ε; only missing ε are computed. A
// cache that cannot be written is reported on EllLog and otherwise ignored. An entry is used
// only when it is verified: its key and checksum match, and the loss at its three words,
// ln P(w|v_max) − ln P(w|v_min), recomputed from two rows of ratings, equals its ℓ; any other
// entry (damaged, edited, of other data) is reported on EllLog and recomputed. With
// EllRecompute no entry is read: every ℓ is computed and written afresh.
func ComputeEllGrid(store *embeddings.Store, epsilons []float64, opts SynTFOptions, workers int) ([]EllResult, error) {
	if err := opts.validateRating(); err != nil {
		return nil, err
	}
	for _, eps := range epsilons {
		if !(eps > 0) || math.IsInf(eps, 0) {
			return nil, fmt.Errorf("syntf: epsilon = %g: want a finite value > 0", eps)
		}
	}
	if store.Len() < 2 {
		return nil, fmt.Errorf("syntf: vocabulary of %d words: want at least 2", store.Len())
	}
	out := make([]EllResult, len(epsilons))
	paths, keys := make([]string, len(epsilons)), make([]string, len(epsilons))
	var missing []int
	var r *synTFRater
	rater := func() *synTFRater {
		if r == nil {
			r = newSynTFRater(store, opts.BigramFactor, opts.Clip)
		}
		return r
	}
	for i, eps := range epsilons {
		if opts.EllCacheDir != "" {
			keys[i] = synTFEllCacheKey(store, eps, opts)
			paths[i] = filepath.Join(opts.EllCacheDir, "syntf-ell-"+keys[i]+".json")
			if !opts.EllRecompute {
				res, problem := readSynTFEllCache(paths[i], keys[i], store)
				if problem == "" {
					problem = verifySynTFEll(rater(), synTFScale(rater(), eps), res)
				}
				if problem == "" {
					out[i] = res
					continue
				}
				if problem != synTFEllMissing && opts.EllLog != nil {
					fmt.Fprintf(opts.EllLog, "syntf: the cached ℓ %s is not used (%s); computing it again\n", paths[i], problem)
				}
			}
		}
		missing = append(missing, i)
	}
	if len(missing) == 0 {
		return out, nil
	}
	scales := make([]float64, len(missing))
	r = rater()
	for j, i := range missing {
		scales[j] = synTFScale(r, epsilons[i])
	}
	results := computeSynTFEll(opts.EllContext, r, scales, opts.EllBlock, workers)
	if opts.EllContext != nil && opts.EllContext.Err() != nil {
		return nil, fmt.Errorf("syntf: computing ℓ: %w", opts.EllContext.Err())
	}
	for j, res := range results {
		i := missing[j]
		res.W, res.VMax, res.VMin = store.Word(res.WRow), store.Word(res.VMaxRow), store.Word(res.VMinRow)
		out[i] = res
		if paths[i] != "" {
			// The cache is optional: a folder that cannot be written (read-only, full) costs
			// the computation next time, not this run.
			if err := writeSynTFEllCache(paths[i], keys[i], res); err != nil && opts.EllLog != nil {
				fmt.Fprintf(opts.EllLog, "syntf: could not write ℓ to the cache (%v); going on without caching it\n", err)
			}
		}
	}
	return out, nil
}

// synTFEllColumns holds, per target word w, the extremes over the source words seen so far of
// ln P(w|v), with the (lowest) source rows attaining them.
type synTFEllColumns struct {
	hi, lo       []float64
	hiRow, loRow []int32
}

func newSynTFEllColumns(n int) *synTFEllColumns {
	c := &synTFEllColumns{hi: make([]float64, n), lo: make([]float64, n), hiRow: make([]int32, n), loRow: make([]int32, n)}
	for i := range c.hi {
		c.hi[i], c.lo[i] = math.Inf(-1), math.Inf(1)
		c.hiRow[i], c.loRow[i] = math.MaxInt32, math.MaxInt32
	}
	return c
}

// update records the value x = ln P(w|v) of source row v; ties keep the lower row.
func (c *synTFEllColumns) update(w int, x float64, v int32) {
	if x > c.hi[w] || (x == c.hi[w] && v < c.hiRow[w]) {
		c.hi[w], c.hiRow[w] = x, v
	}
	if x < c.lo[w] || (x == c.lo[w] && v < c.loRow[w]) {
		c.lo[w], c.loRow[w] = x, v
	}
}

func (c *synTFEllColumns) merge(o *synTFEllColumns) {
	for w := range c.hi {
		if o.hiRow[w] == math.MaxInt32 {
			continue // o saw no source word
		}
		c.update(w, o.hi[w], o.hiRow[w])
		c.update(w, o.lo[w], o.loRow[w])
	}
}

// computeSynTFEll returns ℓ for each exponential-mechanism scale ε/(2Δ) of scales. When ctx
// (may be nil) is cancelled, the workers stop after their current block and the result is
// meaningless (the caller checks ctx).
func computeSynTFEll(ctx context.Context, r *synTFRater, scales []float64, block, workers int) []EllResult {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	n := r.size
	block = max(1, min(block, n))
	nBlocks := (n + block - 1) / block
	workers = max(1, min(workers, nBlocks))
	// cols[k][e]: worker k's column extremes at scale e.
	cols := make([][]*synTFEllColumns, workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for k := range workers {
		cols[k] = make([]*synTFEllColumns, len(scales))
		for e := range scales {
			cols[k][e] = newSynTFEllColumns(n)
		}
		wg.Add(1)
		go func(mine []*synTFEllColumns) {
			defer wg.Done()
			sc := r.newScratch(block)
			ratings := make([]float32, block*n)
			expArgs := make([]float64, n)
			src := make([]int, 0, block)
			for {
				b := int(next.Add(1) - 1)
				if b >= nBlocks || (ctx != nil && ctx.Err() != nil) {
					return
				}
				src = src[:0]
				for v := b * block; v < min((b+1)*block, n); v++ {
					src = append(src, v)
				}
				r.rows(ratings, src, sc)
				for i, v := range src {
					if ctx != nil && ctx.Err() != nil {
						return
					}
					row := ratings[i*n : (i+1)*n]
					for e, scale := range scales {
						c := mine[e]
						lnZ := synTFLogSumExp(row, scale, expArgs)
						for w, u := range row {
							c.update(w, scale*float64(u)-lnZ, int32(v))
						}
					}
				}
			}
		}(cols[k])
	}
	wg.Wait()
	out := make([]EllResult, len(scales))
	for e := range scales {
		c := cols[0][e]
		for _, other := range cols[1:] {
			c.merge(other[e])
		}
		res := EllResult{Ell: math.Inf(-1)}
		for w := range c.hi {
			if d := c.hi[w] - c.lo[w]; d > res.Ell {
				res.Ell, res.WRow, res.VMaxRow, res.VMinRow = d, w, int(c.hiRow[w]), int(c.loRow[w])
			}
		}
		out[e] = res
	}
	return out
}

// synTFScale is the exponential mechanism's scale ε/(2Δ) for the rater r: the one place both
// the sampler (NewSynTF) and ℓ (ComputeEllGrid) take it from, so that ℓ is the loss of the
// sampler that runs.
func synTFScale(r *synTFRater, epsilon float64) float64 { return epsilon / (2 * r.sensitivity()) }

// synTFLogSumExp returns ln Σ_w exp(scale·row[w]), bit for bit as summing math.Exp(scale·(row[w]
// − max row)) in order of w computes it: the terms whose argument is below expZeroBelow are zero
// and add nothing (a sum of non-negative terms plus +0 is unchanged), and the others are taken
// by linalg.ExpShifted (math.Exp's own operations, four at a time) and added in order. buf is
// scratch of len(row) values.
func synTFLogSumExp(row []float32, scale float64, buf []float64) float64 {
	m := float32(math.Inf(-1))
	for _, u := range row {
		m = max(m, u)
	}
	args := buf[:0]
	for _, u := range row {
		if x := scale * float64(u-m); !(x < expZeroBelow) {
			args = append(args, x)
		}
	}
	linalg.ExpShifted(args, args, 0, 1)
	sum := 0.0
	for _, e := range args {
		sum += e
	}
	return scale*float64(m) + math.Log(sum)
}

// expZeroBelow is an argument below which math.Exp is exactly +0: e^−746 is under half the
// smallest subnormal float64 (2^−1075 ≈ e^−745.13), so it rounds to zero
// (TestExpIsZeroBelowTheCut checks math.Exp there).
const expZeroBelow = -746.0

// ellCodePrints memoises ellCodePrint per ε and rating options.
var ellCodePrints sync.Map

// ellCodePrint hashes what this code computes on a fixed canary vocabulary (ellCanaryWords
// seeded random words and vectors) at ε with opts' rating — every rating, every row's
// normaliser, ℓ and its three rows: part of every cache key, so that code computing ℓ otherwise
// (a changed rating, normaliser or search that shows on the canary), with the key's version left
// as it was, reads no entry another code wrote.
func ellCodePrint(epsilon float64, opts SynTFOptions) string {
	key := fmt.Sprintf("%x\x00%x\x00%s", math.Float64bits(epsilon), math.Float64bits(opts.BigramFactor), opts.Clip)
	if v, ok := ellCodePrints.Load(key); ok {
		return v.(string)
	}
	rng := rand.New(rand.NewPCG(2018, 3))
	words := make([]string, ellCanaryWords)
	vectors := make([]float32, ellCanaryWords*ellCanaryDim)
	for i := range words {
		b := []byte{byte('a' + i%26), byte('a' + i/26), 'e', byte('a' + rng.IntN(26))}
		words[i] = string(b)
		for j := range ellCanaryDim {
			vectors[i*ellCanaryDim+j] = float32(rng.NormFloat64())
		}
	}
	store, err := embeddings.New(words, ellCanaryDim, vectors)
	if err != nil {
		panic("syntf: the ℓ canary: " + err.Error())
	}
	r := newSynTFRater(store, opts.BigramFactor, opts.Clip)
	scale := synTFScale(r, epsilon)
	// Every rating and every row's normaliser, then ℓ and its rows.
	h := sha256.New()
	src := make([]int, ellCanaryWords)
	for i := range src {
		src[i] = i
	}
	ratings, buf := make([]float32, ellCanaryWords*ellCanaryWords), make([]float64, ellCanaryWords)
	r.rows(ratings, src, r.newScratch(ellCanaryWords))
	for v := range ellCanaryWords {
		row := ratings[v*ellCanaryWords : (v+1)*ellCanaryWords]
		for _, x := range row {
			binary.Write(h, binary.LittleEndian, math.Float32bits(x))
		}
		binary.Write(h, binary.LittleEndian, math.Float64bits(synTFLogSumExp(row, scale, buf)))
	}
	res := computeSynTFEll(context.Background(), r, []float64{scale}, 8, 1)[0]
	fmt.Fprintf(h, "%x %d %d %d", math.Float64bits(res.Ell), res.WRow, res.VMaxRow, res.VMinRow)
	v := "code " + hex.EncodeToString(h.Sum(nil)) + "\x00"
	ellCodePrints.Store(key, v)
	return v
}

// The ℓ canary's size: small enough to cost microseconds, large enough for several blocks.
const ellCanaryWords, ellCanaryDim = 40, 6

// synTFEllCacheKey hashes everything ℓ depends on: the rating definition version, words, vectors,
// s, the clip setting and ε, and the code that computes it (ellCodePrint).
func synTFEllCacheKey(store *embeddings.Store, epsilon float64, opts SynTFOptions) string {
	h := sha256.New()
	fmt.Fprintf(h, "syntf-ell v1\x00%d\x00%d\x00%s\x00%x\x00%x\x00", store.Len(), store.Dim(), opts.Clip,
		math.Float64bits(opts.BigramFactor), math.Float64bits(epsilon))
	io.WriteString(h, ellCodePrint(epsilon, opts))
	for _, w := range store.Words() {
		h.Write([]byte(w))
		h.Write([]byte{0})
	}
	buf := make([]byte, 4*store.Dim())
	for i := range store.Len() {
		for j, x := range store.Vector(i) {
			binary.LittleEndian.PutUint32(buf[4*j:], math.Float32bits(x))
		}
		h.Write(buf)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// synTFEllFile is a cache entry of ℓ: the result, the key it was computed for (see
// synTFEllCacheKey) and a SHA-256 of both (synTFEllChecksum).
type synTFEllFile struct {
	EllResult
	Key    string `json:"key"`
	SHA256 string `json:"sha256"`
}

// synTFEllChecksum is the hex SHA-256 of an entry's key, ℓ's bits and its three words.
func synTFEllChecksum(key string, res EllResult) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "syntf-ell-entry v1\x00%s\x00%x\x00%s\x00%s\x00%s", key, math.Float64bits(res.Ell), res.W, res.VMax, res.VMin))
	return hex.EncodeToString(sum[:])
}

// synTFEllMissing is readSynTFEllCache's problem for an entry that does not exist: computed
// without a message.
const synTFEllMissing = "no entry"

// readSynTFEllCache reads the entry at path, checked against key (its checksum and its key)
// and store (its words); problem says why it cannot be used ("" when it can).
func readSynTFEllCache(path, key string, store *embeddings.Store) (res EllResult, problem string) {
	data, err := filehash.ReadRegular(path, filehash.MaxStateBytes, "a SynTF ℓ cache entry")
	if errors.Is(err, fs.ErrNotExist) {
		return EllResult{}, synTFEllMissing
	}
	if err != nil {
		return EllResult{}, err.Error()
	}
	var f synTFEllFile
	if err := json.Unmarshal(data, &f); err != nil {
		return EllResult{}, "not a cache entry: " + err.Error()
	}
	switch {
	case f.Key == "":
		return EllResult{}, "an entry without key and checksum (an older format)"
	case f.Key != key:
		return EllResult{}, "its key is not this vocabulary's, vectors', parameters' and ε's"
	case f.SHA256 != synTFEllChecksum(key, f.EllResult):
		return EllResult{}, "its checksum does not match its content: damaged or edited"
	}
	res = f.EllResult
	var rows [3]int
	for i, w := range [3]string{res.W, res.VMax, res.VMin} {
		row, ok := store.Lookup(w)
		if !ok {
			return EllResult{}, fmt.Sprintf("its word %q is not in the vocabulary", w)
		}
		rows[i] = row
	}
	res.WRow, res.VMaxRow, res.VMinRow = rows[0], rows[1], rows[2]
	return res, ""
}

// synTFEllTolerance is the relative difference allowed between a cached ℓ and its recomputed
// loss (the same float32 ratings in another block layout of the matrix product).
const synTFEllTolerance = 1e-9

// verifySynTFEll recomputes the loss at res's words, ln P(W|VMax) − ln P(W|VMin) at the
// exponential mechanism's scale, from the two source rows of ratings, and says why res cannot
// be used when it is not res.Ell ("" when it is). ℓ ≥ 0 always: the loss at the maximising
// and minimising source words of one output word.
func verifySynTFEll(r *synTFRater, scale float64, res EllResult) string {
	if math.IsNaN(res.Ell) || math.IsInf(res.Ell, 0) || res.Ell < 0 {
		return fmt.Sprintf("ℓ = %v: want a finite value ≥ 0", res.Ell)
	}
	n := r.size
	ratings := make([]float32, 2*n)
	r.rows(ratings, []int{res.VMaxRow, res.VMinRow}, r.newScratch(2))
	hi, lo := ratings[:n], ratings[n:]
	buf := make([]float64, len(hi))
	got := (scale*float64(hi[res.WRow]) - synTFLogSumExp(hi, scale, buf)) - (scale*float64(lo[res.WRow]) - synTFLogSumExp(lo, scale, buf))
	if math.Abs(got-res.Ell) > synTFEllTolerance*math.Max(1, math.Abs(got)) {
		return fmt.Sprintf("ℓ = %v, but the loss at its words w = %q, v_max = %q, v_min = %q recomputes to %v", res.Ell, res.W, res.VMax, res.VMin, got)
	}
	return ""
}

func writeSynTFEllCache(path, key string, res EllResult) error {
	data, err := json.MarshalIndent(synTFEllFile{EllResult: res, Key: key, SHA256: synTFEllChecksum(key, res)}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("syntf: ell_cache_dir: %w", err)
	}
	if err := atomicfile.WriteFile(path, append(data, '\n')); err != nil {
		return fmt.Errorf("syntf: ell_cache_dir: %w", err)
	}
	return nil
}

// SynTFLosses returns the per-word losses of SynTF at each ε of epsilons over the vocabulary of
// store (ℓ by ComputeEllGrid, so one pass over the ratings serves every ε), with the words
// attaining ℓ.
func SynTFLosses(store *embeddings.Store, epsilons []float64, opts SynTFOptions, workers int) ([]SynTFLoss, []EllResult, error) {
	ells, err := ComputeEllGrid(store, epsilons, opts, workers)
	if err != nil {
		return nil, nil, err
	}
	losses := make([]SynTFLoss, len(epsilons))
	for i, eps := range epsilons {
		losses[i] = SynTFLoss{Epsilon: eps, EpsilonLnEta: eps + SynTFEta(eps, store.Len()), Ell: ells[i].Ell}
	}
	return losses, ells, nil
}

// PrintSynTFPrivacy writes a table of SynTF's document-level privacy bounds for n output words
// at each ε of epsilons over the vocabulary of store: εn (Theorem 3.3), (ε + ln η)n (Cor. 3.5)
// and ℓn (Sect. 3.4.2), with ℓ/ε and the words attaining ℓ (ℓ = ln P(w|v_max) − ln P(w|v_min)).
func PrintSynTFPrivacy(out io.Writer, store *embeddings.Store, epsilons []float64, n int, opts SynTFOptions, workers int) error {
	if n <= 0 {
		return fmt.Errorf("syntf: n = %d: want > 0", n)
	}
	losses, ells, err := SynTFLosses(store, epsilons, opts, workers)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "eps\tn\t|V|\ts\tclip\teps_n\teps_ln_eta_n\tell_n\tell/eps\tw\tv_max\tv_min\t\n")
	for i, l := range losses {
		b := l.Bounds(n)
		fmt.Fprintf(tw, "%g\t%d\t%d\t%g\t%s\t%.4f\t%.4f\t%.4f\t%.4f\t%s\t%s\t%s\t\n", l.Epsilon, n, store.Len(),
			opts.BigramFactor, opts.Clip, b["eps_n"], b["eps_ln_eta_n"], b["ell_n"], l.Ell/l.Epsilon,
			ells[i].W, ells[i].VMax, ells[i].VMin)
	}
	return tw.Flush()
}
