package embeddings

import (
	"bufio"
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fuzz targets feed arbitrary bytes to each reader, with the file size known (a plain file)
// and unknown (as for a gzip file), and check that a reader never panics, that every error is a
// FormatError naming the file, and that every store it returns is well formed. Seeds: the
// formats' examples from the other tests plus the corrupt headers of issue 13, and whatever
// `go test -fuzz` has saved under testdata/fuzz.

const fuzzPath = "fuzz-input"

// fuzzRead runs read on data as a source of known or unknown size and checks the outcome.
func fuzzRead(t *testing.T, read func(*source) (*Store, error), data []byte, topK int, sizeKnown bool) {
	src := &source{r: bufio.NewReaderSize(bytes.NewReader(data), 4096), path: fuzzPath, topK: topK, size: -1}
	if sizeKnown {
		src.size = int64(len(data))
	}
	s, err := read(src)
	checkOutcome(t, s, err, topK)
}

// checkOutcome checks a reader's result: a FormatError naming the file, or a valid store.
func checkOutcome(t *testing.T, s *Store, err error, topK int) {
	t.Helper()
	if err != nil {
		var fe *FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), fuzzPath) {
			t.Fatalf("error %v: want a FormatError naming the file", err)
		}
		return
	}
	if s.Len() == 0 || s.Dim() <= 0 || len(s.Matrix()) != s.Len()*s.Dim() {
		t.Fatalf("store of %d words × %d dims with %d values", s.Len(), s.Dim(), len(s.Matrix()))
	}
	if topK > 0 && s.Len() > topK {
		t.Fatalf("%d rows with top_k %d", s.Len(), topK)
	}
	for i, v := range s.Matrix() {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			t.Fatalf("value %d is %v", i, v)
		}
	}
	for i, w := range s.Words() {
		if j, ok := s.Lookup(w); !ok || j != i {
			t.Fatalf("word %q of row %d looks up as %d, %v", w, i, j, ok)
		}
	}
}

func FuzzReadText(f *testing.F) {
	for _, seed := range []string{
		"the 0.5 -1.25 3\ncat 0 0.0025 -7\ncafé 1 1 -0.0625\n",
		"3 3\nthe 0.5 -1.25 3 \ncat 0 2.5e-3 -7 \n\ncafé\t1 1 -0.0625\n",
		"\xef\xbb\xbf2 2\na 1 2\nb 3 4",
		"3 4611686018427387904\nthe 1 2 3 4\n",
		"4611686018427387904 4\nthe 1 2 3 4\n",
		"-3 2\nthe 1 2\n", "3 2 1\nthe 1 2\n", "1 1e40\n", "the 1 NaN\n", "",
	} {
		f.Add([]byte(seed), 0)
		f.Add([]byte(seed), 1)
	}
	f.Fuzz(func(t *testing.T, data []byte, topK int) {
		topK = max(topK, 0)
		fuzzRead(t, readText, data, topK, true)
		fuzzRead(t, readText, data, topK, false)
	})
}

func FuzzReadWord2VecBinary(f *testing.F) {
	for _, seed := range [][]byte{
		word2vecBinary("3 3\n", sampleWords, sampleVectors, 3),
		word2vecBinary("2 3\n", sampleWords, sampleVectors, 3),
		word2vecBinary("3 2\n", sampleWords[:2], sampleVectors, 3),
		append([]byte("\xef\xbb\xbf"), word2vecBinary("1 3\n", sampleWords[:1], sampleVectors, 3)...),
		[]byte("1 1000000000\nab 0123\n"),
		[]byte("1 4611686018427387904\nthe 0000\n"),
		[]byte("4611686018427387904 1\nab \x00\x00\x00\x00"),
		[]byte("-1 2\n"), []byte("1 2 3\n"), []byte("1 1\n\n\n"), nil,
	} {
		f.Add(seed, 0)
		f.Add(seed, 1)
	}
	f.Fuzz(func(t *testing.T, data []byte, topK int) {
		topK = max(topK, 0)
		fuzzRead(t, readWord2VecBinary, data, topK, true)
		fuzzRead(t, readWord2VecBinary, data, topK, false)
	})
}

func FuzzReadWink(f *testing.F) {
	for _, seed := range []string{
		winkJSON,
		`{"dimensions":1,"words":["a"],"vectors":{"a":[1,1,0]}}`,
		`{"vectors":{"a":[1,2]},"words":["a"],"dimensions":2}`,
		`{"dimensions":4611686018427387904,"words":["a","b"],"vectors":{"a":[1]}}`,
		"\xef\xbb\xbf{\"dimensions\":1,\"words\":[\"\\u00e9\"],\"vectors\":{\"\\u00e9\":[1e39]}}",
		`{"dimensions":1,"words":["a"],"vectors":{"a":[[[[1]]]]}}`, `[]`, ``,
	} {
		f.Add([]byte(seed), 0)
		f.Add([]byte(seed), 1)
	}
	f.Fuzz(func(t *testing.T, data []byte, topK int) {
		topK = max(topK, 0)
		fuzzRead(t, readWink, data, topK, true)
	})
}

// FuzzReadCache checks the cache reader, which reads a file by path: the input is written to a
// temporary file first.
func FuzzReadCache(f *testing.F) {
	var good bytes.Buffer
	if err := writeCacheTo(&good, sampleStore(f)); err != nil {
		f.Fatal(err)
	}
	f.Add(good.Bytes(), 0)
	f.Add(good.Bytes(), 2)
	f.Add(good.Bytes()[:40], 0)
	f.Add([]byte(cacheMagic), 0)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, topK int) {
		topK = max(topK, 0)
		path := filepath.Join(dir, fuzzPath+CacheExt)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := ReadCache(path, topK)
		checkOutcome(t, s, err, topK)
	})
}
