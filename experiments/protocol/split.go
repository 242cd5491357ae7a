// Package protocol draws the sets of each repeat from the corpus: the authorship protocol of
// Fernandes et al. (known texts, snippets, topic training), the classification protocol of
// SynTF, and the PAN protocol (one set per problem).
package protocol

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	"dptext/corpus"
	"dptext/embeddings"
	"dptext/experiments/runconfig"
	"dptext/internal/rngs"
	"dptext/internal/text"
	"dptext/mechanisms/metricdp"
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
	// KnownRaw and EvalRaw are the stretches of text Known and Eval were read from, as written
	// (case, stopwords, punctuation and layout kept), for the rows that score the original
	// texts as written (the pan protocol); nil where the protocol keeps no raw text.
	KnownRaw, EvalRaw []string
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
	// Repeat is the repeat this draw belongs to (0 without resampling); Draws holds one draw
	// per repeat when [protocol] resample is not "none" (Draws[0] is the set itself).
	Repeat int
	Draws  []*SetData
	// DrawKey names what the draw's topic training data depends on: the set name, with the
	// repeat when the evaluation authors are redrawn.
	DrawKey string
	// NoTopicTask marks a set without topic classification (the pan protocol): TopicTrain is
	// then only the mechanisms' training corpus, not reported as topic training data.
	NoTopicTask bool
}

// Draw returns the set's draw for repeat rep.
func (s *SetData) Draw(rep int) *SetData {
	if s.Draws == nil {
		return s
	}
	return s.Draws[rep]
}

// AllDraws returns every draw of the set (itself alone without resampling).
func (s *SetData) AllDraws() []*SetData {
	if s.Draws == nil {
		return []*SetData{s}
	}
	return s.Draws
}

type story struct {
	doc   corpus.Document
	words []string
}

// pool is what the protocol may draw from: the eligible stories of every author per topic,
// the chosen topics and, per topic, the authors eligible in it.
type pool struct {
	stories  map[string]map[string][]story // author → topic → stories of at least need words
	topics   []string                      // chosen topics, sorted
	eligible map[string][]string           // topic → authors with StoriesPerAuthor stories in it, sorted
	writers  map[string]map[string]bool    // topic → every author with a document in it
	rank     []string                      // every topic, most eligible authors first (ties by name)
	short    int                           // documents shorter than need
	need     int
	words    [][]string // text.Words of every document, in the order of the corpus (every draw's topic training reads them)
}

// Split applies the protocol to docs for every set of the config. log receives one line per
// set saying what was chosen and what was left out. With [protocol] resample other than
// "none", each set holds one draw per repeat in Draws.
func Split(cfg *runconfig.Config, docs []corpus.Document, logf func(format string, args ...any)) ([]*SetData, error) {
	switch cfg.Protocol.Kind {
	case runconfig.ProtocolClassification:
		return splitClassification(cfg, docs, logf)
	case runconfig.ProtocolPAN:
		return splitPAN(cfg, docs, logf)
	}
	pl, err := newPool(cfg, docs)
	if err != nil {
		return nil, err
	}
	var sets []*SetData
	for i, sc := range cfg.Sets {
		draw := func(rep int) (*SetData, error) {
			s, err := splitSet(cfg, sc, rep, pl, docs)
			if err != nil {
				return nil, cfg.ErrAt(fmt.Sprintf("sets[%d]", i), "authors", "%v", err)
			}
			return s, nil
		}
		s, err := draw(0)
		if err != nil {
			return nil, err
		}
		if cfg.Protocol.Resample != runconfig.ResampleNone {
			s.Draws = []*SetData{s}
			for rep := 1; rep < cfg.Repeats; rep++ {
				d, err := draw(rep)
				if err != nil {
					return nil, err
				}
				s.Draws = append(s.Draws, d)
			}
		}
		logf("set %s: %d authors over topics %s, %s, %s (%d documents shorter than %d words not eligible as stories; resample = %s)",
			s.Name, len(s.Authors), strings.Join(s.Topics, "/"), DescribeN(s.AllDraws()), describeTopicTraining(s.AllDraws(), cfg.Protocol.TopicTrainWords), pl.short, pl.need, cfg.Protocol.Resample)
		sets = append(sets, s)
	}
	return sets, nil
}

