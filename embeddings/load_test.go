package embeddings

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sample is the reference content every format test writes and reads back.
var (
	sampleWords   = []string{"the", "cat", "café"}
	sampleVectors = []float32{0.5, -1.25, 3, 0, 2.5e-3, -7, 1, 1, -0.0625}
)

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func gzipped(t *testing.T, data []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// word2vecBinary encodes rows in the word2vec binary format with the given header.
func word2vecBinary(header string, words []string, vectors []float32, dim int) []byte {
	var buf bytes.Buffer
	buf.WriteString(header)
	for i, w := range words {
		buf.WriteString(w + " ")
		for _, v := range vectors[i*dim : (i+1)*dim] {
			binary.Write(&buf, binary.LittleEndian, v)
		}
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

func checkStore(t *testing.T, s *Store, words []string, vectors []float32) {
	t.Helper()
	if s.Len() != len(words) {
		t.Fatalf("got %d words %v, want %v", s.Len(), s.Words(), words)
	}
	for i, w := range words {
		if s.Word(i) != w {
			t.Errorf("row %d is %q, want %q", i, s.Word(i), w)
		}
	}
	for i, v := range vectors[:s.Len()*s.Dim()] {
		if s.Matrix()[i] != v {
			t.Fatalf("value %d is %v, want %v (vectors must stay raw)", i, s.Matrix()[i], v)
		}
	}
}

// wantError loads path and checks the error is a FormatError containing every fragment.
func wantError(t *testing.T, path, format string, fragments ...string) {
	t.Helper()
	_, err := Load(path, format, 0)
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("Load(%s) error = %v, want a FormatError", filepath.Base(path), err)
	}
	for _, f := range append(fragments, path) {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q does not mention %q", err, f)
		}
	}
}

func TestWord2VecBinary(t *testing.T) {
	data := word2vecBinary("3 3\n", sampleWords, sampleVectors, 3)
	for name, content := range map[string][]byte{"v.bin": data, "v.bin.gz": gzipped(t, data)} {
		s, err := Load(writeFile(t, name, content), FormatAuto, 0)
		if err != nil {
			t.Fatal(err)
		}
		checkStore(t, s, sampleWords, sampleVectors)
	}
	s, err := Load(writeFile(t, "v.bin", data), FormatWord2VecBin, 2)
	if err != nil {
		t.Fatal(err)
	}
	checkStore(t, s, sampleWords[:2], sampleVectors)
}

func TestWord2VecBinaryErrors(t *testing.T) {
	full := word2vecBinary("3 3\n", sampleWords, sampleVectors, 3)
	// Row 1 ("cat") starts after "3 3\n" (4 bytes) + "the " + 12 bytes + "\n" = byte 21; its
	// values start at byte 25. Cutting 5 bytes into them leaves 1 of 3 values plus one byte.
	// In a plain file the header is checked against the file's size first; in a gzip file (size
	// unknown) the truncation shows where the data ends.
	wantError(t, writeFile(t, "cut.bin", full[:25+5]), FormatWord2VecBin,
		"line 1", "header declares 3 rows of dimension 3, at least 14 bytes each, but only 26 bytes follow")
	wantError(t, writeFile(t, "cut.bin.gz", gzipped(t, full[:25+5])), FormatWord2VecBin,
		`row 1 (word "cat", byte offset 25)`, "file ends early", "3 float32 values (12 bytes), found 5 bytes")
	short := word2vecBinary("4 3\n", sampleWords, sampleVectors, 3)
	wantError(t, writeFile(t, "short.bin", short), FormatWord2VecBin, "line 1", "header declares 4 rows")
	wantError(t, writeFile(t, "short.bin.gz", gzipped(t, short)), FormatWord2VecBin,
		"row 3", "4 rows as declared by the header, found 3")
	wantError(t, writeFile(t, "empty.bin", nil), FormatWord2VecBin, "empty file")
	wantError(t, writeFile(t, "hdr.bin", []byte("x 3\n")), FormatWord2VecBin, "line 1", `want two integers "N D"`)
	nan := append([]float32(nil), sampleVectors...)
	nan[4] = float32(math.NaN())
	wantError(t, writeFile(t, "nan.bin", word2vecBinary("3 3\n", sampleWords, nan, 3)), FormatWord2VecBin,
		"row 1 (byte offset 21)", `word "cat" value 1 is NaN`)
	wantError(t, writeFile(t, "utf.bin", word2vecBinary("3 3\n", []string{"the", "c\xffat", "x"}, sampleVectors, 3)),
		FormatWord2VecBin, "row 1", "not valid UTF-8")
	wantError(t, writeFile(t, "dup.bin", word2vecBinary("3 3\n", []string{"the", "cat", "the"}, sampleVectors, 3)),
		FormatWord2VecBin, "row 2", `duplicate word "the" (first at row 0)`)
}

func TestTextFormats(t *testing.T) {
	glove := "the 0.5 -1.25 3\ncat 0 0.0025 -7\ncafé 1 1 -0.0625\n"
	fasttext := "3 3\nthe 0.5 -1.25 3 \ncat 0 2.5e-3 -7 \n\ncafé\t1 1 -0.0625\n"
	for name, content := range map[string]string{
		"glove.txt": glove, "ft.vec": fasttext, "noeol.txt": strings.TrimSuffix(glove, "\n"),
	} {
		s, err := Load(writeFile(t, name, []byte(content)), FormatAuto, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkStore(t, s, sampleWords, sampleVectors)
	}
	s, err := Load(writeFile(t, "glove.txt.gz", gzipped(t, []byte(glove))), FormatAuto, 2)
	if err != nil {
		t.Fatal(err)
	}
	checkStore(t, s, sampleWords[:2], sampleVectors)
}

func TestTextErrors(t *testing.T) {
	cases := []struct {
		name, content string
		fragments     []string
	}{
		{"empty", "", []string{"empty file"}},
		{"dims", "the 1 2 3\ncat 1 2\n", []string{"line 2", `word "cat" has 2 values, want 3 as on the first line`}},
		{"header-dims", "2 3\nthe 1 2 3 4\ncat 1 2 3\n", []string{"line 2", "want 3 as on the header on line 1"}},
		{"truncated", "3 2\nthe 1.5 2.5\ncat 3.5 4.5\n", []string{"line 3", "file ends after 2 rows, header declared 3"}},
		{"nan", "the 1 NaN\n", []string{"line 1", `word "the" value 1 is NaN`}},
		{"inf", "the 1 2\ncat +Inf 1\n", []string{"line 2", "value 0 is +Inf"}},
		{"number", "the 1 x2\n", []string{"line 1", `value 1 is "x2", want a number`}},
		{"utf8", "the 1 2\nc\xffat 3 4\n", []string{"line 2", "not valid UTF-8"}},
		{"dup", "the 1 2\ncat 3 4\nthe 5 6\n", []string{"line 3", `duplicate word "the" (first at row 0)`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantError(t, writeFile(t, c.name+".txt", []byte(c.content)), FormatText, c.fragments...)
		})
	}
}

func TestLoadRejectsBadOptions(t *testing.T) {
	if _, err := Load("x.bin", "glove", 0); err == nil || !strings.Contains(err.Error(), `format = "glove": want one of auto, word2vec-bin`) {
		t.Errorf("unknown format: %v", err)
	}
	if _, err := Load("x.bin", FormatAuto, -1); err == nil || !strings.Contains(err.Error(), "top_k = -1") {
		t.Errorf("negative top_k: %v", err)
	}
	if _, err := Load("vectors.dat", FormatAuto, 0); err == nil || !strings.Contains(err.Error(), "cannot tell the format") {
		t.Errorf("unknown extension: %v", err)
	}
}
