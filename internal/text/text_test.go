package text

import (
	"reflect"
	"slices"
	"testing"
)

func TestTokenizeKeepsOffsetsAndInnerApostrophes(t *testing.T) {
	s := "Don't panic — it's a well-known “fact”, 42 times!"
	toks := Tokenize(s)
	var got []string
	for _, tk := range toks {
		if s[tk.Start:tk.End] != tk.Text {
			t.Fatalf("token %q has span %d:%d = %q", tk.Text, tk.Start, tk.End, s[tk.Start:tk.End])
		}
		got = append(got, tk.Text)
	}
	want := []string{"Don't", "panic", "it's", "a", "well-known", "fact", "42", "times"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestNormalizeDropsStopwordsAndLowercases(t *testing.T) {
	got := NormalizeText("The Senate and the House of Representatives MET today; they didn't, it’s late.")
	want := []string{"senate", "house", "representatives", "met", "today", "late"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestStopwordListSize(t *testing.T) {
	if n := len(Stopwords()); n != 179 {
		t.Fatalf("stopword list has %d words, NLTK's English list has 179", n)
	}
}

// TestLowercaseTextKeepsStopwords: LowercaseText is NormalizeText with the stopwords kept —
// the same lowercasing and apostrophes, and removing its stopwords gives NormalizeText.
func TestLowercaseTextKeepsStopwords(t *testing.T) {
	const s = "The People of THIS nation; we don’t Forget."
	got := LowercaseText(s)
	want := []string{"the", "people", "of", "this", "nation", "we", "don't", "forget"}
	if !slices.Equal(got, want) {
		t.Errorf("LowercaseText = %q, want %q", got, want)
	}
	if n := Normalize(got); !slices.Equal(n, NormalizeText(s)) {
		t.Errorf("Normalize(LowercaseText) = %q, want NormalizeText's %q", n, NormalizeText(s))
	}
}
