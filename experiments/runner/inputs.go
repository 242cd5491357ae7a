package runner

import (
	"context"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"dptext/corpus"
	"dptext/embeddings"
	"dptext/experiments/registry"
	"dptext/experiments/runconfig"
	"dptext/experiments/rundir"
	"dptext/internal/datasets"
	"dptext/internal/text"
)

// inputs are the documents and vectors a run reads, with the hashes for its manifest.
type inputs struct {
	docs   []corpus.Document
	store  *embeddings.Store
	inputs []rundir.Input
	// corpus describes the corpus read, for the manifest and captions.
	corpus *rundir.CorpusRead
	// cacheDir holds data derived from the inputs that outlives a run (e.g. SynTF's ℓ).
	cacheDir string
	// dataSums maps each data file of the components, by the path read, to its hash in the
	// manifest (registry.Env.InputSHA256).
	dataSums map[string]string
}

// loadInputs loads what a run reads: the corpus and vectors (loadCorpusAndVectors) and the
// hashes of the mechanisms' data files.
func loadInputs(ctx context.Context, cfg *runconfig.Config, opts RunOptions, logf func(string, ...any)) (*inputs, error) {
	in, err := loadCorpusAndVectors(ctx, cfg, opts.DataDir, logf)
	if err != nil {
		return nil, err
	}
	data, err := rundir.DataInputs(cfg)
	if err != nil {
		return nil, err
	}
	in.inputs = append(in.inputs, data...)
	in.dataSums = map[string]string{}
	for _, d := range data {
		in.dataSums[d.Read] = d.SHA256
	}
	return in, nil
}

// loadCorpusAndVectors loads the config's corpus and embeddings (dataDir "" is the default
// cache), fetching the default data if missing.
func loadCorpusAndVectors(ctx context.Context, cfg *runconfig.Config, dataDir string, logf func(string, ...any)) (*inputs, error) {
	in := &inputs{}
	if dataDir == "" {
		d, err := datasets.DefaultCacheDir()
		if err != nil {
			return nil, err
		}
		dataDir = d
	}
	in.cacheDir = filepath.Join(dataDir, "derived")
	logw := registry.LogWriter(logf)
	start := time.Now()
	c := cfg.Corpus
	format, ok := registry.LookupCorpusFormat(c.Format)
	if !ok {
		return nil, fmt.Errorf("corpus: unknown format %q", c.Format)
	}
	path := cfg.Resolve(c.Path)
	var fetched chan error // on a fresh machine the default vectors download while the corpus does
	if cfg.Embeddings.Path == "" && !datasets.Fetched(dataDir, registry.DefaultEmbeddings) {
		fetchCtx, cancel := context.WithCancel(ctx)
		fetched = make(chan error, 1)
		go func() { _, err := datasets.Ensure(fetchCtx, dataDir, registry.DefaultEmbeddings, logw); fetched <- err }()
		defer func() { // a failed corpus stops the download; LoadEmbeddings reports its own error
			if cancel(); fetched != nil {
				<-fetched
			}
		}()
	}
	if format.Dataset != "" {
		paths, err := datasets.Ensure(ctx, dataDir, format.Dataset, logw)
		if err != nil {
			return nil, err
		}
		path = paths.Corpus
	}
	// The readers take no context: a read that outlives a cancellation (a huge file) is
	// abandoned, and the command ends without waiting for it.
	type read struct {
		docs    []corpus.Document
		skipped corpus.Skipped
		sum     string
		n       int64
		err     error
	}
	done := make(chan read, 1)
	go func() {
		var r read
		files := corpus.NewRecorder(path)
		r.docs, r.skipped, r.err = format.Read(c, path, needsTopics(cfg), files)
		if r.err == nil {
			// The hash is of the bytes parsed (a file replaced or edited while it was read is
			// an error, never a fingerprint of other bytes), also for the default corpus (whose
			// cache Ensure checked against its pinned hash): an edit anywhere changes it.
			r.sum, r.n, r.err = files.Sum()
		}
		done <- r
	}()
	var rd read
	select {
	case rd = <-done:
	case <-ctx.Done():
		return nil, fmt.Errorf("corpus %s: %w", path, ctx.Err())
	}
	if rd.err != nil {
		return nil, rd.err
	}
	in.docs = rd.docs
	logSkipped(logf, "corpus", rd.skipped)
	in.corpus = rundir.DescribeCorpus(c, format, rd.docs, rd.skipped)
	sum, n := rd.sum, rd.n
	input := rundir.Input{Role: "corpus", Path: filepath.ToSlash(c.Path), SHA256: sum, Bytes: n}
	if format.Dataset != "" {
		input.Path = npmInput("corpus", format.Dataset).Path
	}
	in.inputs = append(in.inputs, input)
	logf("%s (%s)", in.corpus.Sentence(), time.Since(start).Round(time.Millisecond))
	start = time.Now()
	if fetched != nil {
		<-fetched
		fetched = nil
	}
	store, input, err := LoadEmbeddings(ctx, cfg.Embeddings, cfg.Resolve(cfg.Embeddings.Path), dataDir, logw)
	if err != nil {
		return nil, err
	}
	in.store = store
	in.inputs = append(in.inputs, input)
	logf("embeddings: %d words × %d dimensions (%s)", in.store.Len(), in.store.Dim(), time.Since(start).Round(time.Millisecond))
	return in, nil
}

