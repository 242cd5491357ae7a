package runconfig

import (
	"fmt"

	"dptext/experiments/registry"
	"dptext/internal/resources"
)

// textSizes sets env's estimates of a cell's texts from cfg (see Env.CellDocs): the largest
// set's authors, each with a known and an unknown text (or a training chunk), of the longest
// length the protocol gives.
func textSizes(env *registry.Env, cfg *Config) {
	authors := 1
	for _, s := range cfg.Sets {
		authors = max(authors, s.Authors)
	}
	p := cfg.Protocol
	env.CellDocs = 2 * authors
	env.TextWords = max(1, p.KnownWords, p.UnknownWords, p.TopicTrainWords, p.ChunkWords)
}

// setTextsFit refuses a set whose texts alone would not fit in memory: each author brings a
// known and an unknown text of the protocol's lengths (resources.BytesPerWord a word).
func setTextsFit(cfg *Config, s SetConfig) error {
	p := cfg.Protocol
	words := float64(max(1, p.KnownWords+p.UnknownWords, p.ChunkWords))
	how := fmt.Sprintf("%d bytes per word × %.0f words per author × %d authors", resources.BytesPerWord, words, s.Authors)
	return resources.Fits(fmt.Sprintf("%d", s.Authors), resources.BytesPerWord*words*float64(s.Authors), how)
}
