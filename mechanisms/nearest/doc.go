// Package nearest is the exact nearest-word search behind every noise-then-decode mechanism:
// given noisy vectors z, it returns for each the vocabulary row v minimising the float64 squared
// Euclidean distance Σ_t (z_t − v_t)² (summed in order t = 0…n−1), ties going to the lowest
// row — Vec⁻¹ of Fernandes et al. 2019, Algorithm 2.
//
// A Decoder scans the whole vocabulary with a fast approximate kernel (float32 FMA, or 8-bit
// integer multiply-adds on a quantised copy), keeps every row that a proven error bound cannot
// rule out, and re-decides those rows in float64. Its answers are therefore those of the naive
// float64 scan, on every CPU and at any number of workers. Shared keeps one packed copy per
// vocabulary for all the mechanisms of a run.
package nearest
