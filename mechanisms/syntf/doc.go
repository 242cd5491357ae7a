// Package syntf holds SynTF (Weggenmann and Kerschbaum 2018): a document released as a sample
// of words drawn by the exponential mechanism over its term-frequency vector, with the
// ε·ℓ and ℓ·n bounds (ComputeEll) of its guarantee.
package syntf
