package main

import (
	"fmt"

	"dptext/internal/resources"
	"dptext/mechanisms/erae"
)

// eraeTrainingBytes estimates the memory `train erae` needs with opts and embed-dimensional
// word vectors: the weights of the model (erae.WeightCount) four times over
// (weights, gradients and Adam's two moments) and the activations of a batch, dominated by the
// output distribution over the vocabulary and the GRU gates at every position, 4 bytes each.
// It is computed in float64, so sizes that would overflow an int stay estimates.
func eraeTrainingBytes(opts erae.TrainOptions, embed int) (bytes float64, how string) {
	E, H, V := float64(embed), float64(opts.Hidden), float64(opts.Vocab)
	params := erae.WeightCount(erae.Sizes{Vocab: opts.Vocab, Embed: embed, Hidden: opts.Hidden, Latent: opts.Latent, StartState: opts.StartState})
	positions := float64(opts.Batch) * float64(opts.Length)
	act := positions * (V + 12*H + 2*E)
	return 4 * (4*params + act), fmt.Sprintf("4 bytes × (4 × %.3g weights + %.3g batch × length positions × %.3g activations)",
		params, positions, V+12*H+2*E)
}

// checkEraeTraining refuses training options whose memory estimate exceeds the machine.
func checkEraeTraining(opts erae.TrainOptions, embed int) error {
	b, how := eraeTrainingBytes(opts, embed)
	return resources.Fits(fmt.Sprintf("--vocab %d --hidden %d --latent %d --batch %d --length %d", opts.Vocab, opts.Hidden, opts.Latent, opts.Batch, opts.Length), b, how)
}