// DescribeN gives the common length N of a set's draws as the caption does: the mean over the
// draws, with the range when they differ ("N = 437.2 words (mean over 5 draws, 431–445)").
func DescribeN(draws []*SetData) string {
	lo, hi, sum := draws[0].N, draws[0].N, 0
	for _, d := range draws {
		lo, hi, sum = min(lo, d.N), max(hi, d.N), sum+d.N
	}
	if lo == hi {
		return fmt.Sprintf("N = %d words", lo)
	}
	return fmt.Sprintf("N = %s words (mean over %d draws, %d–%d)", strconv.FormatFloat(float64(sum)/float64(len(draws)), 'f', 1, 64), len(draws), lo, hi)
}

// WholePoolSets names the sets of an authorship run with resample = "authors" whose draws all
// have the same authors.
func WholePoolSets(cfg *runconfig.Config, sets []*SetData) []string {
	if cfg.Protocol.Kind != runconfig.ProtocolAuthorship || cfg.Protocol.Resample != runconfig.ResampleAuthors || cfg.Repeats < 2 {
		return nil
	}
	var out []string
	for _, s := range sets {
		same := true
		first := slices.Sorted(slices.Values(s.AllDraws()[0].Authors))
		for _, d := range s.AllDraws()[1:] {
			same = same && slices.Equal(first, slices.Sorted(slices.Values(d.Authors)))
		}
		if same {
			out = append(out, s.Name)
		}
	}
	return out
}

// newPool finds the eligible stories and chooses the topics: the [protocol] topics names, or
// the N topics with the most eligible authors (ties by name).
func newPool(cfg *runconfig.Config, docs []corpus.Document) (*pool, error) {
	p := cfg.Protocol
	pl := &pool{stories: map[string]map[string][]story{}, eligible: map[string][]string{}, writers: map[string]map[string]bool{},
		need: p.KnownWords + p.UnknownWords}
	for _, d := range docs {
		if pl.writers[d.Topic] == nil {
			pl.writers[d.Topic] = map[string]bool{}
		}
		pl.writers[d.Topic][d.Author] = true
		w := text.Words(d.Text)
		pl.words = append(pl.words, w)
		if len(w) < pl.need {
			pl.short++
			continue
		}
		if corpus.OpenSetAuthor(d.Author) {
			continue // topic training only: the writer is unknown
		}
		if pl.stories[d.Author] == nil {
			pl.stories[d.Author] = map[string][]story{}
		}
		pl.stories[d.Author][d.Topic] = append(pl.stories[d.Author][d.Topic], story{d, w})
	}
	for _, author := range slices.Sorted(maps.Keys(pl.stories)) {
		for topic, st := range pl.stories[author] {
			if len(st) >= p.StoriesPerAuthor && (p.SnippetsPerAuthor == 0 || snippetWindows(st, p) >= p.SnippetsPerAuthor) {
				pl.eligible[topic] = append(pl.eligible[topic], author)
			}
		}
	}
	all := slices.Sorted(maps.Keys(pl.writers))
	if len(all) < 2 {
		return nil, fmt.Errorf("corpus: %d topic(s) (%s): the protocol needs at least 2 to score topic classification",
			len(all), strings.Join(all, ", "))
	}
	pl.rank = append([]string(nil), all...)
	sort.SliceStable(pl.rank, func(i, j int) bool { return len(pl.eligible[pl.rank[i]]) > len(pl.eligible[pl.rank[j]]) })
	if len(p.Topics.Names) > 0 {
		for i, t := range p.Topics.Names {
			if pl.writers[t] == nil {
				return nil, cfg.ErrAt("protocol", "topics", "topic %q (entry %d) is not a topic of the corpus; topics with the most eligible authors: %s",
					t, i+1, pl.describeRank(8))
			}
		}
		pl.topics = append([]string(nil), p.Topics.Names...)
	} else {
		if p.Topics.Count > len(all) {
			return nil, cfg.ErrAt("protocol", "topics", "%d: the corpus has %d topics", p.Topics.Count, len(all))
		}
		pl.topics = append([]string(nil), pl.rank[:p.Topics.Count]...)
	}
	sort.Strings(pl.topics)
	return pl, nil
}

