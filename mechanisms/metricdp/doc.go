// Package metricdp holds the noise-then-decode mechanisms of metric differential privacy:
// every word's vector gets noise and is released as the nearest vocabulary word, with a
// guarantee ε·d(x, x′) in a metric d on words (Fernandes et al. 2019 for EMD; Feyisetan et al.
// 2020 for CMP; Xu et al. 2020 and 2021 for Mahalanobis and Vickrey). It holds their noise draws
// (LaplaceNoisyVector), out-of-vocabulary policies, pair bounds and the noise step they expose to
// the audit (mechanisms.NoiseStep).
package metricdp
