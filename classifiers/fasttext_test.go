package classifiers

import (
	"math"
	"slices"
	"strings"
	"testing"

	"dptext/embeddings"
	"dptext/internal/learn"
	"dptext/internal/linalg"
	"dptext/internal/rngs"

	"github.com/BurntSushi/toml"
)

func TestFastTextCharacterNgrams(t *testing.T) {
	f, err := NewFastText(FastTextOptions{Dim: 4, Epochs: 1, LR: 0.1, WordNgrams: 1, MinCount: 1,
		Minn: 1, Maxn: 3, Bucket: 1000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.buckets = map[uint32]int32{}
	cases := map[string][]string{
		// "<ab>": single characters but the markers, then pairs, then triples.
		"ab": {"a", "<a", "<ab", "b", "ab", "ab>", "b>"},
		"é":  {"<é", "<é>", "é", "é>"},
	}
	for w, grams := range cases {
		var want []int32
		for _, g := range grams {
			want = append(want, int32(bucketKey(hashString(g)%1000)))
		}
		got := f.appendCharNgrams(nil, w, false)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%q: rows %v, want %v", w, got, want)
		}
	}
}

func TestFastTextWordNgramRows(t *testing.T) {
	f, _ := NewFastText(FastTextOptions{Dim: 4, Epochs: 1, LR: 0.1, WordNgrams: 3, MinCount: 1,
		Bucket: 1 << 20}, nil)
	f.vocab = map[string]int32{"a": 0, "c": 1}
	f.buckets = map[uint32]int32{}
	h := func(s string) uint64 { return uint64(hashString(s)) }
	bucket := func(x uint64) int32 { return int32(bucketKey(uint32(x % (1 << 20)))) }
	m := uint64(wordNgramMultiplier)
	want := []int32{0, 1, // a and c; b is unknown but still hashed into the n-grams
		bucket(h("a")*m + h("b")), bucket((h("a")*m+h("b"))*m + h("c")), bucket(h("b")*m + h("c"))}
	if got := f.rows([]string{"a", "b", "c"}, false); !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	// While growing, new buckets get rows after the words, in order of first use.
	if got := f.rows([]string{"a", "b", "c"}, true); !slices.Equal(got, []int32{0, 1, 2, 3, 4}) {
		t.Errorf("growing rows %v", got)
	}
}

func TestFastTextSubwordOptionsLearnTopics(t *testing.T) {
	train, test, _ := testCorpora()
	opts := DefaultFastTextOptions()
	// The digits of the generated words carry little topic information, so the many character
	// n-grams shared by all topics slow learning down: 5 epochs give ≈ 0.57, 25 give 1.
	opts.Dim, opts.Epochs, opts.WordNgrams, opts.Minn, opts.Maxn, opts.Bucket = 16, 25, 2, 2, 4, 10000
	ft, err := NewFastText(opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	pred := fitPredict(t, "fasttext-subwords", ft, train, test)
	if acc := learn.Score(test.labels, pred).Accuracy; acc < 0.95 {
		t.Errorf("accuracy %.3f with word bigrams and character n-grams, want ≥ 0.95", acc)
	}
	// Words never seen in training still reach the model through their character n-grams:
	// the endings "01>", "05>", … occur only in words of topic 1 (w ≡ 1 mod 4).
	p := ft.Probabilities([]string{"q00001", "q00005", "q00009", "q00013", "q00017"})
	t.Logf("probabilities of unseen topic-1 words: %.3f", p)
	if p[1] < 0.5 {
		t.Errorf("unseen words with topic-1 n-grams: probabilities %v", p)
	}
}

func TestFastTextPretrainedRowsAndEmptyDocument(t *testing.T) {
	store, err := embeddings.New([]string{"x", "y"}, 3, []float32{1, 2, 3, 4, 5, 6})
	if err != nil {
		t.Fatal(err)
	}
	opts := FastTextOptions{Dim: 3, Epochs: 1, LR: 1e-9, WordNgrams: 1, MinCount: 1}
	ft, err := NewFastText(opts, store)
	if err != nil {
		t.Fatal(err)
	}
	docs := [][]string{{"y", "z"}, {"x"}, {"z"}}
	if err := ft.Fit(rngs.New(1, "pre"), docs, []string{"p", "q", "q"}); err != nil {
		t.Fatal(err)
	}
	for w, want := range map[string][]float32{"x": {1, 2, 3}, "y": {4, 5, 6}} {
		r := ft.vocab[w]
		for j, v := range ft.input[int(r)*3 : int(r)*3+3] {
			if math.Abs(float64(v-want[j])) > 1e-6 {
				t.Errorf("row of %s = %v, want the pretrained %v", w, ft.input[int(r)*3:int(r)*3+3], want)
				break
			}
		}
	}
	z := ft.input[int(ft.vocab["z"])*3:][:3]
	for _, v := range z {
		if math.Abs(float64(v)) > 1.0/3 {
			t.Errorf("row of z %v outside ±1/dim", z)
		}
	}
	if got := ft.Predict(nil, [][]string{{}, {"unknown"}}); !slices.Equal(got, []string{"q", "q"}) {
		t.Errorf("documents without input rows got %v, want the most frequent label q", got)
	}
	if _, err := NewFastText(DefaultFastTextOptions(), store); err == nil || !strings.Contains(err.Error(), "dim") {
		t.Errorf("dimension mismatch: %v", err)
	}
}

func TestNewFastTextErrors(t *testing.T) {
	mod := func(f func(*FastTextOptions)) FastTextOptions {
		o := DefaultFastTextOptions()
		f(&o)
		return o
	}
	bad := map[string]FastTextOptions{
		"dim":         mod(func(o *FastTextOptions) { o.Dim = 0 }),
		"epoch":       mod(func(o *FastTextOptions) { o.Epochs = 0 }),
		"lr":          mod(func(o *FastTextOptions) { o.LR = 0 }),
		"word_ngrams": mod(func(o *FastTextOptions) { o.WordNgrams = 0 }),
		"min_count":   mod(func(o *FastTextOptions) { o.MinCount = 0 }),
		"maxn":        mod(func(o *FastTextOptions) { o.Maxn = -1 }),
		"minn":        mod(func(o *FastTextOptions) { o.Minn, o.Maxn = 4, 3 }),
		"bucket":      mod(func(o *FastTextOptions) { o.WordNgrams, o.Bucket = 2, 0 }),
	}
	for key, o := range bad {
		if _, err := NewFastText(o, nil); err == nil || !strings.Contains(err.Error(), key+" =") {
			t.Errorf("%s: error %v does not name the key", key, err)
		}
	}
}

// The option structs decode from flat TOML tables with every key used.
func TestOptionsDecodeFromTOML(t *testing.T) {
	nb := DefaultTfidfNBOptions()
	md, err := toml.Decode("alpha = 0.5\nmin_df = 2\nnorm = \"none\"\nsublinear_tf = true\nmax_features = 10", &nb)
	if err != nil || len(md.Undecoded()) > 0 {
		t.Fatalf("nb: %v, undecoded %v", err, md.Undecoded())
	}
	if nb.Alpha != 0.5 || nb.MinDF != 2 || nb.Norm != "none" || !nb.SublinearTF || nb.MaxFeatures != 10 {
		t.Errorf("nb decoded %+v", nb)
	}
	svm := DefaultTfidfSVMOptions()
	md, err = toml.Decode("c = 10\nloss = \"hinge\"\nmax_iter = 5\ntol = 0.01\nmin_df = 3", &svm)
	if err != nil || len(md.Undecoded()) > 0 || svm.C != 10 || svm.Loss != "hinge" || svm.MinDF != 3 {
		t.Errorf("svm decoded %+v (%v, undecoded %v)", svm, err, md.Undecoded())
	}
	ft := DefaultFastTextOptions()
	md, err = toml.Decode("dim = 10\nepoch = 3\nlr = 0.5\nword_ngrams = 2\nmin_count = 2\nminn = 3\nmaxn = 6\nbucket = 100", &ft)
	want := FastTextOptions{Dim: 10, Epochs: 3, LR: 0.5, WordNgrams: 2, MinCount: 2, Minn: 3, Maxn: 6, Bucket: 100}
	if err != nil || len(md.Undecoded()) > 0 || ft != want {
		t.Errorf("fasttext decoded %+v (%v, undecoded %v)", ft, err, md.Undecoded())
	}
}

// fastText's vector updates run in linalg's AVX2 kernels where the CPU has them; trained with
// and without them, the model gives the same probabilities to the last bit (dimension 100: a
// remainder of four after the groups of eight; word bigrams and character n-grams on).
// Mutant: a kernel with one fused multiply-add instead of a product and a sum → fail.
func TestFastTextSameWithAndWithoutAssembly(t *testing.T) {
	train, test, _ := testCorpora()
	opts := DefaultFastTextOptions()
	opts.Dim, opts.Epochs, opts.WordNgrams, opts.Minn, opts.Maxn, opts.Bucket = 100, 3, 2, 2, 4, 5000
	probabilities := func(assembly bool) [][]float64 {
		saved := linalg.SetAssembly(assembly)
		defer linalg.SetAssembly(saved)
		ft, err := NewFastText(opts, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := ft.Fit(rngs.New(3, "fasttext/assembly"), train.docs, train.labels); err != nil {
			t.Fatal(err)
		}
		var out [][]float64
		for _, d := range test.docs[:60] {
			out = append(out, ft.Probabilities(d))
		}
		return out
	}
	with, without := probabilities(true), probabilities(false)
	for i := range with {
		if !slices.EqualFunc(with[i], without[i], func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) {
			t.Fatalf("document %d: probabilities %v with the kernels, %v without", i, with[i], without[i])
		}
	}
}
