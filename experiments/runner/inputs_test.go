package runner

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"dptext/corpus"
	"dptext/experiments/registry"
	"dptext/experiments/runconfig"
	"dptext/internal/filehash"
	"dptext/internal/fixtures"
)

// withCorpusFormat registers a corpus format for the test.
func withCorpusFormat(t *testing.T, f registry.CorpusFormat) {
	saved := registry.CorpusFormats
	registry.CorpusFormats = append(slices.Clone(registry.CorpusFormats), f)
	t.Cleanup(func() { registry.CorpusFormats = saved })
}

// fixtureConfigFormat is fixtureConfig with the corpus read by format.
func fixtureConfigFormat(t *testing.T, format, corpusPath, vecPath string) *runconfig.Config {
	t.Helper()
	src := strings.Replace(fixtures.Experiment(corpusPath, vecPath), `format = "jsonl"`, `format = "`+format+`"`, 1)
	cfg, err := runconfig.ParseConfig(filepath.Join(t.TempDir(), "fixture.toml"), src)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// The corpus replaced (`mv new old`) between the open and the end of reading: the manifest's
// hash is that of the bytes parsed (the old file's), never the new file's. The reader here is
// JSON Lines through the Recorder with the swap in its middle. The mutant, hashing the path
// after reading (rundir.HashPath, as loadCorpusAndVectors did: its manifest then named the new
// file while every cell came from the old, and a rerun on the new file reused them), gives the
// new file's hash, which the test shows differs.
func TestCorpusFingerprintIsOfTheBytesParsed(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	old, err := os.ReadFile(corpusPath)
	if err != nil {
		t.Fatal(err)
	}
	oldCopy := filepath.Join(t.TempDir(), "old.jsonl")
	os.WriteFile(oldCopy, old, 0o644)
	newFile := filepath.Join(filepath.Dir(corpusPath), "new.jsonl")
	os.WriteFile(newFile, []byte(strings.ReplaceAll(string(old), "author-sea-0", "author-sea-9")), 0o644)
	withCorpusFormat(t, registry.CorpusFormat{Name: "swapped-jsonl", Description: "test: JSON Lines replaced while read", Caption: registry.PathCaption,
		Read: func(_ registry.CorpusConfig, path string, _ bool, files *filehash.Recorder) ([]corpus.Document, corpus.Skipped, error) {
			f, err := files.Open(path, corpus.MaxCorpusBytes, "a corpus file")
			if err != nil {
				return nil, nil, err
			}
			defer f.Close()
			head := make([]byte, 100)
			if _, err := io.ReadFull(f, head); err != nil {
				return nil, nil, err
			}
			if err := os.Rename(newFile, path); err != nil { // mv new old
				return nil, nil, err
			}
			rest, err := io.ReadAll(f)
			if err != nil {
				return nil, nil, err
			}
			if err := f.Finish(); err != nil {
				return nil, nil, err
			}
			parsed := filepath.Join(t.TempDir(), "parsed.jsonl")
			os.WriteFile(parsed, append(head, rest...), 0o644)
			return corpus.ReadJSONL(parsed, corpus.JSONLOptions{})
		}})
	cfg := fixtureConfigFormat(t, "swapped-jsonl", corpusPath, vecPath)
	in, err := loadCorpusAndVectors(context.Background(), cfg, t.TempDir(), func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range in.docs {
		if d.Author == "author-sea-9" {
			t.Fatalf("the documents come from the new file: the swap came before the open")
		}
	}
	want, wantN, _ := filehash.Sum(oldCopy)
	got := in.inputs[0]
	if got.Role != "corpus" || got.SHA256 != want || got.Bytes != wantN {
		t.Errorf("manifest input %+v, want the corpus with the hash of the bytes parsed %s (%d bytes)", got, want, wantN)
	}
	if byPath, _, _ := filehash.Sum(corpusPath); byPath == got.SHA256 {
		t.Errorf("mutant (hash by path after reading) gives the same hash: the swap did not happen")
	}
}

// A corpus that became a named pipe after the config was checked is refused by the read at
// once (it blocked until Ctrl-C); `check` refuses it too, with the same words.
func TestCorpusAtAPipeIsRefusedAtOnce(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	cfg := fixtureConfig(t, corpusPath, vecPath)
	os.Remove(corpusPath)
	if err := syscall.Mkfifo(corpusPath, 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := loadCorpusAndVectors(context.Background(), cfg, t.TempDir(), func(string, ...any) {})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file (a pipe)") {
			t.Errorf("read of a pipe: %v, want it refused as not a regular file (a pipe)", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the read of a named pipe blocks")
	}
	if _, err := runconfig.ParseConfig(cfg.Path, cfg.Text); err == nil || !strings.Contains(err.Error(), "not a regular file (a pipe)") {
		t.Errorf("check of a config whose corpus is a pipe: %v", err)
	}
}
