package attackers

import (
	"math"
	"strings"
	"testing"

	"dptext/internal/text"
)

func TestStyleVectorHandExample(t *testing.T) {
	v := StyleVector([]string{"The", "cat,", "sat", "42"})
	if len(v) != StyleVectorLen() {
		t.Fatalf("length %d, want %d", len(v), StyleVectorLen())
	}
	lengths := 3 + 36
	punct := lengths + maxWordLength
	function := punct + len(stylePunctuation) + len(styleSpecial)
	richness := function + len(styleFunctionWords)
	// 12 characters: 9 letters (1 uppercase), 2 digits, 1 comma; words the cat sat 42.
	want := map[int]float64{
		0: 9.0 / 12, 1: 1.0 / 9, 2: 2.0 / 12,
		3 + 't' - 'a': 3.0 / 9, 3 + 'a' - 'a': 2.0 / 9, 3 + 'z' - 'a': 0,
		3 + 26 + 4: 1.0 / 12, 3 + 26 + 2: 1.0 / 12,
		lengths + 2: 3.0 / 4, lengths + 1: 1.0 / 4,
		punct + 1: 1.0 / 12, punct: 0,
		function + styleFunctionIndex["the"]: 1.0 / 4,
		richness:                             1, richness + 1: 0, richness + 2: 0,
	}
	for i, w := range want {
		if math.Abs(v[i]-w) > 1e-12 {
			t.Errorf("component %d = %v, want %v", i, v[i], w)
		}
	}
}

func TestStyleVectorYuleAndEmpty(t *testing.T) {
	// Words a a b: N = 3, counts 2 and 1, Σc² = 5, so K·10⁻⁴ = (5 − 3) / 9; one hapax, one dis.
	v := StyleVector([]string{"a", "a", "b"})
	r := StyleVectorLen() - 3
	if math.Abs(v[r]-1.0/3) > 1e-12 || math.Abs(v[r+1]-1.0/3) > 1e-12 || math.Abs(v[r+2]-2.0/9) > 1e-12 {
		t.Errorf("hapax, dis, Yule = %v, want 1/3, 1/3, 2/9", v[r:])
	}
	for i, x := range StyleVector(nil) {
		if x != 0 {
			t.Fatalf("empty document: component %d = %v, want 0", i, x)
		}
	}
}

// On normalised tokens the uppercase rate and the function-word rates are zero: the
// features that the Fernandes protocol empties.
func TestStyleVectorOnNormalisedTokens(t *testing.T) {
	doc := text.NormalizeText("The Cat sat on the mat, and it was happy; well-known cats are.")
	v := StyleVector(doc)
	function := 3 + 36 + maxWordLength + len(stylePunctuation) + len(styleSpecial)
	if v[1] != 0 {
		t.Errorf("uppercase rate %v, want 0", v[1])
	}
	for i, w := range styleFunctionWords {
		if v[function+i] != 0 {
			t.Errorf("function word %q has rate %v on normalised tokens %v", w, v[function+i], doc)
		}
	}
	if hyphen := v[3+36+maxWordLength+len(stylePunctuation)+strings.IndexByte(styleSpecial, '-')]; hyphen == 0 {
		t.Errorf("the inner hyphen of well-known was not counted (tokens %v)", doc)
	}
}
