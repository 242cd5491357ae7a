package experiments

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"dptext/corpus"
	"dptext/embeddings"
	"dptext/mechanisms"
	"dptext/rngs"
	"dptext/text"
)

// SetData is one author set after the Fernandes protocol split (SPEC §3).
type SetData struct {
	Name   string
	Topics []string // sorted
	// Authors in selection order; AuthorTopic gives each one's topic.
	Authors     []string
	AuthorTopic map[string]string
	// Known holds the known-author texts (first KnownWords words of each story, normalised and
	// truncated to N) with their authors: the attackers' training data.
	Known        [][]string
	KnownAuthors []string
	// Eval holds the unknown snippets (last UnknownWords words of each story, normalised and
	// truncated to N): what the mechanisms privatise and every scorer is asked about.
	Eval        [][]string
	EvalAuthors []string
	EvalTopics  []string
	// EvalIDs names the story each snippet comes from.
	EvalIDs []string
	// N is the common length of every known text and snippet of the set.
	N int
	// TopicTrain and TopicValidation are chunks of documents by authors outside the set, with
	// their topics: the topic classifiers' training and validation data.
	TopicTrain, TopicValidation             [][]string
	TopicTrainLabels, TopicValidationLabels []string
	// EMDMean and EMDMin summarise the Earth Mover's distance between the snippets of
	// consecutive authors (NaN until computed): with ε·N they give the multiplier e^{εN·E} of
	// the EMD mechanism's guarantee between two of the set's documents.
	EMDMean, EMDMin float64
}

type story struct {
	doc   corpus.Document
	words []string
}

// Split applies the protocol to docs for every set of the config. log receives one line per
// set saying what was chosen and what was left out.
func Split(cfg *Config, docs []corpus.Document, logf func(format string, args ...any)) ([]*SetData, error) {
	if cfg.Protocol.Kind == ProtocolClassification {
		return splitClassification(cfg, docs, logf)
	}
	p := cfg.Protocol
	need := p.KnownWords + p.UnknownWords
	byAuthorTopic := map[string]map[string][]story{}
	short := 0
	for _, d := range docs {
		w := text.Words(d.Text)
		if len(w) < need {
			short++
			continue
		}
		if byAuthorTopic[d.Author] == nil {
			byAuthorTopic[d.Author] = map[string][]story{}
		}
		byAuthorTopic[d.Author][d.Topic] = append(byAuthorTopic[d.Author][d.Topic], story{d, w})
	}
	// Each author joins the topic in which they have the most eligible stories (ties: the
	// first topic in sorted order), if that is at least StoriesPerAuthor.
	qualified := map[string][]string{} // topic → authors, sorted
	allTopics := map[string]bool{}
	for _, d := range docs {
		allTopics[d.Topic] = true
	}
	for author, topics := range byAuthorTopic {
		best, bestN := "", 0
		for _, t := range sortedKeys(topics) {
			if n := len(topics[t]); n > bestN {
				best, bestN = t, n
			}
		}
		if bestN >= p.StoriesPerAuthor {
			qualified[best] = append(qualified[best], author)
		}
	}
	topics := sortedKeys(allTopics)
	if len(topics) < 2 {
		return nil, fmt.Errorf("corpus: %d topic(s) (%s): the protocol needs at least 2 to score topic classification",
			len(topics), strings.Join(topics, ", "))
	}
	for _, t := range topics {
		sort.Strings(qualified[t])
	}
	var sets []*SetData
	for i, sc := range cfg.Sets {
		s, err := splitSet(cfg, sc, topics, qualified, byAuthorTopic, docs)
		if err != nil {
			return nil, cfg.errAt(fmt.Sprintf("sets[%d]", i), "authors", "%v", err)
		}
		logf("set %s: %d authors over topics %s, N = %d words, %d topic training and %d validation chunks (%d documents shorter than %d words not eligible as stories)",
			s.Name, len(s.Authors), strings.Join(s.Topics, "/"), s.N, len(s.TopicTrain), len(s.TopicValidation), short, need)
		sets = append(sets, s)
	}
	return sets, nil
}

