package embeddings

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"dptext/internal/filehash"
)

// Adding an embeddings format (ARCHITECTURE.md) is one entry of Formats: here a CSV layout
// "word,v1,v2,…", loaded by name and detected by its extension.
func TestAddingAFormat(t *testing.T) {
	saved := Formats
	t.Cleanup(func() { Formats = saved })
	Formats = append(slices.Clone(Formats), Format{Name: "csv", Description: "example: word,v1,v2,… per line", Extensions: []string{".csv"},
		read: func(_ context.Context, f *filehash.File, path string, topK int) (*Store, error) {
			var words []string
			var vecs []float32
			dim := 0
			sc := bufio.NewScanner(f)
			for sc.Scan() && (topK <= 0 || len(words) < topK) {
				p := strings.Split(sc.Text(), ",")
				dim = len(p) - 1
				words = append(words, p[0])
				for _, s := range p[1:] {
					v, err := strconv.ParseFloat(s, 32)
					if err != nil {
						return nil, err
					}
					vecs = append(vecs, float32(v))
				}
			}
			return New(words, dim, vecs)
		}})
	path := filepath.Join(t.TempDir(), "v.csv")
	if err := os.WriteFile(path, []byte("sea,1,0\nland,0,1\nsky,1,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path, FormatAuto, 2)
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 2 || s.Dim() != 2 || s.Word(1) != "land" {
		t.Fatalf("loaded %d words of dimension %d", s.Len(), s.Dim())
	}
	if !slices.Contains(FormatNames(), "csv") {
		t.Errorf("FormatNames lacks the new format: %v", FormatNames())
	}
}
