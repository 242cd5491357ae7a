package embeddings

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"testing"
)

// loadBounded loads path and returns the bytes allocated while loading and the error.
func loadBounded(t *testing.T, path, format string) (uint64, error) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Load(path, format, 0)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, err
}

// TestHugeHeadersFailFastWithoutAllocating: headers that promise more than the file holds are
// errors naming the file and the header, found before any buffer is sized from them (they used
// to panic in makeslice or allocate 8 GB).
func TestHugeHeadersFailFastWithoutAllocating(t *testing.T) {
	const limit = 4 << 20 // bytes a load of a tiny file may allocate (its read buffer is 1 MiB)
	cases := []struct {
		name, format string
		data         []byte
		fragments    []string
	}{
		{"text-dim.vec", FormatText, []byte("3 4611686018427387904\nthe 1 2 3 4\n"),
			[]string{"line 1", "4611686018427387904"}},
		{"text-rows.vec", FormatText, []byte("4611686018427387904 4\nthe 1 2 3 4\n"),
			[]string{"line 1", "4611686018427387904 rows"}},
		{"bin-dim.bin", FormatWord2VecBin, []byte("1 4611686018427387904\nthe 0000\n"),
			[]string{"line 1", "4611686018427387904"}},
		{"bin-1e9.bin", FormatWord2VecBin, []byte("1 1000000000\nab 0123\n"),
			[]string{"line 1", "1000000000"}},
		{"bin-none.bin", FormatWord2VecBin, []byte("0 16777216\n"), []string{"no vectors in file"}},
		{"bin-rows.bin", FormatWord2VecBin, append([]byte("4611686018427387904 1\nab "), 0, 0, 0, 0),
			[]string{"line 1", "4611686018427387904 rows"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeFile(t, c.name, c.data)
			allocated, err := loadBounded(t, path, c.format)
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error = %v, want a FormatError", err)
			}
			for _, f := range append(c.fragments, path) {
				if !strings.Contains(err.Error(), f) {
					t.Errorf("error %q does not mention %q", err, f)
				}
			}
			if allocated > limit {
				t.Errorf("allocated %d bytes for a %d-byte file, want at most %d", allocated, len(c.data), limit)
			}
		})
	}
}

// TestHugeHeadersInGzipGrowWithTheData: in a gzip file the size is unknown in advance, so the
// buffers grow with the rows that arrive and a lying header costs memory in proportion to the
// data, not to the header.
func TestHugeHeadersInGzipGrowWithTheData(t *testing.T) {
	const limit = 8 << 20
	for _, c := range []struct{ name, format, data string }{
		{"bin-1e9.bin.gz", FormatWord2VecBin, "1 1000000000\nab 0123\n"},
		{"bin-dim.bin.gz", FormatWord2VecBin, "1 16777216\nab 0123\n"},
		{"text-rows.vec.gz", FormatText, "1000000000 300\nthe 1 2 3\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeFile(t, c.name, gzipped(t, []byte(c.data)))
			allocated, err := loadBounded(t, path, c.format)
			var fe *FormatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), path) {
				t.Fatalf("error = %v, want a FormatError naming the file", err)
			}
			if allocated > limit {
				t.Errorf("allocated %d bytes for a %d-byte file, want at most %d", allocated, len(c.data), limit)
			}
		})
	}
}

