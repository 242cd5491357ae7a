package protocol

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"dptext/corpus"
	"dptext/experiments/runconfig"
	"dptext/internal/text"
)

// panEntry is one text of a PAN problem as the protocol sees it.
type panEntry struct {
	doc  corpus.Document
	role string
}

// splitPAN applies the cross-domain protocol (ProtocolPAN) to the documents of a PAN
// collection (corpus.ReadPAN, with the texts dropped as byte-identical duplicates put back in
// every problem they belong to, under the merged identity of their writer). For each set, the
// problem of its name: Known holds the candidates' known texts (their first KnownWords words,
// normalised), Eval every unknown text (its first UnknownWords words, normalised) with its true
// author, or corpus.UnknownAuthor when the writer is none of the problem's candidates (PAN's
// open-set texts, and texts of a writer who is a candidate only in other problems); texts
// shorter than asked are left out and counted; all are cut to the common length N. KnownRaw
// and EvalRaw keep the same stretches of text as written. The
// mechanisms' training corpus (TopicTrain) is the known texts. Repeats redraw nothing: the
// problem fixes the texts.
func splitPAN(cfg *runconfig.Config, docs []corpus.Document, logf func(string, ...any)) ([]*SetData, error) {
	p := cfg.Protocol
	problems := map[string][]panEntry{}
	for _, d := range docs {
		for _, e := range corpus.WithDuplicates(d) {
			name, role := e.Meta["problem"], e.Meta["role"]
			if name == "" || (role != "known" && role != "unknown") {
				return nil, cfg.ErrAt("protocol", "kind", "%q needs a PAN collection read with format = \"pan\": document %s has no PAN problem and role", runconfig.ProtocolPAN, e.ID)
			}
			problems[name] = append(problems[name], panEntry{e, role})
		}
	}
	var sets []*SetData
	for i, sc := range cfg.Sets {
		entries, ok := problems[sc.Name]
		if !ok {
			return nil, cfg.ErrAt(fmt.Sprintf("sets[%d]", i), "name", "%q is not a problem read from the collection (missing, or left out by [corpus] language); problems read: %s",
				sc.Name, strings.Join(slices.Sorted(maps.Keys(problems)), ", "))
		}
		sort.SliceStable(entries, func(a, b int) bool { return entries[a].doc.ID < entries[b].doc.ID })
		s, short, err := panSet(p, sc, entries)
		if err != nil {
			return nil, cfg.ErrAt(fmt.Sprintf("sets[%d]", i), "name", "%v", err)
		}
		open := 0
		for _, a := range s.EvalAuthors {
			if a == corpus.UnknownAuthor {
				open++
			}
		}
		closed := float64(len(s.Eval)-open) / float64(len(s.Eval))
		logf("set %s: PAN problem with %d candidates, %d known and %d unknown texts (%d open-set: best attainable accuracy %.3f, chance %.3f), N = %d words (%d texts shorter than known_words = %d or unknown_words = %d left out)",
			s.Name, len(s.Authors), len(s.Known), len(s.Eval), open, closed, closed/float64(len(s.Authors)), s.N, short, p.KnownWords, p.UnknownWords)
		sets = append(sets, s)
	}
	return sets, nil
}

