// Package expmech holds the token samplers built on the exponential mechanism: each word is
// replaced by a vocabulary word drawn with probability ∝ exp(ε·u/(2Δ)) for a rating u (expmech,
// after McSherry and Talwar 2007; SanText and SanText+ of Yue et al.; CusText of Chen et al.;
// TEM of Carvalho et al.; and the truncated Gumbel mechanism of Carvalho et al., a noisy
// minimum over word distances), with the rows of ratings they share (distance batches, row
// caches), and the uniform Random baseline.
package expmech
