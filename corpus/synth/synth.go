// Package synth writes synthetic corpora in the layouts the corpus package reads: PAN 2018 and
// 2019 cross-domain attribution collections (several problems and languages, fandoms, open-set
// unknown texts) and a cross-topic directory tree where every author writes in every topic.
// No real PAN data ships with dptext; these collections exercise the same code paths. Texts are
// English-like word sequences: each topic has its own content words and invented character
// names (words outside any embedding vocabulary, like fan-fiction names), each author their own
// choices among synonyms and function words, so both topic and authorship are learnable.
// Everything is drawn from a seeded generator: equal options give byte-identical files.
package synth

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// topicWords are the content-word pools the topics draw from, one per topic (cycled).
var topicWords = [][]string{
	strings.Fields("ship sea wave harbour sail captain storm island anchor crew deck tide shore compass voyage mast rope fleet current reef"),
	strings.Fields("castle king knight sword throne battle kingdom queen army banner armour siege horse fortress crown tower dragon duel"),
	strings.Fields("school teacher lesson class exam student library homework classroom friend notebook desk pencil grade hallway principal"),
	strings.Fields("forest tree river mountain wolf cave trail camp fire valley hunter stream path moss hill stone cabin snow"),
	strings.Fields("city street car office phone police detective crime case witness alley night apartment subway evidence suspect lawyer"),
	strings.Fields("space planet star rocket station engine orbit alien signal galaxy pilot shuttle asteroid launch crater laser moon"),
	strings.Fields("kitchen bread soup garden market cook dinner table recipe oven apple cheese festival village baker wine feast"),
	strings.Fields("magic wand spell potion wizard witch scroll curse charm tower cloak owl rune crystal ritual apprentice"),
}

// synonymSets are the choices that mark an author's style.
var synonymSets = [][]string{
	{"big", "large", "huge", "vast"}, {"said", "replied", "answered", "muttered"},
	{"quickly", "rapidly", "swiftly", "hastily"}, {"looked", "glanced", "stared", "peered"},
	{"however", "but", "yet", "still"}, {"perhaps", "maybe", "possibly", "probably"},
	{"small", "little", "tiny", "slight"}, {"began", "started", "commenced", "set"},
	{"very", "really", "quite", "rather"}, {"walked", "strolled", "went", "wandered"},
	{"happy", "glad", "cheerful", "pleased"}, {"angry", "furious", "cross", "annoyed"},
}

var functionWords = strings.Fields("the a and of to in that it was he she they with as for on at his her but not by from had")

// writer produces texts of one author about one topic.
type writer struct {
	rng       *rand.Rand
	style     []int     // chosen synonym per set
	fw        []float64 // cumulative weights of the function words
	styleRate float64
}

func newWriter(seed uint64, author string) *writer {
	h := uint64(14695981039346656037)
	for _, c := range author {
		h = (h ^ uint64(c)) * 1099511628211
	}
	r := rand.New(rand.NewPCG(seed, h))
	w := &writer{rng: r, styleRate: 0.10 + 0.08*r.Float64()}
	for range synonymSets {
		w.style = append(w.style, r.IntN(4))
	}
	sum := 0.0
	for range functionWords {
		sum += 0.2 + r.Float64()
		w.fw = append(w.fw, sum)
	}
	for i := range w.fw {
		w.fw[i] /= sum
	}
	return w
}

// text writes n words about topic t (index into topicWords, cycled) with the topic's names.
func (w *writer) text(rng *rand.Rand, topic int, names []string, n int) string {
	pool := topicWords[topic%len(topicWords)]
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			if i%12 == 0 {
				b.WriteString(". ")
			} else {
				b.WriteString(" ")
			}
		}
		var word string
		switch r := rng.Float64(); {
		case r < w.styleRate:
			set := rng.IntN(len(synonymSets))
			choice := w.style[set]
			if rng.Float64() < 0.15 { // authors are not perfectly consistent
				choice = rng.IntN(4)
			}
			word = synonymSets[set][choice]
		case r < w.styleRate+0.30:
			u := rng.Float64()
			k := 0
			for k < len(w.fw)-1 && w.fw[k] < u {
				k++
			}
			word = functionWords[k]
		case r < w.styleRate+0.35 && len(names) > 0:
			word = names[rng.IntN(len(names))]
		default:
			word = pool[rng.IntN(len(pool))]
		}
		if i%12 == 0 {
			word = strings.ToUpper(word[:1]) + word[1:]
		}
		b.WriteString(word)
	}
	b.WriteString(".\n")
	return b.String()
}