// LoadEmbeddings loads the vectors e names (path: e.Path resolved by the caller; empty for the
// default data, fetched into dataDir if missing), applies the vocabulary filter and top_k, and
// returns the manifest entry of the file.
func LoadEmbeddings(ctx context.Context, e runconfig.EmbeddingsConfig, path, dataDir string, log io.Writer) (*embeddings.Store, rundir.Input, error) {
	var store *embeddings.Store
	var input rundir.Input
	if path == "" {
		paths, err := datasets.Ensure(ctx, dataDir, registry.DefaultEmbeddings, log)
		if err != nil {
			return nil, input, err
		}
		store = paths.Vectors // set when the cache could not be written
		if store == nil {
			s, sum, _, err := embeddings.LoadHashed(ctx, paths.Embeddings, embeddings.FormatCache, 0)
			if err != nil {
				return nil, input, err
			}
			// The manifest names the pinned package: the bytes loaded must be its cache's.
			if d, _ := datasets.Lookup(registry.DefaultEmbeddings); d.EmbeddingsSHA256 != "" && sum != d.EmbeddingsSHA256 {
				return nil, input, fmt.Errorf("embeddings: %s changed after it was verified (sha256 %.12s… loaded, want %.12s…): run again", paths.Embeddings, sum, d.EmbeddingsSHA256)
			}
			store = s
		}
		input = npmInput("embeddings", registry.DefaultEmbeddings)
	} else {
		topK := e.TopK
		if e.Vocabulary == runconfig.VocabularyWords {
			topK = 0 // filter first, then keep the K most frequent of the remaining words
		}
		// The hash is of the bytes loaded, on the same descriptor: a file replaced while it is
		// read cannot give the fingerprint of other bytes.
		s, sum, n, err := embeddings.LoadHashed(ctx, path, e.Format, topK)
		if err != nil {
			return nil, input, err
		}
		store = s
		input = rundir.Input{Role: "embeddings", Path: filepath.ToSlash(e.Path), SHA256: sum, Bytes: n}
	}
	store = restrictVocabulary(store, e)
	if store.Len() == 0 {
		return nil, input, fmt.Errorf("embeddings: no word left after the vocabulary filter %q and top_k %d", e.Vocabulary, e.TopK)
	}
	return store, input, nil
}

// npmInput names a default dataset in the manifest by its pinned package and tarball hash.
func npmInput(role, name string) rundir.Input {
	d, _ := datasets.Lookup(name)
	return rundir.Input{Role: role, Path: "npm:" + d.Package + "@" + d.Version, SHA256: d.SHA256}
}

// restrictVocabulary applies the vocabulary filter and top_k. With vocabulary = "words" only
// rows that are one normalised word survive (no punctuation such as "," — the GloVe vectors
// have them —, no stopwords, no upper case), since the mechanisms' inputs are normalised words
// and their outputs should be too.
func restrictVocabulary(s *embeddings.Store, e runconfig.EmbeddingsConfig) *embeddings.Store {
	if e.Vocabulary == runconfig.VocabularyWords {
		kept := 0 // Filter visits the rows in order: past top_k survivors, no word is normalised
		s = s.Filter(func(w string) bool {
			if e.TopK > 0 && kept == e.TopK {
				return false
			}
			toks := text.Normalize(text.Words(w))
			ok := len(toks) == 1 && toks[0] == w
			if ok {
				kept++
			}
			return ok
		})
	}
	return s.TopK(e.TopK)
}

// needsTopics reports whether the run scores topics: the authorship protocol balances its
// sets over topics, and a topic classifier needs every document's topic.
func needsTopics(c *runconfig.Config) bool {
	if c.Protocol.Kind == runconfig.ProtocolAuthorship {
		return true
	}
	for _, s := range c.Scorers {
		if registry.Scorers[s.Name].Task == registry.TaskTopic {
			return true
		}
	}
	return false
}

func logSkipped(logf func(string, ...any), what string, s corpus.Skipped) {
	for _, reason := range slices.Sorted(maps.Keys(s)) {
		logf("%s: %d item(s): %s", what, s[reason], reason)
	}
}
