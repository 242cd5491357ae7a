package runner

import (
	"math/rand/v2"
	"slices"
	"testing"

	"dptext/experiments/runconfig"
	"dptext/internal/fixtures"
	"dptext/internal/text"
)

// restrictVocabulary stops normalising words once top_k have passed the "words" filter; what it
// keeps must be what filtering every word and then taking the top_k gives (the reference below,
// the code before issue 38), for every top_k. Mutant caught: counting every word visited
// instead of the words kept (the store then ends short of top_k words).
func TestRestrictVocabularyEqualsFilterThenTopK(t *testing.T) {
	words := []string{"the", "nation", ",", "Congress", "peace", "a", "war's", "1812", "union", "liberty", "states", "law"}
	s := fixtures.NormalStore(t, rand.New(rand.NewPCG(1, 1)), words, 2, 1)
	for k := 0; k <= len(words)+1; k++ {
		e := runconfig.EmbeddingsConfig{Vocabulary: runconfig.VocabularyWords, TopK: k}
		got := restrictVocabulary(s, e).Words()
		want := s.Filter(func(w string) bool {
			toks := text.Normalize(text.Words(w))
			return len(toks) == 1 && toks[0] == w
		}).TopK(k).Words()
		if !slices.Equal(got, want) {
			t.Fatalf("top_k = %d: kept %v, want %v", k, got, want)
		}
	}
}