// describeRank lists the first n topics by eligible authors, as "name (k)".
func (pl *pool) describeRank(n int) string {
	var parts []string
	for i, t := range pl.rank {
		if i == n {
			parts = append(parts, fmt.Sprintf("… (%d topics)", len(pl.rank)))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%d)", t, len(pl.eligible[t])))
	}
	return strings.Join(parts, ", ")
}

// quotas balances n authors over topics; the remainder goes to the topics with the most
// eligible authors.
func (pl *pool) quotas(topics []string, n int) map[string]int {
	order := append([]string(nil), topics...)
	sort.SliceStable(order, func(i, j int) bool { return len(pl.eligible[order[i]]) > len(pl.eligible[order[j]]) })
	q := map[string]int{}
	for i, t := range order {
		q[t] = n / len(topics)
		if i < n%len(topics) {
			q[t]++
		}
	}
	return q
}

// assign places n distinct authors into topics, quota[t] in each, every author eligible in the
// topic they are placed in, trying candidates in the order rng gives them (nil: sorted). It
// returns nil when no such placement exists or when it would leave a topic without a document
// by an author outside the set (the topic classifiers' training data).
func (pl *pool) assign(topics []string, n int, rng *rand.Rand) map[string]string {
	q := pl.quotas(topics, n)
	cands := map[string][]string{}
	for _, t := range topics {
		c := append([]string(nil), pl.eligible[t]...)
		if rng != nil {
			rng.Shuffle(len(c), func(i, j int) { c[i], c[j] = c[j], c[i] })
		}
		cands[t] = c
	}
	// Slots: quota[t] copies of each topic, interleaved so that early augmenting paths spread
	// over topics.
	var slots []string
	for k := 0; ; k++ {
		added := false
		for _, t := range topics {
			if k < q[t] {
				slots = append(slots, t)
				added = true
			}
		}
		if !added {
			break
		}
	}
	owner := map[string]int{} // author → slot index
	slotAuthor := make([]string, len(slots))
	var augment func(slot int, seen map[string]bool) bool
	augment = func(slot int, seen map[string]bool) bool {
		for _, a := range cands[slots[slot]] {
			if seen[a] {
				continue
			}
			seen[a] = true
			prev, taken := owner[a]
			if !taken || augment(prev, seen) {
				owner[a], slotAuthor[slot] = slot, a
				return true
			}
		}
		return false
	}
	for i := range slots {
		if !augment(i, map[string]bool{}) {
			return nil
		}
	}
	out := map[string]string{}
	for i, a := range slotAuthor {
		out[a] = slots[i]
	}
	for _, t := range topics {
		left := 0
		for w := range pl.writers[t] {
			if _, in := out[w]; !in {
				left++
			}
		}
		if left == 0 {
			return nil
		}
	}
	return out
}

// largest is the largest set (at least 2 authors) that assign can fill over topics, 0 if none.
func (pl *pool) largest(topics []string) int {
	best := 0
	for n := 2; n <= len(pl.stories); n++ {
		if pl.assign(topics, n, nil) == nil {
			break
		}
		best = n
	}
	return best
}

// infeasible explains why a set of n authors cannot be filled, with the largest feasible
// settings computed on the corpus.
func (pl *pool) infeasible(cfg *runconfig.Config, name string, n int) error {
	p := cfg.Protocol
	q := pl.quotas(pl.topics, n)
	var per []string
	for _, t := range pl.topics {
		per = append(per, fmt.Sprintf("%s: %d asked, %d eligible", t, q[t], len(pl.eligible[t])))
	}
	var lines []string
	lines = append(lines, fmt.Sprintf("set %q: asks for %d authors over the %d topics %s (%s), but they cannot be placed: each author in one topic with %s of at least %d words there, leaving every topic a document by an author outside the set for topic training.",
		name, n, len(pl.topics), strings.Join(pl.topics, ", "), strings.Join(per, "; "), runconfig.Plural(p.StoriesPerAuthor, "story"), pl.need))
	lines = append(lines, fmt.Sprintf("largest feasible with these topics: %d authors", pl.largest(pl.topics)))
	var alt []string
	for k := 2; k <= min(len(pl.rank), 8); k++ {
		alt = append(alt, fmt.Sprintf("topics = %d → %d authors", k, pl.largest(pl.rank[:k])))
	}
	lines = append(lines, "largest feasible by [protocol] topics (most eligible authors first): "+strings.Join(alt, ", "))
	lines = append(lines, "topics with the most eligible authors: "+pl.describeRank(8))
	lines = append(lines, "lower [[sets]] authors, change [protocol] topics, or lower known_words/unknown_words/stories_per_author to make more authors eligible")
	return fmt.Errorf("%s", strings.Join(lines, "\n  "))
}

