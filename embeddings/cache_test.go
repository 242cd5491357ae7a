package embeddings

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func sampleStore(t testing.TB) *Store {
	s, err := New(sampleWords, 3, sampleVectors)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCacheRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v"+CacheExt)
	if err := WriteCache(path, sampleStore(t)); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path, FormatAuto, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkStore(t, s, sampleWords, sampleVectors)
	s, err = Load(path, FormatCache, 2)
	if err != nil {
		t.Fatal(err)
	}
	checkStore(t, s, sampleWords[:2], sampleVectors)
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("WriteCache left %d files, want only the cache", len(entries))
	}
}

func TestCacheRejectsDamage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v"+CacheExt)
	if err := WriteCache(path, sampleStore(t)); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)-10] ^= 1 // inside the last vector
	version := append([]byte(nil), good...)
	version[8] = 9
	for name, c := range map[string]struct {
		data     []byte
		fragment string
	}{
		"empty":     {nil, "empty file"},
		"magic":     {[]byte("GLOVE..."), "not a dptext embedding cache"},
		"truncated": {good[:len(good)-7], "does not match the header"},
		"longer":    {append(append([]byte(nil), good...), 0), "does not match the header"},
		"flipped":   {flipped, "corrupt cache"},
		"version":   {version, "cache version 9, want 1"},
	} {
		t.Run(name, func(t *testing.T) {
			damaged := writeFile(t, name+CacheExt, c.data)
			wantError(t, damaged, FormatCache, c.fragment)
			var fe *FormatError
			if err := VerifyCache(damaged); !errors.As(err, &fe) || !strings.Contains(err.Error(), c.fragment) {
				t.Errorf("VerifyCache: %v, want a FormatError mentioning %q", err, c.fragment)
			}
		})
	}
	if err := VerifyCache(path); err != nil {
		t.Errorf("VerifyCache of the intact cache: %v", err)
	}
}

// BenchmarkReadCache loads a cache of 100,000 words × 100 dimensions (the size of the paper's
// vocabulary), the load every run pays.
func BenchmarkReadCache(b *testing.B) {
	const rows, dim = 100_000, 100
	words := make([]string, rows)
	vectors := make([]float32, rows*dim)
	for i := range words {
		words[i] = "w" + strconv.Itoa(i)
		for j := 0; j < dim; j++ {
			vectors[i*dim+j] = float32(i%97) - float32(j)/7
		}
	}
	s, err := New(words, dim, vectors)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "bench"+CacheExt)
	if err := WriteCache(path, s); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(rows * dim * 4))
	for b.Loop() {
		if _, err := ReadCache(path, 0); err != nil {
			b.Fatal(err)
		}
	}
}
