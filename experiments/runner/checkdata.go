package runner

import (
	"context"
	"fmt"
	"slices"

	"dptext/corpus"
	"dptext/experiments/protocol"
	"dptext/experiments/registry"
	"dptext/experiments/runconfig"
	"dptext/internal/datasets"
)

// CheckData reads cfg's corpus and draws its sets as `run` does (protocol.Split), and checks
// the draws against the config (runconfig.CheckDraws): what `dptext check` refuses beyond the
// config's own values, so that no error about the config comes after the first cell. dataDir ""
// is the default cache; the default corpus, when not fetched yet, is fetched. The embeddings are
// not read.
func CheckData(ctx context.Context, cfg *runconfig.Config, dataDir string, logf func(string, ...any)) error {
	sets, err := drawConfigSets(ctx, cfg, dataDir, logf)
	if err != nil {
		return err
	}
	return cfg.CheckDraws(drawFacts(sets))
}

// drawConfigSets reads cfg's corpus (not its embeddings) and draws its sets as `run` does; an
// error of the draw is placed at the config's line that chose it (runconfig.DataError).
func drawConfigSets(ctx context.Context, cfg *runconfig.Config, dataDir string, logf func(string, ...any)) ([]*protocol.SetData, error) {
	if dataDir == "" {
		d, err := datasets.DefaultCacheDir()
		if err != nil {
			return nil, err
		}
		dataDir = d
	}
	c := cfg.Corpus
	format, ok := registry.LookupCorpusFormat(c.Format)
	if !ok {
		return nil, fmt.Errorf("corpus: unknown format %q", c.Format)
	}
	path := cfg.Resolve(c.Path)
	if format.Dataset != "" {
		paths, err := datasets.Ensure(ctx, dataDir, format.Dataset, registry.LogWriter(logf))
		if err != nil {
			return nil, err
		}
		path = paths.Corpus
	}
	docs, _, err := format.Read(c, path, needsTopics(cfg), corpus.NewRecorder(path))
	if err != nil {
		return nil, cfg.DataError(err)
	}
	sets, err := protocol.Split(cfg, docs, logf)
	if err != nil {
		return nil, cfg.DataError(err)
	}
	return sets, nil
}

// drawFacts lists what runconfig.CheckDraws needs of every draw of sets.
func drawFacts(sets []*protocol.SetData) []runconfig.DrawFacts {
	var facts []runconfig.DrawFacts
	for _, s := range sets {
		all := map[string]bool{}
		for _, d := range s.AllDraws() {
			for _, a := range d.EvalAuthors {
				all[a] = true
			}
		}
		for _, d := range s.AllDraws() {
			f := runconfig.DrawFacts{Set: s.Name, Authors: len(slices.Compact(slices.Sorted(slices.Values(d.EvalAuthors)))), SetAuthors: len(all), Documents: len(d.Eval)}
			for i, doc := range d.Eval {
				if i == 0 || len(doc) < f.MinLength {
					f.MinLength = len(doc)
				}
			}
			facts = append(facts, f)
		}
	}
	return facts
}
