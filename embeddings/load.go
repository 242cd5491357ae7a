package embeddings

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Format names accepted by Load and LoadOptions.Format.
const (
	FormatAuto        = "auto"
	FormatWord2VecBin = "word2vec-bin"
	FormatText        = "text"
	FormatWink        = "wink"
	FormatCache       = "cache"
)

// formats lists the valid format names, for error messages.
var formats = []string{FormatAuto, FormatWord2VecBin, FormatText, FormatWink, FormatCache}

// LoadOptions selects an embedding file: the config table of the embeddings a run uses.
type LoadOptions struct {
	// Path of the vector file.
	Path string `toml:"path"`
	// Format is "auto" (by extension, see DetectFormat), "word2vec-bin", "text", "wink" or "cache".
	Format string `toml:"format"`
	// TopK keeps the first K rows (the K most frequent words of a frequency-ranked file); 0 keeps all.
	TopK int `toml:"top_k"`
}

// DefaultLoadOptions returns format "auto" and no vocabulary limit; Path must be set by the caller.
func DefaultLoadOptions() LoadOptions {
	return LoadOptions{Format: FormatAuto}
}

// LoadWith validates opts and loads the file they name (see Load).
func LoadWith(opts LoadOptions) (*Store, error) {
	if opts.Path == "" {
		return nil, errors.New("embeddings: path is empty: want the path of a vector file")
	}
	return Load(opts.Path, opts.Format, opts.TopK)
}

// Load reads the vector file at path in the given format ("auto", "word2vec-bin", "text", "wink",
// "cache") and keeps its first topK rows (topK ≤ 0 keeps all). Text and word2vec files stop
// reading after topK rows. Vectors are returned exactly as stored, never normalised.
// Truncated or malformed files are errors naming the file and the line, row or byte offset.
func Load(path, format string, topK int) (*Store, error) {
	if topK < 0 {
		return nil, fmt.Errorf("embeddings: top_k = %d: want 0 (all words) or a positive count", topK)
	}
	if format == "" || format == FormatAuto {
		detected, err := DetectFormat(path)
		if err != nil {
			return nil, err
		}
		format = detected
	}
	switch format {
	case FormatWord2VecBin:
		return readCompressible(path, topK, readWord2VecBinary)
	case FormatText:
		return readCompressible(path, topK, readText)
	case FormatWink:
		return readCompressible(path, topK, readWink)
	case FormatCache:
		return ReadCache(path, topK)
	}
	return nil, fmt.Errorf("embeddings: format = %q: want one of %s", format, strings.Join(formats, ", "))
}

// DetectFormat chooses a format from the file name (a trailing ".gz" is ignored): ".bin" →
// word2vec-bin; ".txt", ".vec" → text; ".json" → wink; ".emb" (the cache, see CacheExt) → cache.
func DetectFormat(path string) (string, error) {
	name := strings.TrimSuffix(strings.ToLower(path), ".gz")
	switch {
	case strings.HasSuffix(name, ".bin"):
		return FormatWord2VecBin, nil
	case strings.HasSuffix(name, ".txt"), strings.HasSuffix(name, ".vec"):
		return FormatText, nil
	case strings.HasSuffix(name, ".json"):
		return FormatWink, nil
	case strings.HasSuffix(name, CacheExt):
		return FormatCache, nil
	}
	return "", fmt.Errorf("embeddings: %s: cannot tell the format from the extension "+
		"(want .bin, .txt, .vec, .json, %s, optionally .gz): set format to one of %s",
		path, CacheExt, strings.Join(formats[1:], ", "))
}

// readCompressible opens path, transparently un-gzips it when it starts with the gzip magic
// bytes, and hands a buffered reader to read.
func readCompressible(path string, topK int, read func(r *bufio.Reader, path string, topK int) (*Store, error)) (*Store, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("embeddings: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	magic, _ := br.Peek(2)
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, &FormatError{Path: path, Msg: "bad gzip header: " + err.Error()}
		}
		defer gz.Close()
		br = bufio.NewReaderSize(gz, 1<<20)
	}
	return read(br, path, topK)
}

// FormatError reports a malformed vector file: the file, where in it (line, row, word or byte
// offset) and what was expected.
type FormatError struct {
	Path  string
	Where string // e.g. "line 7" or `row 3 (word "cat", byte offset 1290)`; empty for the whole file
	Msg   string
}

// Error formats the error as "embeddings: PATH: WHERE: MSG".
func (e *FormatError) Error() string {
	if e.Where == "" {
		return fmt.Sprintf("embeddings: %s: %s", e.Path, e.Msg)
	}
	return fmt.Sprintf("embeddings: %s: %s: %s", e.Path, e.Where, e.Msg)
}

// readErr turns an I/O error met while reading into a FormatError (unexpected EOF = truncation).
func readErr(path, where, expected string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &FormatError{Path: path, Where: where, Msg: "file ends early: want " + expected}
	}
	return &FormatError{Path: path, Where: where, Msg: fmt.Sprintf("read error while reading %s: %v", expected, err)}
}