// names invents the character names of a topic: capitalised, outside any real vocabulary.
func names(rng *rand.Rand, k int) []string {
	syll := strings.Fields("zar ek mon vil tha qua rix ol bren dus kae lor fen gav ysh orn")
	out := make([]string, k)
	for i := range out {
		s := syll[rng.IntN(len(syll))] + syll[rng.IntN(len(syll))] + syll[rng.IntN(len(syll))]
		out[i] = strings.ToUpper(s[:1]) + s[1:]
	}
	return out
}

// PANOptions shape a synthetic PAN collection.
type PANOptions struct {
	Seed uint64
	// Languages lists the language of every problem, in order (e.g. en en en fr).
	Languages []string
	// Candidates per problem, known texts per candidate, unknown texts per candidate and
	// open-set unknown texts (true author <UNK>) per problem.
	Candidates, Known, UnknownPerCandidate, OpenSet int
	// Fandoms is the number of fandoms the known texts draw from, shared by all problems (each
	// problem's target fandom is extra).
	Fandoms int
	// MinWords and MaxWords bound every text's length.
	MinWords, MaxWords int
	// FandomInfo writes fandom-info.json (PAN 2019); without it the layout is PAN 2018's.
	FandomInfo bool
}

// PAN2019 is shaped like the PAN 2019 training collection: 5 English and 2 French problems of
// 9 candidates with 7 known texts drawn from 130 fandoms (PAN 2019 has about 2 known texts per
// fandom), unknown texts from one target fandom per
// problem, open-set texts among them, fandom-info.json; 500–1000 words per text.
func PAN2019() PANOptions {
	return PANOptions{Seed: 2019, Languages: []string{"en", "en", "en", "en", "en", "fr", "fr"}, Candidates: 9, Known: 7,
		UnknownPerCandidate: 3, OpenSet: 8, Fandoms: 130, MinWords: 500, MaxWords: 1000, FandomInfo: true}
}

// PAN2018 is shaped like PAN 2018: closed set, no fandom-info.json, 2 English problems.
func PAN2018() PANOptions {
	return PANOptions{Seed: 2018, Languages: []string{"en", "en"}, Candidates: 5, Known: 7,
		UnknownPerCandidate: 3, Fandoms: 20, MinWords: 500, MaxWords: 1000}
}

