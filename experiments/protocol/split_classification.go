package protocol

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"dptext/corpus"
	"dptext/experiments/runconfig"
	"dptext/internal/rngs"
	"dptext/internal/text"
)

// unit is one document (or chunk of a document) of the classification protocol.
type unit struct {
	words         []string
	author, topic string
}

// splitClassification applies the SynTF evaluation protocol (Weggenmann and Kerschbaum 2018,
// §4.2) for every set: the suspects are the set's number of authors with the most documents
// (ties by name) among those active in at least MinTopicsPerAuthor topics; each suspect's
// documents (or chunks of ChunkWords words) are shuffled, capped at MaxDocsPerAuthor, and
// TestShare of them (at least one) become test documents. Known/KnownAuthors are the
// training documents and TopicTrain/TopicTrainLabels the same documents with their topics;
// Eval holds the test documents.
func splitClassification(cfg *runconfig.Config, docs []corpus.Document, logf func(string, ...any)) ([]*SetData, error) {
	p := cfg.Protocol
	byAuthor := map[string][]unit{}
	for _, d := range docs {
		if corpus.OpenSetAuthor(d.Author) {
			continue // PAN open-set texts: their writers are unknown
		}
		words := text.Words(d.Text)
		var pieces [][]string
		if p.ChunkWords == 0 {
			pieces = [][]string{words}
		} else {
			for start := 0; start < len(words); start += p.ChunkWords {
				end := min(start+p.ChunkWords, len(words))
				if end-start < p.ChunkWords/2 {
					break
				}
				pieces = append(pieces, words[start:end])
			}
		}
		for _, w := range pieces {
			if n := text.Normalize(w); len(n) > 0 {
				byAuthor[d.Author] = append(byAuthor[d.Author], unit{n, d.Author, d.Topic})
			}
		}
	}
	type cand struct {
		author string
		units  int
	}
	var eligible []cand
	for a, us := range byAuthor {
		topics := map[string]bool{}
		for _, u := range us {
			topics[u.topic] = true
		}
		if len(topics) >= p.MinTopicsPerAuthor && len(us) >= 2 {
			eligible = append(eligible, cand{a, len(us)})
		}
	}
	sort.Slice(eligible, func(i, j int) bool {
		if eligible[i].units != eligible[j].units {
			return eligible[i].units > eligible[j].units
		}
		return eligible[i].author < eligible[j].author
	})
	var sets []*SetData
	for si, sc := range cfg.Sets {
		if len(eligible) < sc.Authors {
			return nil, cfg.ErrAt(fmt.Sprintf("sets[%d]", si), "authors", "set %q: asks for the top %d authors but only %d have at least 2 documents in at least %d topic(s); lower [[sets]] authors or [protocol] min_topics_per_author",
				sc.Name, sc.Authors, len(eligible), p.MinTopicsPerAuthor)
		}
		rng := rngs.New(uint64(cfg.Seed), "split/set="+sc.Name)
		s := &SetData{Name: sc.Name, AuthorTopic: map[string]string{}, EMDMean: math.NaN(), EMDMin: math.NaN(), DrawKey: sc.Name}
		topics := map[string]bool{}
		for _, c := range eligible[:sc.Authors] {
			s.Authors = append(s.Authors, c.author)
			us := append([]unit(nil), byAuthor[c.author]...)
			rng.Shuffle(len(us), func(i, j int) { us[i], us[j] = us[j], us[i] })
			if p.MaxDocsPerAuthor > 0 && len(us) > p.MaxDocsPerAuthor {
				us = us[:p.MaxDocsPerAuthor]
			}
			nTest := max(1, int(float64(len(us))*p.TestShare+0.5))
			nTest = min(nTest, len(us)-1)
			for i, u := range us {
				topics[u.topic] = true
				if i < nTest {
					s.Eval = append(s.Eval, u.words)
					s.EvalAuthors = append(s.EvalAuthors, u.author)
					s.EvalTopics = append(s.EvalTopics, u.topic)
					s.EvalIDs = append(s.EvalIDs, fmt.Sprintf("%s#%d", u.author, i))
				} else {
					s.Known = append(s.Known, u.words)
					s.KnownAuthors = append(s.KnownAuthors, u.author)
					s.TopicTrain = append(s.TopicTrain, u.words)
					s.TopicTrainLabels = append(s.TopicTrainLabels, u.topic)
				}
			}
		}
		s.Topics = slices.Sorted(maps.Keys(topics))
		if len(s.Topics) < 2 {
			return nil, fmt.Errorf("set %q: the top %d authors write in %d topic(s) (%s): topic classification needs at least 2",
				sc.Name, sc.Authors, len(s.Topics), strings.Join(s.Topics, ", "))
		}
		s.N = len(s.Eval[0])
		for _, d := range append(append([][]string{}, s.Known...), s.Eval...) {
			s.N = min(s.N, len(d))
		}
		logf("set %s: top %d authors (%d–%d documents each), %d training and %d test documents over topics %s",
			s.Name, sc.Authors, eligible[sc.Authors-1].units, eligible[0].units, len(s.Known), len(s.Eval), strings.Join(s.Topics, "/"))
		sets = append(sets, s)
	}
	return sets, nil
}
