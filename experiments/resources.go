package experiments

import (
	"fmt"

	"dptext/resources"
)

// bytesPerWord is what one word of a document held in memory costs at least: its string
// header (16 bytes) and about 8 bytes of text.
const bytesPerWord = 24

// textSizes sets env's estimates of a cell's texts from cfg (see Env.CellDocs): the largest
// set's authors, each with a known and an unknown text (or a training chunk), of the longest
// length the protocol gives.
func textSizes(env *Env, cfg *Config) {
	authors := 1
	for _, s := range cfg.Sets {
		authors = max(authors, s.Authors)
	}
	p := cfg.Protocol
	env.CellDocs = 2 * authors
	env.TextWords = max(1, p.KnownWords, p.UnknownWords, p.TopicTrainWords, p.ChunkWords)
}

// fits checks a builder's memory estimate for option what (e.g. "n = 1000000000") when env
// carries text sizes (CheckComponents sets them; 0 skips the check).
func (e *Env) fits(what string, bytes float64, how string) error {
	if e == nil || e.CellDocs == 0 {
		return nil
	}
	return resources.Fits(what, bytes, how)
}

// setTextsFit refuses a set whose texts alone would not fit in memory: each author brings a
// known and an unknown text of the protocol's lengths (bytesPerWord a word).
func setTextsFit(cfg *Config, s SetConfig) error {
	p := cfg.Protocol
	words := float64(max(1, p.KnownWords+p.UnknownWords, p.ChunkWords))
	how := fmt.Sprintf("%d bytes per word × %.0f words per author × %d authors", bytesPerWord, words, s.Authors)
	return resources.Fits(fmt.Sprintf("%d", s.Authors), bytesPerWord*words*float64(s.Authors), how)
}