// WritePAN writes a collection into dir (created): collection-info.json and per problem
// problem-info.json, candidate folders, the unknown folder, ground-truth.json and, with
// FandomInfo, fandom-info.json. Fandom names are shared across problems, as in PAN.
func WritePAN(dir string, o PANOptions) error {
	rng := rand.New(rand.NewPCG(o.Seed, 1))
	var collection []map[string]string
	fandomNames := func(k int) string { return fmt.Sprintf("Fandom %03d", k+1) }
	for pi, lang := range o.Languages {
		name := fmt.Sprintf("problem%05d", pi+1)
		collection = append(collection, map[string]string{"problem-name": name, "language": lang, "encoding": "UTF-8"})
		pdir := filepath.Join(dir, name)
		target := o.Fandoms + pi // a fandom of its own per problem: the target
		topicNames := map[int][]string{}
		topicOf := func(f int) []string {
			if topicNames[f] == nil {
				topicNames[f] = names(rand.New(rand.NewPCG(o.Seed, uint64(1000+f))), 6)
			}
			return topicNames[f]
		}
		var cands, truth []map[string]string
		var fandoms []map[string]string
		length := func() int { return o.MinWords + rng.IntN(o.MaxWords-o.MinWords+1) }
		unknownNo := 0
		type unk struct{ author, text string }
		var unknown []unk
		for c := 0; c < o.Candidates; c++ {
			cand := fmt.Sprintf("candidate%05d", c+1)
			cands = append(cands, map[string]string{"author-name": cand})
			w := newWriter(o.Seed, lang+"/"+name+"/"+cand)
			for k := 0; k < o.Known; k++ {
				f := rng.IntN(o.Fandoms)
				file := fmt.Sprintf("known%05d.txt", k+1)
				if err := writeFile(filepath.Join(pdir, cand, file), langify(lang, w.text(rng, f, topicOf(f), length()))); err != nil {
					return err
				}
				fandoms = append(fandoms, map[string]string{"known-text": file, "true-author": cand, "fandom": fandomNames(f)})
			}
			for u := 0; u < o.UnknownPerCandidate; u++ {
				unknown = append(unknown, unk{cand, langify(lang, w.text(rng, target, topicOf(target), length()))})
			}
		}
		for u := 0; u < o.OpenSet; u++ {
			w := newWriter(o.Seed, fmt.Sprintf("%s/%s/outsider%d", lang, name, u))
			unknown = append(unknown, unk{"<UNK>", langify(lang, w.text(rng, target, topicOf(target), length()))})
		}
		rng.Shuffle(len(unknown), func(i, j int) { unknown[i], unknown[j] = unknown[j], unknown[i] })
		for _, u := range unknown {
			unknownNo++
			file := fmt.Sprintf("unknown%05d.txt", unknownNo)
			if err := writeFile(filepath.Join(pdir, "unknown", file), u.text); err != nil {
				return err
			}
			truth = append(truth, map[string]string{"unknown-text": file, "true-author": u.author})
		}
		if err := writeJSON(filepath.Join(pdir, "problem-info.json"), map[string]any{"unknown-folder": "unknown", "candidate-authors": cands}); err != nil {
			return err
		}
		if err := writeJSON(filepath.Join(pdir, "ground-truth.json"), map[string]any{"ground_truth": truth}); err != nil {
			return err
		}
		if o.FandomInfo {
			if err := writeJSON(filepath.Join(pdir, "fandom-info.json"), fandoms); err != nil {
				return err
			}
		}
	}
	return writeJSON(filepath.Join(dir, "collection-info.json"), collection)
}

// langify marks a non-English text so that languages differ (a suffix on every word).
func langify(lang, text string) string {
	if lang == "en" {
		return text
	}
	words := strings.Fields(text)
	for i, w := range words {
		words[i] = strings.TrimSuffix(w, ".") + "_" + lang
		if strings.HasSuffix(w, ".") {
			words[i] += "."
		}
	}
	return strings.Join(words, " ") + "\n"
}

// DirOptions shape a cross-topic directory corpus.
type DirOptions struct {
	Seed                           uint64
	Authors, Topics, DocsPerAuthor int // DocsPerAuthor in every topic
	MinWords, MaxWords             int
}

// CrossTopic is shaped like a newspaper corpus of 13 columnists each writing in 4 sections.
func CrossTopic() DirOptions {
	return DirOptions{Seed: 13, Authors: 13, Topics: 4, DocsPerAuthor: 3, MinWords: 3200, MaxWords: 4000}
}

// Columns is shaped like real newspaper columns: 13 columnists × 4 sections × 6 columns of
// 600–1000 words, far shorter than Table 1's default known_words + unknown_words (3000).
func Columns() DirOptions {
	return DirOptions{Seed: 17, Authors: 13, Topics: 4, DocsPerAuthor: 6, MinWords: 600, MaxWords: 1000}
}

// WriteDir writes ROOT/<topic>/<author>/<doc>.txt into dir: every author writes DocsPerAuthor
// documents in every topic.
func WriteDir(dir string, o DirOptions) error {
	rng := rand.New(rand.NewPCG(o.Seed, 2))
	topics := []string{"sea", "court", "school", "forest", "city", "space", "kitchen", "magic"}
	for a := 0; a < o.Authors; a++ {
		author := fmt.Sprintf("columnist%02d", a+1)
		w := newWriter(o.Seed, author)
		for t := 0; t < o.Topics; t++ {
			for d := 0; d < o.DocsPerAuthor; d++ {
				n := o.MinWords + rng.IntN(o.MaxWords-o.MinWords+1)
				path := filepath.Join(dir, topics[t%len(topics)], author, fmt.Sprintf("%02d.txt", d+1))
				if err := writeFile(path, w.text(rng, t, nil, n)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func writeFile(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o644)
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(path, string(data))
}