func splitSet(cfg *runconfig.Config, sc runconfig.SetConfig, rep int, pl *pool, docs []corpus.Document) (*SetData, error) {
	p := cfg.Protocol
	authorKey, storyKey := "split/set="+sc.Name, "split/set="+sc.Name
	switch p.Resample {
	case runconfig.ResampleAuthors:
		authorKey = fmt.Sprintf("split/set=%s/rep=%d", sc.Name, rep)
		storyKey = authorKey
	case runconfig.ResampleSnippets:
		storyKey = fmt.Sprintf("split/set=%s/stories/rep=%d", sc.Name, rep)
	}
	n := sc.Authors
	if sc.AllAuthors {
		if n = pl.largest(pl.topics); n == 0 {
			return nil, pl.infeasible(cfg, sc.Name, 2)
		}
	}
	placed := pl.assign(pl.topics, n, rngs.New(uint64(cfg.Seed), authorKey))
	if placed == nil {
		return nil, pl.infeasible(cfg, sc.Name, n)
	}
	s := &SetData{Name: sc.Name, Topics: pl.topics, AuthorTopic: placed, EMDMean: math.NaN(), EMDMin: math.NaN(),
		Repeat: rep, DrawKey: sc.Name}
	if p.Resample == runconfig.ResampleAuthors {
		s.DrawKey = fmt.Sprintf("%s/rep=%d", sc.Name, rep)
	}
	inSet := map[string]bool{}
	for _, t := range pl.topics {
		var in []string
		for a, at := range placed {
			if at == t {
				in = append(in, a)
			}
		}
		sort.Strings(in)
		s.Authors = append(s.Authors, in...)
		for _, a := range in {
			inSet[a] = true
		}
	}
	rng := rngs.New(uint64(cfg.Seed), storyKey)
	var knownRaw, evalRaw []rawSpan // where Known and Eval are read from (see SetData.KnownRaw)
	for _, a := range s.Authors {
		t := s.AuthorTopic[a]
		stories := pl.stories[a][t]
		pick := rng.Perm(len(stories))[:p.StoriesPerAuthor]
		sort.Ints(pick)
		for _, j := range pick {
			st := stories[j]
			s.Known = append(s.Known, text.Normalize(st.words[:p.KnownWords]))
			s.KnownAuthors = append(s.KnownAuthors, a)
			knownRaw = append(knownRaw, rawSpan{st.doc.Text, 0, p.KnownWords})
			if p.SnippetsPerAuthor == 0 {
				s.Eval = append(s.Eval, text.Normalize(st.words[len(st.words)-p.UnknownWords:]))
				evalRaw = append(evalRaw, rawSpan{st.doc.Text, len(st.words) - p.UnknownWords, p.UnknownWords})
				s.EvalAuthors = append(s.EvalAuthors, a)
				s.EvalTopics = append(s.EvalTopics, t)
				s.EvalIDs = append(s.EvalIDs, st.doc.ID)
			}
		}
		if p.SnippetsPerAuthor > 0 {
			for _, sn := range pickSnippets(stories, pick, p, rngs.New(uint64(cfg.Seed), storyKey+"/snippets/author="+a)) {
				s.Eval = append(s.Eval, text.Normalize(sn.words))
				s.EvalAuthors = append(s.EvalAuthors, a)
				s.EvalTopics = append(s.EvalTopics, t)
				s.EvalIDs = append(s.EvalIDs, sn.id)
			}
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
	if p.SnippetsPerAuthor == 0 {
		s.KnownRaw, s.EvalRaw = stretches(knownRaw, s.N), stretches(evalRaw, s.N)
	}
	if err := topicTraining(cfg, s, inSet, docs, pl.words); err != nil {
		return nil, err
	}
	return s, nil
}

// topicTraining cuts the documents of authors outside the set (words[i] holds the words of
// docs[i], split once for every draw) into chunks of TopicTrainWords words (a last piece
// shorter than half a chunk is dropped) and normalises them. Per topic the
// documents are shuffled and taken whole until TopicTrainMax chunks (0: no cap); ValidationShare
// of the documents (rounded; never a topic's last training document), all their chunks
// together, are held out for validation, so that no document has chunks on both sides.
func topicTraining(cfg *runconfig.Config, s *SetData, inSet map[string]bool, docs []corpus.Document, words [][]string) error {
	p := cfg.Protocol
	rng := rngs.New(uint64(cfg.Seed), "topic-train/set="+s.DrawKey)
	byTopic := map[string][][][]string{} // topic → documents → chunks
	wanted := map[string]bool{}
	for _, t := range s.Topics {
		wanted[t] = true
	}
	for i, d := range docs {
		if inSet[d.Author] || !wanted[d.Topic] {
			continue
		}
		w := words[i]
		var chunks [][]string
		for start := 0; start < len(w); start += p.TopicTrainWords {
			end := min(start+p.TopicTrainWords, len(w))
			if end-start < p.TopicTrainWords/2 {
				break
			}
			if chunk := text.Normalize(w[start:end]); len(chunk) > 0 {
				chunks = append(chunks, chunk)
			}
		}
		if len(chunks) > 0 {
			byTopic[d.Topic] = append(byTopic[d.Topic], chunks)
		}
	}
	type tdoc struct {
		topic  string
		chunks [][]string
	}
	var pooled []tdoc
	left := map[string]int{} // topic → documents still on the training side
	for _, t := range s.Topics {
		tdocs := byTopic[t]
		if len(tdocs) == 0 {
			return fmt.Errorf("set %q: no document of topic %q (of at least %d words) by an author outside the set: the topic classifiers would have nothing to learn from (use fewer authors per set or a smaller topic_train_words)", s.Name, t, p.TopicTrainWords/2)
		}
		taken := 0
		for _, j := range rng.Perm(len(tdocs)) {
			if p.TopicTrainMax > 0 && taken >= p.TopicTrainMax {
				break
			}
			taken += len(tdocs[j])
			pooled = append(pooled, tdoc{t, tdocs[j]})
			left[t]++
		}
	}
	// Validation documents: ValidationShare of all (rounded), in random order, never the last
	// training document of a topic.
	rng.Shuffle(len(pooled), func(i, j int) { pooled[i], pooled[j] = pooled[j], pooled[i] })
	nVal := int(float64(len(pooled))*p.ValidationShare + 0.5)
	type item struct {
		doc   []string
		topic string
		val   bool
	}
	var items []item
	for _, d := range pooled {
		val := nVal > 0 && left[d.topic] > 1
		if val {
			nVal--
			left[d.topic]--
		}
		for _, c := range d.chunks {
			items = append(items, item{c, d.topic, val})
		}
	}
	rng.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	for _, it := range items {
		if it.val {
			s.TopicValidation = append(s.TopicValidation, it.doc)
			s.TopicValidationLabels = append(s.TopicValidationLabels, it.topic)
		} else {
			s.TopicTrain = append(s.TopicTrain, it.doc)
			s.TopicTrainLabels = append(s.TopicTrainLabels, it.topic)
		}
	}
	return nil
}

// MeasureBagDistances sets EMDMean and EMDMin: the Earth Mover's distance between the snippets
// of consecutive evaluation documents (i, i+1), over their in-vocabulary words (an
// out-of-vocabulary word that differs between two documents leaves them without a finite
// metric guarantee), both bags truncated to the shorter one.
func (s *SetData) MeasureBagDistances(store *embeddings.Store) error {
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
		d, err := metricdp.BagDistance(store, a[:m], b[:m])
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
