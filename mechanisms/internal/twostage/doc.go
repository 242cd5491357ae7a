// Package twostage is the exponential-mechanism token sampling the sampler families share:
// one draw over all rows (SampleExponential) and the two-stage candidate selection (Sampler)
// of expmech, erae and ae-dp. It lives under mechanisms/internal so that both families import
// it and neither imports the other.
package twostage
