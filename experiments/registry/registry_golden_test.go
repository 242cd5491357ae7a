package registry

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dptext/embeddings"
	"dptext/internal/configfile"
	"dptext/internal/rngs"
	"dptext/mechanisms/erae"
)

var updateRegistry = flag.Bool("update-registry", false, "rewrite testdata/registry_golden.txt from the current outputs")

// goldenInputs are a fixed vocabulary and documents: 3 authors × 2 topics, each author with
// its own habit words, so that every component has something to learn and to change.
func goldenInputs(t *testing.T) (store *embeddings.Store, train, test [][]string, authors, testAuthors []string, raw []string) {
	t.Helper()
	rng := rngs.New(1, "golden/inputs")
	var words []string
	for i := 0; i < 40; i++ {
		words = append(words, fmt.Sprintf("w%c%c", 'a'+rune(i%26), 'a'+rune(i/26)))
	}
	const dim = 8
	vecs := make([]float32, len(words)*dim)
	for i := range vecs {
		vecs[i] = float32(rng.NormFloat64())
	}
	store, err := embeddings.New(words, dim, vecs)
	if err != nil {
		t.Fatal(err)
	}
	doc := func(a int, n int) []string {
		d := make([]string, n)
		for i := range d {
			if rng.Float64() < 0.3 {
				d[i] = words[a*3+rng.IntN(3)]
			} else {
				d[i] = words[10+rng.IntN(30)]
			}
		}
		return d
	}
	for a := 0; a < 3; a++ {
		for k := 0; k < 4; k++ {
			train = append(train, doc(a, 60))
			authors = append(authors, fmt.Sprintf("author%d", a))
		}
		test = append(test, doc(a, 40), doc(a, 40))
		testAuthors = append(testAuthors, fmt.Sprintf("author%d", a), fmt.Sprintf("author%d", a))
	}
	// Ambiguous documents (two authors' habits, a name and a number) tell the classifiers
	// apart and give the scrubber something to do.
	for a := 0; a < 6; a++ {
		d := doc(a%3, 30)
		for i := range d {
			if rng.Float64() < 0.5 {
				d[i] = words[((a+1)%3)*3+rng.IntN(3)]
			}
		}
		d = append(d, "alice", "1999")
		test = append(test, d)
		testAuthors = append(testAuthors, "mixed")
	}
	for _, d := range train {
		raw = append(raw, "Then "+strings.Join(d, " ")+" met Alice Smith in 1999.")
	}
	return store, train, test, authors, testAuthors, raw
}

// goldenParams returns the parameters a mechanism needs beyond its defaults to build on
// goldenInputs, as a params table read from the command line: erae and ae-dp need a model (see
// goldenModel).
func goldenParams(t *testing.T, name string, store *embeddings.Store, train [][]string) configfile.Params {
	t.Helper()
	body := ""
	if name == "erae" || name == "ae-dp" {
		body = "model = '" + goldenModel(t, name, store, train) + "'"
	}
	return testParams(t, name, body)
}