// TestByteOrderMarkIsSkipped: a UTF-8 byte-order mark before the content is accepted in every
// format (it used to become part of the first word or break the header), and byte offsets still
// count from the start of the file.
func TestByteOrderMarkIsSkipped(t *testing.T) {
	const bom = "\xef\xbb\xbf"
	for name, data := range map[string][]byte{
		"glove.txt": []byte(bom + "the 0.5 -1.25 3\ncat 0 0.0025 -7\ncafé 1 1 -0.0625\n"),
		"ft.vec":    []byte(bom + "3 3\nthe 0.5 -1.25 3\ncat 0 0.0025 -7\ncafé 1 1 -0.0625\n"),
		"w2v.bin":   append([]byte(bom), word2vecBinary("3 3\n", sampleWords, sampleVectors, 3)...),
		"wink.json": []byte(bom + winkJSON),
	} {
		s, err := Load(writeFile(t, name, data), FormatAuto, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkStore(t, s, sampleWords, sampleVectors)
	}
	nan := append([]float32(nil), sampleVectors...)
	nan[4] = float32(math.NaN())
	wantError(t, writeFile(t, "nan.bin", append([]byte(bom), word2vecBinary("3 3\n", sampleWords, nan, 3)...)),
		FormatWord2VecBin, "row 1 (byte offset 24)", `word "cat" value 1 is NaN`)
}

// TestBadHeadersGetHeaderErrors: a negative, three-field or out-of-range header is reported as
// a header problem on line 1, not as a misleading error about a later row.
func TestBadHeadersGetHeaderErrors(t *testing.T) {
	for _, c := range []struct {
		name, format, data string
		fragments          []string
	}{
		{"neg-rows.vec", FormatText, "-3 2\nthe 1 2\n", []string{"line 1", "header declares -3 rows, want N ≥ 0"}},
		{"neg-dim.vec", FormatText, "3 -2\nthe 1 2\n", []string{"line 1", "header declares -2 dimensions, want D > 0"}},
		{"zero-dim.vec", FormatText, "3 0\nthe 1 2\n", []string{"line 1", "header declares 0 dimensions"}},
		{"overflow.vec", FormatText, "99999999999999999999 2\nthe 1 2\n", []string{"line 1", `header "99999999999999999999 2"`}},
		{"three.vec", FormatText, "3 2 1\nthe 1.5 2.5\ncat 3.5 4.5\nfoo 5.5 6.5\n",
			[]string{"line 1", `"3 2 1" looks like a header`, `exactly two integers "N D"`}},
		{"four.vec", FormatText, "3 2 1 0\nthe 1.5 2.5\ncat 3.5 4.5\nfoo 5.5 6.5\n",
			[]string{"line 1", `"3 2 1 0" looks like a header`, "line 2 has 2"}},
		{"neg-rows.bin", FormatWord2VecBin, "-3 2\nthe 12345678\n", []string{"line 1", "header declares -3 rows, want N ≥ 0"}},
		{"three.bin", FormatWord2VecBin, "3 2 1\nthe 12345678\n", []string{"line 1", "header has 3 fields"}},
		{"dim.bin", FormatWord2VecBin, "1 99999999\nthe 12345678\n", []string{"line 1", "header declares 99999999 dimensions, want at most 16777216"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantError(t, writeFile(t, c.name, []byte(c.data)), c.format, c.fragments...)
		})
	}
}

// TestBinaryRowCountAndDimensionMustMatch: a binary file with more rows than its header, or
// whose header's dimension is off, is an error that says so (the extra rows used to be ignored
// silently; a wrong dimension gave a puzzling error about a word).
func TestBinaryRowCountAndDimensionMustMatch(t *testing.T) {
	more := word2vecBinary("2 3\n", sampleWords, sampleVectors, 3)
	wantError(t, writeFile(t, "more.bin", more), FormatWord2VecBin,
		"byte offset 38", "more data after the 2 rows declared by the header")
	if s, err := Load(writeFile(t, "topk.bin", more), FormatWord2VecBin, 1); err != nil || s.Len() != 1 {
		t.Errorf("top_k 1 of a file with extra rows: %v, want 1 row (reading stops after top_k rows)", err)
	}
	words := []string{"the", "cat", "café", "dog", "emu"}
	vectors := make([]float32, 5*4)
	for i := range vectors {
		vectors[i] = 0.25 + float32(i)/8
	}
	file := word2vecBinary("5 4\n", words, vectors, 4)
	for _, header := range []string{"5 3\n", "5 5\n"} {
		data := append([]byte(header), file[len("5 4\n"):]...)
		name := "dim" + header[2:3] + ".bin"
		for _, variant := range []struct {
			name string
			data []byte
		}{{name, data}, {name + ".gz", gzipped(t, data)}} {
			_, err := Load(writeFile(t, variant.name, variant.data), FormatWord2VecBin, 0)
			if err == nil || !strings.Contains(err.Error(), "dimension "+header[2:3]) {
				t.Errorf("%s: error %v, want one that names the header's dimension %s", variant.name, err, header[2:3])
			}
		}
	}
}

// TestCorruptGzipIsACompressionError: damage in the compressed data of a .gz vector file is
// reported as corrupt or truncated gzip data, not as malformed vectors.
func TestCorruptGzipIsACompressionError(t *testing.T) {
	var text strings.Builder
	text.WriteString("200 3\n")
	for i := range 200 {
		fmt.Fprintf(&text, "w%d %d.25 -1.5 %d\n", i, i, 2*i)
	}
	good := gzipped(t, []byte(text.String()))
	if _, err := Load(writeFile(t, "good.vec.gz", good), FormatText, 0); err != nil {
		t.Fatal(err)
	}
	cut := good[:len(good)/2]
	wantError(t, writeFile(t, "cut.vec.gz", cut), FormatText, "gzip stream ends early", "truncated")
	badCRC := append([]byte(nil), good...)
	badCRC[len(badCRC)-6] ^= 0xff // the CRC-32 of the uncompressed data
	wantError(t, writeFile(t, "crc.vec.gz", badCRC), FormatText, "corrupt gzip data")
	for i := 20; i < len(good)-8; i += 7 {
		flipped := append([]byte(nil), good...)
		flipped[i] ^= 0x10
		_, err := Load(writeFile(t, "flip.vec.gz", flipped), FormatText, 0)
		if err == nil || !strings.Contains(err.Error(), "gzip") {
			t.Fatalf("bit flip at byte %d: error %v, want a gzip error", i, err)
		}
	}
}

// TestLoadContextStopsWhenCancelled: a cancelled load stops with an error that wraps the
// context's and names the file.
func TestLoadContextStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, data := range map[string][]byte{
		"v.txt":    []byte("the 1 2\n"),
		"v.bin":    word2vecBinary("3 3\n", sampleWords, sampleVectors, 3),
		"w.json":   []byte(winkJSON),
		"v.vec.gz": gzipped(t, []byte("1 2\nthe 1 2\n")),
	} {
		path := writeFile(t, name, data)
		_, err := LoadContext(ctx, path, FormatAuto, 0)
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v, want context.Canceled naming the file", name, err)
		}
	}
}

// failingReader fails every read with err.
type failingReader struct{ err error }

func (f failingReader) Read([]byte) (int, error) { return 0, f.err }

// TestCancelInsideGzipIsNoCompressionError: a cancellation that interrupts the decompressor is
// reported as a cancellation, not as corrupt gzip data.
func TestCancelInsideGzipIsNoCompressionError(t *testing.T) {
	data := gzipped(t, []byte(strings.Repeat("the 1 2\n", 1000)))
	cancelled := &CanceledError{Path: "v.vec.gz", Err: context.Canceled}
	zr, err := gzip.NewReader(io.MultiReader(bytes.NewReader(data[:30]), failingReader{cancelled}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(&gzipReader{zr: zr, path: "v.vec.gz"})
	if !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "gzip") {
		t.Errorf("error %v, want the cancellation", err)
	}
}
