package main

import (
	"path/filepath"
	"strings"
	"testing"

	"dptext/embeddings"
)

// TestParseSnapshotSteps: --snapshot-at maps each step to OUT with -stepN before its extension,
// and refuses a step that is not a number in [1, steps) with an error naming the flag and the
// valid range.
func TestParseSnapshotSteps(t *testing.T) {
	out := filepath.Join("models", "erae.model")
	got, err := parseSnapshotSteps("1500, 3000", 4000, out)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]string{1500: filepath.Join("models", "erae-step1500.model"), 3000: filepath.Join("models", "erae-step3000.model")}
	if len(got) != len(want) || got[1500] != want[1500] || got[3000] != want[3000] {
		t.Errorf("parseSnapshotSteps = %v, want %v", got, want)
	}
	if got, err := parseSnapshotSteps("", 4000, out); err != nil || len(got) != 0 {
		t.Errorf("empty list: %v, %v; want no snapshots", got, err)
	}
	for _, bad := range []string{"4000", "0", "-5", "x", "1500,,2000"} {
		if _, err := parseSnapshotSteps(bad, 4000, out); err == nil || !strings.Contains(err.Error(), "--snapshot-at") || !strings.Contains(err.Error(), "3999") {
			t.Errorf("--snapshot-at %q: err = %v, want an error naming the flag and the range 1 to 3999", bad, err)
		}
	}
}

// TestHasStopwordVectors: --function-words is refused for vectors without any stopword row (the
// default vocabulary filter's), accepted when one stopword has a row.
func TestHasStopwordVectors(t *testing.T) {
	for _, c := range []struct {
		words []string
		want  bool
	}{{[]string{"nation", "peace"}, false}, {[]string{"nation", "the"}, true}} {
		store, err := embeddings.New(c.words, 2, make([]float32, 2*len(c.words)))
		if err != nil {
			t.Fatal(err)
		}
		if got := hasStopwordVectors(store); got != c.want {
			t.Errorf("words %q: hasStopwordVectors = %v, want %v", c.words, got, c.want)
		}
	}
}
