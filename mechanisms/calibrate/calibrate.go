// Package calibrate measures what the noise-then-decode mechanisms do to single words, per ε:
// the share unchanged, how far outputs move among the input's neighbours, and Feyisetan et
// al.'s N_w and S_w — the tables of `dptext calibrate`.
package calibrate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"dptext/embeddings"
	"dptext/internal/linalg"
	"dptext/internal/stats"
	"dptext/mechanisms/metricdp"
)

// RankBuckets are the buckets of EMD's histogram of the output word's rank among the
// input word's nearest neighbours (rank 0 is the word itself). The last bucket is open.
var RankBuckets = []struct {
	Label  string
	Lo, Hi int // inclusive rank range
}{
	{"0", 0, 0}, {"1", 1, 1}, {"2-5", 2, 5}, {"6-20", 6, 20}, {"21-100", 21, 100}, {">100", 101, math.MaxInt},
}

// calibrationNeighbours is the number of nearest neighbours ranked exactly (ranks 0..100).
const calibrationNeighbours = 101

// EMDStats describes what the EMD mechanism does to single words at one ε: the diagnostics
// of the "curse of dimensionality" of the mechanism (most outputs are either the word itself or
// a word unrelated to it).
type EMDStats struct {
	Epsilon float64
	// Words is the number of sampled words.
	Words int
	// UnchangedShare is the share of words decoded to themselves.
	UnchangedShare float64
	// RankShares[b] is the share of outputs whose rank among the input's neighbours falls in
	// RankBuckets[b].
	RankShares []float64
	// MeanCosine is the mean cosine similarity of the input and output vectors.
	MeanCosine float64
	// MeanNoiseRadius is the mean length of the noise drawn (expected: dimension / ε).
	MeanNoiseRadius float64
}

// EMD runs the EMD mechanism on sampleWords words drawn uniformly (with replacement)
// from the vocabulary (restricted to opts.TopK) and reports, for each ε, the share unchanged,
// the histogram of the output's neighbour rank and the mean linalg.Cosine(input, output). The same
// sample is used at every ε. Neighbour ranks order the vocabulary by Euclidean distance from the
// input word (ties by row); they are exact up to float32 rounding of the preselection of the 128
// nearest words.
func EMD(store *embeddings.Store, eps []float64, sampleWords int, rng *rand.Rand, opts metricdp.EMDOptions) ([]EMDStats, error) {
	if sampleWords <= 0 {
		return nil, fmt.Errorf("emd calibration: sample_words = %d: want > 0", sampleWords)
	}
	if len(eps) == 0 {
		return nil, fmt.Errorf("emd calibration: no epsilon given")
	}
	mechs := make([]*metricdp.EMD, len(eps))
	for i, e := range eps {
		m, err := metricdp.NewEMD(store, e, opts)
		if err != nil {
			return nil, err
		}
		mechs[i] = m
	}
	vocab := mechs[0].Store()
	sample := make([]int, sampleWords)
	for i := range sample {
		sample[i] = rng.IntN(vocab.Len())
	}
	neighbours := nearestNeighbours(vocab, sample, opts.Workers)
	dim := vocab.Dim()
	out := make([]EMDStats, len(eps))
	queries := make([]float64, sampleWords*dim)
	direction := make([]float64, dim)
	decoded := make([]int, sampleWords)
	for e, m := range mechs {
		radiusSum := 0.0
		for i, row := range sample {
			z := queries[i*dim : (i+1)*dim]
			if err := metricdp.LaplaceNoisyVector(rng, m.Epsilon(), vocab.Vector(row), direction, z); err != nil {
				return nil, fmt.Errorf("emd calibration at epsilon = %g: %w", m.Epsilon(), err)
			}
			radiusSum += linalg.Euclidean64(z, vocab.Vector(row))
		}
		m.Decode(queries, decoded)
		c := EMDStats{Epsilon: m.Epsilon(), Words: sampleWords, RankShares: make([]float64, len(RankBuckets)),
			MeanNoiseRadius: radiusSum / float64(sampleWords)}
		for i, row := range sample {
			if decoded[i] == row {
				c.UnchangedShare++
			}
			rank := slices.Index(neighbours[i], decoded[i])
			if rank < 0 {
				rank = calibrationNeighbours
			}
			for b, bucket := range RankBuckets {
				if rank >= bucket.Lo && rank <= bucket.Hi {
					c.RankShares[b]++
				}
			}
			c.MeanCosine += linalg.Cosine(vocab.Vector(row), vocab.Vector(decoded[i]))
		}
		c.UnchangedShare /= float64(sampleWords)
		c.MeanCosine /= float64(sampleWords)
		for b := range c.RankShares {
			c.RankShares[b] /= float64(sampleWords)
		}
		out[e] = c
	}
	return out, nil
}

