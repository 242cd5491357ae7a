package runner

import (
	"context"
	"sort"

	"dptext/embeddings"
	"dptext/experiments/protocol"
	"dptext/experiments/runconfig"
	"dptext/internal/text"
)

// TrainingData is what a model trained ahead of a run (e.g. ER-AE) may learn from.
type TrainingData struct {
	// Embeddings are the config's word vectors (top_k applied).
	Embeddings *embeddings.Store
	// Docs are the normalised documents of every author who is in no set of any repeat: text
	// no evaluation author wrote (with resample = "authors", the authors never drawn).
	Docs [][]string
	// Lowercased are the same documents with their stopwords kept (text.LowercaseText), for
	// a model that learns to generate function words.
	Lowercased [][]string
	// Authors are those authors, sorted; Excluded counts the evaluation authors left out.
	Authors  []string
	Excluded int
}

// LoadTrainingData loads the config's corpus and embeddings, splits it as Run does, and returns
// the documents of the authors outside every set and repeat (dataDir "" is the default cache).
func LoadTrainingData(ctx context.Context, cfg *runconfig.Config, dataDir string, logf func(string, ...any)) (*TrainingData, error) {
	// Only the corpus and the vectors: the mechanisms' data files may include the model this
	// training is about to write.
	in, err := loadCorpusAndVectors(ctx, cfg, dataDir, logf)
	if err != nil {
		return nil, err
	}
	sets, err := protocol.Split(cfg, in.docs, logf)
	if err != nil {
		return nil, err
	}
	eval := map[string]bool{}
	for _, s := range sets {
		for _, d := range append([]*protocol.SetData{s}, s.Draws...) {
			for _, a := range d.Authors {
				eval[a] = true
			}
		}
	}
	td := &TrainingData{Embeddings: in.store, Excluded: len(eval)}
	seen := map[string]bool{}
	for _, d := range in.docs {
		if eval[d.Author] {
			continue
		}
		if doc := text.NormalizeText(d.Text); len(doc) > 0 {
			td.Docs = append(td.Docs, doc)
			td.Lowercased = append(td.Lowercased, text.LowercaseText(d.Text))
		}
		if !seen[d.Author] {
			seen[d.Author] = true
			td.Authors = append(td.Authors, d.Author)
		}
	}
	sort.Strings(td.Authors)
	return td, nil
}
