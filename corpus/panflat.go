package corpus

import "fmt"

// ReadPAN reads the PAN problems at path (see ReadPANProblems) as one corpus: every known text
// and every unknown text with a ground-truth author becomes a Document. PAN names candidates per
// problem ("candidate00001" is a different person in each problem), so Author is
// "<problem>/<candidate>". Topic is the text's fandom where fandom-info.json gives it, else the
// problem name. ID is "<problem>/<folder>/<file>"; Meta holds "problem", "role" ("known" or
// "unknown") and "file". Open-set "<UNK>" texts, stray files and unknown texts without ground
// truth are skipped and counted.
func ReadPAN(path string) ([]Document, Skipped, error) {
	problems, err := ReadPANProblems(path)
	if err != nil {
		return nil, nil, err
	}
	skipped := Skipped{}
	var docs []Document
	for _, p := range problems {
		for reason, n := range p.Skipped {
			skipped[reason] += n
		}
		for _, c := range p.Candidates {
			for _, t := range c.Known {
				docs = append(docs, panDocument(p, c.Name, "known", t))
			}
		}
		for _, t := range p.Unknown {
			if t.Author == "" {
				skipped.add("unknown text without ground truth")
				continue
			}
			docs = append(docs, panDocument(p, p.UnknownFolder, "unknown", t))
		}
	}
	return docs, skipped, nil
}

func panDocument(p PANProblem, folder, role string, t PANText) Document {
	topic := t.Topic
	if topic == "" {
		topic = p.Name
	}
	return Document{
		ID:     fmt.Sprintf("%s/%s/%s", p.Name, folder, t.File),
		Author: p.Name + "/" + t.Author,
		Topic:  topic,
		Text:   t.Text,
		Meta:   map[string]string{"problem": p.Name, "role": role, "file": t.File},
	}
}
