package corpus

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// TargetTopic is the topic ReadPAN gives every unknown text of a 2018/2019 problem: PAN draws
// them from one target domain (fandom) that the metadata does not name, so they share a topic
// per problem, e.g. "problem00001-target" — unless the texts show which fandom it is
// (resolveTargets).
func TargetTopic(problem string) string { return problem + "-target" }

// OpenSetAuthor reports whether author is the placeholder ReadPAN gives open-set unknown texts
// ("<problem>/<UNK>"): their writers are none of the candidates and unknown, so such documents
// may serve as topic training data but never as an evaluation author's.
func OpenSetAuthor(author string) bool {
	return author == UnknownAuthor || strings.HasSuffix(author, "/"+UnknownAuthor)
}

// ReadPAN reads the PAN problems at path (see ReadPANProblems; opts selects the language) as
// one corpus: every known text and every unknown text with ground truth becomes a Document. PAN
// names candidates per problem ("candidate00001" is a different person in each problem), so
// Author is "<problem>/<candidate>"; open-set unknown texts get "<problem>/<UNK>" (see
// OpenSetAuthor). Topics: a known text's topic is its fandom where fandom-info.json gives it
// (PAN 2019), else the problem name; in the 2018/2019 layout every unknown text of a problem has
// topic TargetTopic(problem), or the fandom the data shows it to be (resolveTargets); in the
// older layout every text has the problem name. ID is
// "<problem>/<folder>/<file>"; Meta holds "problem", "role" ("known" or "unknown"), "file" and
// "language" (as the collection gives it, "" if not).
// Problems in several languages are an error unless opts.Language picks one; problems of
// other languages, stray files and unknown texts without ground truth are skipped
// and counted; byte-identical texts are dropped (see Skipped).
func ReadPAN(path string, opts PANOptions) ([]Document, Skipped, error) {
	problems, skipped, err := ReadPANProblems(path, opts)
	if err != nil {
		return nil, nil, err
	}
	if opts.Language == "" {
		langs := map[string]int{}
		for _, p := range problems {
			langs[strings.ToLower(p.Language)]++
		}
		if len(langs) > 1 {
			var parts []string
			for _, l := range slices.Sorted(maps.Keys(langs)) {
				parts = append(parts, fmt.Sprintf("%q: %d", l, langs[l]))
			}
			return nil, nil, fmt.Errorf("corpus: %s: problems in %d languages (%s): one corpus must not mix languages; choose one (language = \"en\" in [corpus])",
				path, len(langs), strings.Join(parts, ", "))
		}
	}
	var docs []Document
	var named []bool // docs[i] is a known text whose fandom fandom-info.json names
	for _, p := range problems {
		for reason, n := range p.Skipped {
			skipped[reason] += n
		}
		for _, c := range p.Candidates {
			for _, t := range c.Known {
				topic := t.Topic
				if topic == "" {
					topic = p.Name
				}
				docs = append(docs, panDocument(p, c.Name, "known", topic, t))
				named = append(named, t.Topic != "")
			}
		}
		for _, t := range p.Unknown {
			if t.Author == "" {
				skipped.add("unknown text without ground truth")
				continue
			}
			topic := p.Name
			if p.Layout == LayoutCDAA {
				topic = TargetTopic(p.Name)
			}
			docs = append(docs, panDocument(p, p.UnknownFolder, "unknown", topic, t))
			named = append(named, false)
		}
	}
	resolveTargets(docs, named, skipped)
	if len(docs) == 0 {
		return nil, nil, fmt.Errorf("corpus: %s: no text with a known author (%s)", path, skipped)
	}
	return finish(docs, skipped), skipped, nil
}

func panDocument(p PANProblem, folder, role, topic string, t PANText) Document {
	return Document{
		ID:     fmt.Sprintf("%s/%s/%s", p.Name, folder, t.File),
		Author: p.Name + "/" + t.Author,
		Topic:  topic,
		Text:   t.Text,
		Meta:   map[string]string{"problem": p.Name, "role": role, "file": t.File, "language": p.Language},
	}
}

// targetPrefix begins the reasons resolveTargets records.
const targetPrefix = "target fandom "

// resolveTargets names the target fandom of a problem where the data shows it: PAN 2019 reuses
// texts across problems, so some unknown texts of a problem are byte-identical to known texts
// of another, whose fandom fandom-info.json names. When the matches of a problem's unknown
// texts name one fandom, every unknown text of the problem (PAN draws them from one target
// fandom) takes that fandom as its topic instead of TargetTopic, so one fandom is one topic;
// matches naming several fandoms leave the problem's topic as it is. Each outcome is recorded
// in skipped (the log and the manifest's corpus_read.changes).
func resolveTargets(docs []Document, named []bool, skipped Skipped) {
	fandoms := map[[sha256.Size]byte]map[string]bool{}
	for i, d := range docs {
		if named[i] {
			h := sha256.Sum256([]byte(d.Text))
			if fandoms[h] == nil {
				fandoms[h] = map[string]bool{}
			}
			fandoms[h][d.Topic] = true
		}
	}
	unknown := map[string][]int{} // problem → its unknown documents with the target topic
	for i, d := range docs {
		if p := d.Meta["problem"]; d.Meta["role"] == "unknown" && d.Topic == TargetTopic(p) {
			unknown[p] = append(unknown[p], i)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(unknown)) {
		found := map[string]int{}
		for _, i := range unknown[p] {
			for f := range fandoms[sha256.Sum256([]byte(docs[i].Text))] {
				found[f]++
			}
		}
		switch names := slices.Sorted(maps.Keys(found)); len(names) {
		case 0:
		case 1:
			for _, i := range unknown[p] {
				docs[i].Topic = names[0]
			}
			skipped.add(fmt.Sprintf(targetPrefix+"of %s resolved: %d of its unknown texts are byte-identical to known texts of fandom %q, which is the topic of all %d (not %s)",
				p, found[names[0]], names[0], len(unknown[p]), TargetTopic(p)))
		default:
			skipped.add(fmt.Sprintf(targetPrefix+"of %s not resolved: its unknown texts are byte-identical to known texts of %d fandoms (%s), so they keep the topic %s",
				p, len(names), strings.Join(names, ", "), TargetTopic(p)))
		}
	}
}
