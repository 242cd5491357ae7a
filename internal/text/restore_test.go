package text

import (
	"strings"
	"testing"
)

func TestMatchCase(t *testing.T) {
	cases := []struct{ model, word, want string }{
		{"Senate", "house", "House"},
		{"NASA", "agency", "AGENCY"},
		{"today", "tomorrow", "tomorrow"},
		{"I", "you", "You"}, // a single capital is Title, not UPPER
		{"McDonald", "smith", "Smith"},
		{"42", "forty", "forty"},     // no letters: as given
		{"Élan", "ímpetu", "Ímpetu"}, // non-ASCII first letter
		{"U.S", "states", "STATES"},
	}
	for _, c := range cases {
		if got := MatchCase(c.model, c.word); got != c.want {
			t.Errorf("MatchCase(%q, %q) = %q, want %q", c.model, c.word, got, c.want)
		}
	}
}

func TestRestoreSampleParagraph(t *testing.T) {
	raw := "Mr. Speaker, the STATE of our Union is strong.\n\nWe have   worked hard — and (frankly) won!"
	toks := Tokenize(raw)
	repl := make([]string, len(toks))
	swap := map[string]string{"speaker": "chairman", "state": "condition", "union": "nation",
		"strong": "sturdy", "worked": "toiled", "frankly": "honestly", "won": "prevailed", "mr": "sir"}
	for i, tk := range toks {
		lw := strings.ToLower(tk.Text)
		if r, ok := swap[lw]; ok {
			repl[i] = r
		} else {
			repl[i] = lw
		}
	}
	want := "Sir. Chairman, the CONDITION of our Nation is sturdy.\n\nWe have   toiled hard — and (honestly) prevailed!"
	if got := Restore(raw, toks, repl); got != want {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
}

func TestRestoreDropsTokensAndTidiesSpace(t *testing.T) {
	cases := []struct {
		raw  string
		drop string
		want string
	}{
		{"Hello, John Smith!", "John", "Hello, Smith!"},
		{"Hello, John Smith!", "Smith", "Hello, John!"},
		{"Smith came home.", "Smith", "came home."},
		{"a b c", "b", "a c"},
		{"x Smith (note)", "Smith", "x (note)"},
		{"call 555 now", "555", "call now"},
	}
	for _, c := range cases {
		toks := Tokenize(c.raw)
		repl := make([]string, len(toks))
		for i, tk := range toks {
			if tk.Text != c.drop {
				repl[i] = strings.ToLower(tk.Text)
			}
		}
		if got := Restore(c.raw, toks, repl); got != c.want {
			t.Errorf("dropping %q from %q: got %q, want %q", c.drop, c.raw, got, c.want)
		}
	}
}

func TestRewriteWordsTouchesOnlyNormalisedWords(t *testing.T) {
	raw := "The Senate and the House MET today; they didn't agree."
	var seen []string
	got, err := RewriteWords(raw, func(words []string) []string {
		seen = append(seen, words...)
		out := make([]string, len(words))
		for i, w := range words {
			out[i] = "x" + w
		}
		return out
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(seen, " ") != strings.Join(NormalizeText(raw), " ") {
		t.Fatalf("f saw %q, want the normalised words %q", seen, NormalizeText(raw))
	}
	want := "The Xsenate and the Xhouse XMET xtoday; they didn't xagree."
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if _, err := RewriteWords(raw, func([]string) []string { return nil }); err == nil {
		t.Fatal("a rewrite that loses words must be an error")
	}
}

// A typographic apostrophe (’) is an ASCII one to NormalizeText, so "didn’t" is a stopword and
// "Nation’s" is "nation's": RewriteWords must see exactly those words and keep "didn’t" as
// written. Deterministic. Mutant: lowercasing without the apostrophe mapping (the former code)
// gives f "didn’t" and "nation’s", and the comparison fails.
func TestRewriteWordsTypographicApostrophes(t *testing.T) {
	raw := "They didn’t fund the Nation’s schools."
	var seen []string
	got, err := RewriteWords(raw, func(words []string) []string {
		seen = append([]string(nil), words...)
		return words
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := NormalizeText(raw); strings.Join(seen, "|") != strings.Join(want, "|") {
		t.Fatalf("f saw %q, want NormalizeText's %q", seen, want)
	}
	if !strings.Contains(got, "didn’t") {
		t.Errorf("the stopword didn’t was not kept as written: %q", got)
	}
}