func splitSet(cfg *Config, sc SetConfig, topics []string, qualified map[string][]string,
	byAuthorTopic map[string]map[string][]story, docs []corpus.Document) (*SetData, error) {
	p := cfg.Protocol
	rng := rngs.New(cfg.Seed, "split/set="+sc.Name)
	per := make([]int, len(topics))
	for i := range per {
		per[i] = sc.Authors / len(topics)
		if i < sc.Authors%len(topics) {
			per[i]++
		}
	}
	for i, t := range topics {
		if len(qualified[t]) < per[i] {
			var avail []string
			for _, t2 := range topics {
				avail = append(avail, fmt.Sprintf("%s: %d", t2, len(qualified[t2])))
			}
			return nil, fmt.Errorf("set %q: asks for %d authors (%d of topic %q) but only %d authors of that topic have %d stories of at least %d words (available per topic: %s); lower [[sets]] authors or the protocol's word counts",
				sc.Name, sc.Authors, per[i], t, len(qualified[t]), p.StoriesPerAuthor, p.KnownWords+p.UnknownWords, strings.Join(avail, ", "))
		}
	}
	s := &SetData{Name: sc.Name, Topics: topics, AuthorTopic: map[string]string{}, EMDMean: math.NaN(), EMDMin: math.NaN()}
	inSet := map[string]bool{}
	for i, t := range topics {
		cands := qualified[t]
		perm := rng.Perm(len(cands))
		for _, j := range perm[:per[i]] {
			a := cands[j]
			s.Authors = append(s.Authors, a)
			s.AuthorTopic[a] = t
			inSet[a] = true
		}
	}
	for _, a := range s.Authors {
		t := s.AuthorTopic[a]
		stories := byAuthorTopic[a][t]
		pick := rng.Perm(len(stories))[:p.StoriesPerAuthor]
		sort.Ints(pick)
		for _, j := range pick {
			st := stories[j]
			s.Known = append(s.Known, text.Normalize(st.words[:p.KnownWords]))
			s.KnownAuthors = append(s.KnownAuthors, a)
			s.Eval = append(s.Eval, text.Normalize(st.words[len(st.words)-p.UnknownWords:]))
			s.EvalAuthors = append(s.EvalAuthors, a)
			s.EvalTopics = append(s.EvalTopics, t)
			s.EvalIDs = append(s.EvalIDs, st.doc.ID)
		}
	}
	s.N = len(s.Eval[0])
	for _, d := range append(append([][]string{}, s.Known...), s.Eval...) {
		s.N = min(s.N, len(d))
	}
	if s.N == 0 {
		return nil, fmt.Errorf("set %q: a known text or snippet has no words left after removing stopwords", sc.Name)
	}
	for i := range s.Known {
		s.Known[i] = s.Known[i][:s.N]
	}
	for i := range s.Eval {
		s.Eval[i] = s.Eval[i][:s.N]
	}
	if err := topicTraining(cfg, s, inSet, docs); err != nil {
		return nil, err
	}
	return s, nil
}

// topicTraining cuts the documents of authors outside the set into chunks of TopicTrainWords
// words (a last piece shorter than half a chunk is dropped), normalises them, caps each topic
// at TopicTrainMax chunks, and holds out ValidationShare of them.
func topicTraining(cfg *Config, s *SetData, inSet map[string]bool, docs []corpus.Document) error {
	p := cfg.Protocol
	rng := rngs.New(cfg.Seed, "topic-train/set="+s.Name)
	byTopic := map[string][][]string{}
	for _, d := range docs {
		if inSet[d.Author] {
			continue
		}
		w := text.Words(d.Text)
		for start := 0; start < len(w); start += p.TopicTrainWords {
			end := min(start+p.TopicTrainWords, len(w))
			if end-start < p.TopicTrainWords/2 {
				break
			}
			if chunk := text.Normalize(w[start:end]); len(chunk) > 0 {
				byTopic[d.Topic] = append(byTopic[d.Topic], chunk)
			}
		}
	}
	type item struct {
		doc   []string
		topic string
	}
	var items []item
	for _, t := range s.Topics {
		chunks := byTopic[t]
		if len(chunks) == 0 {
			return fmt.Errorf("set %q: no document of topic %q by an author outside the set: the topic classifiers would have nothing to learn from (use fewer authors per set)", s.Name, t)
		}
		order := rng.Perm(len(chunks))
		if p.TopicTrainMax > 0 && len(order) > p.TopicTrainMax {
			order = order[:p.TopicTrainMax]
		}
		for _, j := range order {
			items = append(items, item{chunks[j], t})
		}
	}
	rng.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	nVal := int(float64(len(items)) * p.ValidationShare)
	for i, it := range items {
		if i < nVal {
			s.TopicValidation = append(s.TopicValidation, it.doc)
			s.TopicValidationLabels = append(s.TopicValidationLabels, it.topic)
		} else {
			s.TopicTrain = append(s.TopicTrain, it.doc)
			s.TopicTrainLabels = append(s.TopicTrainLabels, it.topic)
		}
	}
	return nil
}

// measureBagDistances sets EMDMean and EMDMin: the Earth Mover's distance between the snippets
// of consecutive evaluation documents (i, i+1), over their in-vocabulary words (an
// out-of-vocabulary word that differs between two documents leaves them without a finite
// metric guarantee), both bags truncated to the shorter one.
func (s *SetData) measureBagDistances(store *embeddings.Store) error {
	if len(s.Eval) < 2 {
		return nil
	}
	inVocab := func(doc []string) []string {
		var out []string
		for _, w := range doc {
			if _, ok := store.Lookup(w); ok {
				out = append(out, w)
			}
		}
		return out
	}
	sum, minD, n := 0.0, math.Inf(1), 0
	for i := range s.Eval {
		a, b := inVocab(s.Eval[i]), inVocab(s.Eval[(i+1)%len(s.Eval)])
		m := min(len(a), len(b))
		if m == 0 {
			continue
		}
		d, err := mechanisms.BagDistance(store, a[:m], b[:m])
		if err != nil {
			return fmt.Errorf("set %q: %w", s.Name, err)
		}
		sum += d
		minD = math.Min(minD, d)
		n++
	}
	if n > 0 {
		s.EMDMean, s.EMDMin = sum/float64(n), minD
	}
	return nil
}