// panSet builds the set of one problem from its texts (in ID order); short counts the texts
// left out for their length.
func panSet(p runconfig.ProtocolConfig, sc runconfig.SetConfig, entries []panEntry) (*SetData, int, error) {
	s := &SetData{Name: sc.Name, AuthorTopic: map[string]string{}, EMDMean: math.NaN(), EMDMin: math.NaN(), DrawKey: sc.Name, NoTopicTask: true}
	candidates := map[string]bool{}
	short := 0
	for _, e := range entries {
		if e.role != "known" {
			continue
		}
		w := text.Words(e.doc.Text)
		if len(w) < p.KnownWords {
			short++
			continue
		}
		s.Known = append(s.Known, text.Normalize(w[:p.KnownWords]))
		s.KnownRaw = append(s.KnownRaw, e.doc.Text)
		s.KnownAuthors = append(s.KnownAuthors, e.doc.Author)
		s.TopicTrain = append(s.TopicTrain, s.Known[len(s.Known)-1])
		s.TopicTrainLabels = append(s.TopicTrainLabels, e.doc.Topic)
		if !candidates[e.doc.Author] {
			candidates[e.doc.Author] = true
			s.Authors = append(s.Authors, e.doc.Author)
		}
	}
	if len(s.Authors) < 2 {
		return nil, 0, fmt.Errorf("problem %q: %d candidate(s) with a known text of at least %d words: want at least 2 (lower known_words)", sc.Name, len(s.Authors), p.KnownWords)
	}
	if sc.Authors != 0 && sc.Authors != len(s.Authors) {
		return nil, 0, fmt.Errorf("problem %q has %d candidates with known texts of at least %d words, but the set asks for authors = %d: give %d, or leave authors out", sc.Name, len(s.Authors), p.KnownWords, sc.Authors, len(s.Authors))
	}
	topics := map[string]bool{}
	for _, e := range entries {
		if e.role != "unknown" {
			continue
		}
		w := text.Words(e.doc.Text)
		if len(w) < p.UnknownWords {
			short++
			continue
		}
		truth := e.doc.Author
		if !candidates[truth] {
			truth = corpus.UnknownAuthor
		}
		s.Eval = append(s.Eval, text.Normalize(w[:p.UnknownWords]))
		s.EvalRaw = append(s.EvalRaw, e.doc.Text)
		s.EvalAuthors = append(s.EvalAuthors, truth)
		s.EvalTopics = append(s.EvalTopics, e.doc.Topic)
		s.EvalIDs = append(s.EvalIDs, e.doc.ID)
		topics[e.doc.Topic] = true
	}
	if len(s.Eval) == 0 {
		return nil, 0, fmt.Errorf("problem %q: no unknown text of at least %d words (lower unknown_words)", sc.Name, p.UnknownWords)
	}
	s.Topics = slices.Sorted(maps.Keys(topics))
	s.N = len(s.Eval[0])
	for _, d := range append(slices.Clone(s.Known), s.Eval...) {
		s.N = min(s.N, len(d))
	}
	if s.N == 0 {
		return nil, 0, fmt.Errorf("problem %q: a text has no words left after removing stopwords", sc.Name)
	}
	for i := range s.Known {
		s.Known[i] = s.Known[i][:s.N]
		s.KnownRaw[i] = rawPrefix(s.KnownRaw[i], p.KnownWords, s.N)
	}
	for i := range s.Eval {
		s.Eval[i] = s.Eval[i][:s.N]
		s.EvalRaw[i] = rawPrefix(s.EvalRaw[i], p.UnknownWords, s.N)
	}
	return s, short, nil
}

// rawPrefix is raw as written up to the end of the word that gives its n-th normalised word
// among its first limit words: the stretch of text whose normalised words are the set's
// text, with everything the normaliser drops (case, stopwords, punctuation, layout) kept.
func rawPrefix(raw string, limit, n int) string { return rawSpan{raw, 0, limit}.stretch(n) }

// rawSpan is where a set's text was read from: limit words of text from word from on.
type rawSpan struct {
	text        string
	from, limit int
}

// stretch is the span's text as written from the start of its first word (of its whole text
// when from is 0) to the end of the word that gives its n-th normalised word (or of its last
// word).
func (r rawSpan) stretch(n int) string {
	toks := text.Tokenize(r.text)
	toks = toks[min(r.from, len(toks)):min(r.from+r.limit, len(toks))]
	if len(toks) == 0 {
		return ""
	}
	start := 0
	if r.from > 0 {
		start = toks[0].Start
	}
	kept := 0
	for _, t := range toks {
		if len(text.Normalize([]string{t.Text})) == 1 {
			if kept++; kept == n {
				return r.text[start:t.End]
			}
		}
	}
	return r.text[start:toks[len(toks)-1].End]
}

// stretches returns every span's stretch of n normalised words (see rawSpan.stretch).
func stretches(spans []rawSpan, n int) []string {
	out := make([]string, len(spans))
	for i, r := range spans {
		out[i] = r.stretch(n)
	}
	return out
}

// describeTopicTraining gives the topic classifiers' training and validation documents of a
// set's draws in the units and form of the caption's "topic training documents" (a fact per
// draw, the mean over the draws): "2063.5 topic training and 416 validation documents
// (chunks of topic_train_words = 300 words; mean over 5 draws)".
func describeTopicTraining(draws []*SetData, words int) string {
	train, valid := 0, 0
	for _, d := range draws {
		train, valid = train+len(d.TopicTrain), valid+len(d.TopicValidation)
	}
	mean := func(sum int) string {
		v := float64(sum) / float64(len(draws))
		switch {
		case v == math.Trunc(v):
			return strconv.Itoa(int(v))
		case v >= 100:
			return strconv.FormatFloat(v, 'f', 1, 64)
		}
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	over := "one draw"
	if len(draws) > 1 {
		over = fmt.Sprintf("mean over %d draws", len(draws))
	}
	return fmt.Sprintf("%s topic training and %s validation documents (chunks of topic_train_words = %d words; %s)", mean(train), mean(valid), words, over)
}
