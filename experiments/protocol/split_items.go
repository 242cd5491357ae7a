package protocol

import (
	"fmt"
	"math/rand/v2"

	"dptext/experiments/runconfig"
)

// snippetWindows counts the disjoint evaluation windows an author's stories in one topic give
// at least, whichever of them become known texts: floor((len − known_words)/unknown_words) per
// story (a story not used for a known text gives as many or more).
func snippetWindows(stories []story, p runconfig.ProtocolConfig) int {
	n := 0
	for _, st := range stories {
		n += (len(st.words) - p.KnownWords) / p.UnknownWords
	}
	return n
}

// snippet is one evaluation window: its words and its id in predictions.csv (the story's id
// for the last window of a story, else the id with the window's word range).
type snippet struct {
	id    string
	words []string
}

// pickSnippets takes [protocol] snippets_per_author windows of unknown_words words from an
// author's stories (SnippetsPerAuthor): round r takes the r-th window counted from the end of
// each story, the stories with known texts (picked, in their order) first, then the other
// stories in the order rng shuffles them. A picked story's windows never reach into its first
// known_words words; another story's may use all of it. Windows of one story never overlap.
func pickSnippets(stories []story, picked []int, p runconfig.ProtocolConfig, rng *rand.Rand) []snippet {
	isPicked := map[int]bool{}
	order := append([]int(nil), picked...)
	for _, j := range picked {
		isPicked[j] = true
	}
	for _, j := range rng.Perm(len(stories)) {
		if !isPicked[j] {
			order = append(order, j)
		}
	}
	var out []snippet
	for r := 0; len(out) < p.SnippetsPerAuthor; r++ {
		added := false
		for _, j := range order {
			if len(out) == p.SnippetsPerAuthor {
				break
			}
			st := stories[j]
			floor := 0
			if isPicked[j] {
				floor = p.KnownWords
			}
			end := len(st.words) - r*p.UnknownWords
			start := end - p.UnknownWords
			if start < floor {
				continue
			}
			id := st.doc.ID
			if r > 0 {
				id = fmt.Sprintf("%s@%d-%d", st.doc.ID, start, end)
			}
			out = append(out, snippet{id, st.words[start:end]})
			added = true
		}
		if !added {
			break // every story is out of windows (an author snippetWindows would not admit)
		}
	}
	return out
}