// testParams reads a params table of component from the body of a TOML inline table.
func testParams(t *testing.T, component, body string) configfile.Params {
	t.Helper()
	p, err := configfile.ParseParams("test", component, body)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// goldenModel trains the model of erae or ae-dp (seeded, a few steps) on the training
// documents, with the embedding reward for erae and without it for ae-dp, and returns its path.
func goldenModel(t *testing.T, name string, store *embeddings.Store, train [][]string) string {
	t.Helper()
	o := erae.DefaultTrainOptions()
	o.Reward = name == "erae"
	o.Vocab, o.Hidden, o.Latent, o.Length, o.Batch, o.PretrainSteps, o.Steps = 40, 8, 4, 12, 4, 5, 10
	model, err := erae.Train(context.Background(), train, store, o, "", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name+".model")
	if err := model.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// registryOutputs hashes what every registered component outputs with its default options on
// goldenInputs: each mechanism's private documents at ε = 10, each classifier's predictions
// after training (on the documents and the random mechanism's outputs, so that registering a
// mechanism changes no scorer's hash), each utility measure's
// values (6 significant digits).
func registryOutputs(t *testing.T) map[string]string {
	store, train, test, authors, _, raw := goldenInputs(t)
	env := &Env{Embeddings: store, Workers: 1, Corpus: train, RawTexts: raw, Check: true}
	out := map[string]string{}
	hash := func(lines []string) string {
		sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
		return hex.EncodeToString(sum[:8])
	}
	var private [][]string // the random mechanism's outputs, for the utility measures
	pool := test           // the documents and the random mechanism's outputs, for the classifiers (independent of which other mechanisms are registered)
	for _, name := range MechanismNames() {
		o, err := Mechanisms[name].Decode(goldenParams(t, name, store, train))
		if err != nil {
			t.Fatal(err)
		}
		outs, err := mechanismOutputs(name, o, env, test)
		if err != nil {
			t.Fatalf("mechanism %s: %v", name, err)
		}
		var lines []string
		for _, p := range outs {
			lines = append(lines, strings.Join(p, " "))
		}
		if name == "random" {
			private = outs
			pool = append(slices.Clip(pool), outs...)
		}
		out["mechanism/"+name+" v"+Mechanisms[name].Version] = hash(lines)
	}
	for _, name := range ScorerNames() {
		o, err := Scorers[name].Decode(testParams(t, name, ""))
		if err != nil {
			t.Fatal(err)
		}
		lines, err := scorerOutputs(name, o, env, train, authors, test, private, pool)
		if err != nil {
			t.Fatalf("scorer %s: %v", name, err)
		}
		out["scorer/"+name+" v"+Scorers[name].Version] = hash(lines)
	}
	return out
}

// mechanismOutputs builds the mechanism of o at ε = 10 from env and privatises each of docs
// with its own seeded generator; a panic (such as reading an Env field left nil) is an error.
func mechanismOutputs(name string, o *MechanismOptions, env *Env, docs [][]string) (out [][]string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	m, err := o.Build(env, 10)
	if err != nil {
		return nil, err
	}
	for i, d := range docs {
		out = append(out, m.Apply(rngs.New(7, fmt.Sprintf("golden/%s/%d", name, i)), d))
	}
	return out, nil
}

// scorerOutputs builds the scorer of o from env: a utility measure's values on (test, private)
// and on (test, the next test document), or a classifier's predictions on pool after training
// on train; a panic is an error.
func scorerOutputs(name string, o ScorerDecoded, env *Env, train [][]string, authors []string, test, private, pool [][]string) (lines []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	if o.Metric != nil {
		m, err := o.Metric.Build(env)
		if err != nil {
			return nil, err
		}
		for i, d := range test {
			lines = append(lines, fmt.Sprintf("%.6g %.6g", m.Measure(d, private[i]), m.Measure(d, test[(i+1)%len(test)])))
		}
		return lines, nil
	}
	c, err := o.Classifier.Build(env)
	if err != nil {
		return nil, err
	}
	if err := c.Fit(rngs.New(7, "golden/fit/"+name), train, authors); err != nil {
		return nil, err
	}
	return c.Predict(rngs.New(7, "golden/predict/"+name), pool), nil
}

// Every registered component's version is tied to a hash of its outputs: a change of output
// without a new Version (which keeps old cached cells from being reused) fails here. After a
// deliberate change, bump the Version in the registry and run
// `go test ./experiments/registry -run TestRegistryVersionsPinOutputs -update-registry`.
func TestRegistryVersionsPinOutputs(t *testing.T) {
	got := registryOutputs(t)
	path := filepath.Join("testdata", "registry_golden.txt")
	if *updateRegistry {
		var b strings.Builder
		b.WriteString("# component version → hash of its outputs on the golden inputs (registry_golden_test.go)\n")
		for _, k := range slices.Sorted(maps.Keys(got)) {
			fmt.Fprintf(&b, "%s %s\n", k, got[k])
		}
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("%v (run with -update-registry to create it)", err)
	}
	defer f.Close()
	want := map[string]string{} // "kind/name" → "vN hash"
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 3 && !strings.HasPrefix(fields[0], "#") {
			want[fields[0]] = fields[1] + " " + fields[2]
		}
	}
	seen := map[string]bool{}
	for k, h := range got {
		id, version, _ := strings.Cut(k, " ")
		seen[id] = true
		w, ok := want[id]
		if !ok {
			t.Errorf("%s %s is not in %s: run `go test ./experiments/registry -run TestRegistryVersionsPinOutputs -update-registry` to record its outputs", id, version, path)
			continue
		}
		wantVersion, wantHash, _ := strings.Cut(w, " ")
		switch {
		case wantVersion == version && wantHash != h:
			t.Errorf("%s %s: outputs changed (hash %s, recorded %s) without a version bump: bump its Version in the registry, then run `go test ./experiments/registry -run TestRegistryVersionsPinOutputs -update-registry`", id, version, h, wantHash)
		case wantVersion != version:
			t.Errorf("%s: version %s, recorded %s: run `go test ./experiments/registry -run TestRegistryVersionsPinOutputs -update-registry` to record the outputs of the new version", id, version, wantVersion)
		}
	}
	for id := range want {
		if !seen[id] {
			t.Errorf("%s is recorded in %s but not registered: run `go test ./experiments/registry -run TestRegistryVersionsPinOutputs -update-registry` to drop it", id, path)
		}
	}
}