// nearestNeighbours returns, for each sampled row, the calibrationNeighbours vocabulary rows
// nearest to it in order (float64 Euclidean distance, ties by row). Scores ‖v‖² − 2x·v come
// from float32 products; the 128 best are re-ranked in float64.
func nearestNeighbours(vocab *embeddings.Store, sample []int, workers int) [][]int {
	const preselect = 128
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	n, dim := vocab.Len(), vocab.Dim()
	sqNorms := make([]float64, n)
	for w := range n {
		for _, x := range vocab.Vector(w) {
			sqNorms[w] += float64(x) * float64(x)
		}
	}
	result := make([][]int, len(sample))
	const chunk = 16
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Go(func() {
			a := make([]float32, chunk*dim)
			scores := make([]float32, chunk*n)
			type scored struct {
				row  int
				dist float64
			}
			for start := range next {
				end := min(start+chunk, len(sample))
				for i := start; i < end; i++ {
					copy(a[(i-start)*dim:], vocab.Vector(sample[i]))
				}
				linalg.MulABt(scores, a, end-start, vocab.Matrix(), n, dim)
				for i := start; i < end; i++ {
					row := scores[(i-start)*n : (i-start+1)*n]
					best := make([]scored, 0, preselect+1)
					for w, s := range row {
						f := sqNorms[w] - 2*float64(s)
						if len(best) == preselect && f >= best[preselect-1].dist {
							continue
						}
						at, _ := slices.BinarySearchFunc(best, f, func(c scored, f float64) int {
							if c.dist <= f {
								return -1
							}
							return 1
						})
						best = slices.Insert(best, at, scored{w, f})
						if len(best) > preselect {
							best = best[:preselect]
						}
					}
					x := vocab.Vector(sample[i])
					for j := range best {
						best[j].dist = linalg.SquaredEuclidean(x, vocab.Vector(best[j].row))
					}
					slices.SortFunc(best, func(p, q scored) int {
						if p.dist != q.dist {
							if p.dist < q.dist {
								return -1
							}
							return 1
						}
						return p.row - q.row
					})
					rows := make([]int, min(calibrationNeighbours, len(best)))
					for j := range rows {
						rows[j] = best[j].row
					}
					result[i] = rows
				}
			}
		})
	}
	for start := 0; start < len(sample); start += chunk {
		next <- start
	}
	close(next)
	wg.Wait()
	return result
}

// CMPStats holds the calibration statistics of Feyisetan et al. (WSDM 2020, §4.2) for the
// Laplace-noise-then-nearest-word mechanisms (cmp, and emd word by word) at one ε: each sampled
// word w is privatised Draws times, N_w counts the draws that release w itself and S_w the
// distinct words released.
type CMPStats struct {
	Epsilon float64
	// Words is the number of sampled words, Draws the number of draws per word (K).
	Words, Draws int
	// MeanNw and MedianNw summarise N_w over the sampled words (0…Draws).
	MeanNw, MedianNw float64
	// MeanSw and MedianSw summarise S_w over the sampled words (1…Draws).
	MeanSw, MedianSw float64
}

// CMP privatises each of sampleWords words, drawn uniformly (with replacement) from
// the vocabulary (restricted to opts.TopK), draws times at every ε of eps and reports N_w and
// S_w (CMPStats). The same sample is used at every ε.
func CMP(store *embeddings.Store, eps []float64, sampleWords, draws int, rng *rand.Rand, opts metricdp.EMDOptions) ([]CMPStats, error) {
	if sampleWords <= 0 || draws <= 0 {
		return nil, fmt.Errorf("cmp calibration: words = %d, draws = %d: want both > 0", sampleWords, draws)
	}
	if len(eps) == 0 {
		return nil, fmt.Errorf("cmp calibration: no epsilon given")
	}
	out := make([]CMPStats, 0, len(eps))
	var sample []int
	for _, e := range eps {
		m, err := metricdp.NewEMD(store, e, opts)
		if err != nil {
			return nil, err
		}
		vocab := m.Store()
		if sample == nil {
			sample = make([]int, sampleWords)
			for i := range sample {
				sample[i] = rng.IntN(vocab.Len())
			}
		}
		dim := vocab.Dim()
		queries := make([]float64, sampleWords*dim)
		direction := make([]float64, dim)
		decoded := make([]int, sampleWords)
		unchanged := make([]float64, sampleWords)
		outputs := make([]map[int]bool, sampleWords)
		for i := range outputs {
			outputs[i] = map[int]bool{}
		}
		for range draws {
			for i, row := range sample {
				if err := metricdp.LaplaceNoisyVector(rng, m.Epsilon(), vocab.Vector(row), direction, queries[i*dim:(i+1)*dim]); err != nil {
					return nil, fmt.Errorf("cmp calibration at epsilon = %g: %w", m.Epsilon(), err)
				}
			}
			m.Decode(queries, decoded)
			for i, row := range sample {
				if decoded[i] == row {
					unchanged[i]++
				}
				outputs[i][decoded[i]] = true
			}
		}
		distinct := make([]float64, sampleWords)
		for i := range outputs {
			distinct[i] = float64(len(outputs[i]))
		}
		out = append(out, CMPStats{Epsilon: m.Epsilon(), Words: sampleWords, Draws: draws,
			MeanNw: stats.Mean(unchanged), MedianNw: stats.Median(unchanged), MeanSw: stats.Mean(distinct), MedianSw: stats.Median(distinct)})
	}
	return out, nil
}
