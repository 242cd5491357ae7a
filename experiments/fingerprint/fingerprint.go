// Package fingerprint computes a behaviour fingerprint of each component a config uses: every
// mechanism is run on fixed canary documents with fixed seeds at each of its configured ε,
// every scorer is fitted and scored on a tiny fixture, and the outputs are hashed. A change to
// a component's draws or decisions changes its fingerprint, even when nobody bumps its
// registry version; a change to documentation or reports changes none. The runner puts the
// fingerprints into cell keys, private-cache keys and cached fits, so that results are reused
// only by code that behaves the same.
//
// The fixture is drawn from the config's own vocabulary (its CanaryVocabulary most frequent
// words, in the store's order), so it needs no data beyond the run's inputs and takes
// milliseconds for the word-level mechanisms and scorers.
package fingerprint

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"

	"dptext/embeddings"
	"dptext/experiments/registry"
	"dptext/experiments/runconfig"
	"dptext/internal/rngs"
	"dptext/mechanisms"
	"dptext/mechanisms/audit"
	"dptext/mechanisms/distinguish"
	"dptext/mechanisms/expmech"
)

// CanaryVocabulary is the number of the store's first (most frequent) words the fixture's
// vocabulary holds.
const CanaryVocabulary = 400

// canarySeed seeds every stream of the fixture; its value only has to stay fixed.
const canarySeed = 20260328

// Fixture sizes: documents privatised per ε, and the scorers' training and test documents.
const (
	canaryDocs        = 4
	canaryWords       = 60
	fixtureLabels     = 3
	fixtureTrainEach  = 3
	fixtureTestDocs   = 12
	fixtureDocWords   = 40
	outOfVocabularyWd = "qzxcanaryword"
)

// Prefix starts every fingerprint of a component that could be computed; a component that
// failed on the fixture gets NotFingerprinted and the error instead.
const (
	Prefix           = "sha256:"
	NotFingerprinted = "not fingerprinted: "
)

// Inputs are what the fixture is built from.
type Inputs struct {
	// Store is the run's word vectors; the fixture uses its CanaryVocabulary first words.
	Store *embeddings.Store
	// ConfigDir and InputSHA256 are passed on to builders (erae's model file).
	ConfigDir   string
	InputSHA256 map[string]string
	// Context cancels long constructions.
	Context context.Context
}

// Components returns, per component of cfg ("mechanism/<id>", "scorer/<id>", with [distinguish]
// "distinguish/<id>" for each mechanism: the game's behaviour on it, and with [audit]
// "audit/<id>" for each mechanism with an ε: the audit's behaviour on it), its behaviour
// fingerprint: Prefix and the SHA-256 of its outputs on the fixture, or NotFingerprinted and
// why the fixture could not be run through it (such a component is then keyed by its registry
// version alone, and the manifest says so).
func Components(cfg *runconfig.Config, in Inputs) map[string]string {
	small := in.Store.TopK(min(CanaryVocabulary, in.Store.Len()))
	words := small.Words()
	env := func(corpus [][]string) *registry.Env {
		return &registry.Env{Embeddings: small, Workers: 1, Corpus: corpus, RawTexts: rawTexts(corpus), Context: in.Context,
			ConfigDir: in.ConfigDir, InputSHA256: in.InputSHA256, CellDocs: canaryDocs, TextWords: canaryWords + 1}
	}
	train, trainLabels, test := fixture(words)
	// Each print builds its own component on its own Env, so the prints run side by side; a
	// print's value does not depend on which worker makes it.
	type job struct {
		key   string
		print func() (string, error)
	}
	var jobs []job
	for i, mc := range cfg.Mechanisms {
		jobs = append(jobs, job{"mechanism/" + mc.ID(), func() (string, error) {
			return mechanismPrint(cfg, i, mechanismEnvs(func() *registry.Env { return env(train) }), canary(words))
		}})
	}
	for i, sc := range cfg.Scorers {
		jobs = append(jobs, job{"scorer/" + sc.ID(), func() (string, error) { return scorerPrint(cfg, i, env(train), train, trainLabels, test) }})
	}
	if cfg.Distinguish != nil {
		for i, mc := range cfg.Mechanisms {
			jobs = append(jobs, job{"distinguish/" + mc.ID(), func() (string, error) {
				return gamePrint(cfg, i, env(train), mc.Grid()[0].Value(), canary(words))
			}})
		}
	}
	if cfg.Audit != nil {
		for i, mc := range cfg.Mechanisms {
			if grid := mc.Grid(); len(grid) > 0 && grid[0].Set() {
				jobs = append(jobs, job{"audit/" + mc.ID(), func() (string, error) { return auditPrint(cfg, i, env(train), grid[0].Value()) }})
			}
		}
	}
	results := make([]string, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(len(jobs), runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for j := range next {
				results[j] = result(jobs[j].print())
			}
		})
	}
	for j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	out := make(map[string]string, len(jobs))
	for j, jb := range jobs {
		out[jb.key] = results[j]
	}
	return out
}

// runAudit is the audit whose behaviour auditPrint hashes: the run's (audit.Audit); a test
// swaps in a changed audit.
var runAudit = audit.Audit

// auditSamples is the K of the audit a fingerprint runs: enough to go through every test of the
// audit on the canary vocabulary, few enough to take milliseconds.
const auditSamples = 200

// auditPrint is the audit's behaviour on mechanism i of cfg (only with [audit], whose rows the
// run writes): the audit (mechanisms/audit, the code of the run's audit rows) of the mechanism
// built at ε on the canary vocabulary with auditSamples draws and a fixed seed, every finding
// hashed. A change to the audit's tests or decisions thus refuses a run folder whose audit
// rows the old code wrote.
func auditPrint(cfg *runconfig.Config, i int, env *registry.Env, eps float64) (string, error) {
	m, err := buildAt(cfg, i, env, eps)
	if err != nil {
		return "", err
	}
	ao := audit.DefaultOptions()
	ao.Samples, ao.Seed = auditSamples, canarySeed
	rep, err := runAudit(cfg.Mechanisms[i].ID(), m, env.Embeddings, ao)
	if err != nil {
		return "", fmt.Errorf("auditing it at ε = %g on the fixture: %w", eps, err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "claim=%x\x00tests=%d\x00", math.Float64bits(rep.Claim), rep.Tests)
	for _, fs := range [][]audit.Finding{rep.Findings, rep.Skipped} {
		for _, f := range fs {
			fmt.Fprintf(h, "%s\x00%s\x00%q\x00%q\x00%s\x00%x\x00%x\x00%t\x00", f.Level, f.Kind, f.X, f.Y, f.Output, math.Float64bits(f.Bound), math.Float64bits(f.PValue), f.Violates())
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// playGame is the game whose behaviour gamePrint hashes: the run's (distinguish.Measure); a test
// swaps in a changed game.
var playGame = distinguish.Measure

// buildAt builds mechanism i of cfg at ε on the fixture's Env.
func buildAt(cfg *runconfig.Config, i int, env *registry.Env, eps float64) (mechanisms.Mechanism, error) {
	o, err := cfg.MechanismOptions(i)
	if err != nil {
		return nil, err
	}
	m, err := o.Build(env, eps)
	if err != nil {
		return nil, fmt.Errorf("building it at ε = %g on the fixture: %w", eps, err)
	}
	return m, nil
}

// gamePrint is the distinguishing game's behaviour on mechanism i of cfg (only with
// [distinguish], whose rows the run writes): the game (package distinguish, with the options the
// run derives for the mechanism) played at ε on pairs of the canary documents, every level's
// choice, accuracies and per-pair accuracies hashed. A change to how the game releases or scores
// thus refuses a run folder whose game rows the old code wrote.
func gamePrint(cfg *runconfig.Config, i int, env *registry.Env, eps float64, docs [][]string) (string, error) {
	m, err := buildAt(cfg, i, env, eps)
	if err != nil {
		return "", err
	}
	rng := rngs.New(canarySeed, "fingerprint/distinguish/pairs")
	var pairs []distinguish.Pair
	for d := range docs {
		p, err := distinguish.NewPair(docs[d], docs[(d+1)%len(docs)], d, rng)
		if err != nil {
			return "", err
		}
		pairs = append(pairs, p)
	}
	opts := distinguish.Options{Pairs: len(pairs), Words: canaryWords, Releases: 4, Distances: []int{1, 5, distinguish.Whole},
		Alpha: 0.05, Replicates: 100}.For(m)
	release := func(in [][]string) ([][]string, error) {
		gens := make([]*rand.Rand, len(in))
		for d := range in {
			gens[d] = rngs.New(canarySeed, fmt.Sprintf("fingerprint/distinguish/doc=%d", d))
		}
		return mechanisms.PrivatizeBatch(m, gens, in)
	}
	res, err := playGame(pairs, release, env.Embeddings, opts, canarySeed, "fingerprint/distinguish")
	if err != nil {
		return "", fmt.Errorf("playing the game at ε = %g on the fixture: %w", eps, err)
	}
	h := sha256.New()
	for _, lv := range res.Levels {
		fmt.Fprintf(h, "%d\x00%s\x00", lv.Distance, lv.Chosen)
		for _, v := range append([]float64{lv.Accuracy, lv.AccuracyLow, lv.AccuracyHigh}, lv.PerPair...) {
			writeFloat(h, v)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Usable reports whether fp is a fingerprint of behaviour (not NotFingerprinted).
func Usable(fp string) bool { return strings.HasPrefix(fp, Prefix) }

func result(sum string, err error) string {
	if err != nil {
		return NotFingerprinted + err.Error()
	}
	return Prefix + sum
}

// canary is the documents every mechanism privatises: fixed words of the fixture's vocabulary
// in a fixed order, each ending with a word outside it.
func canary(words []string) [][]string {
	docs := make([][]string, canaryDocs)
	for d := range docs {
		doc := make([]string, 0, canaryWords+1)
		for i := 0; i < canaryWords; i++ {
			doc = append(doc, words[(d*canaryWords+i*7)%len(words)])
		}
		docs[d] = append(doc, outOfVocabularyWd)
	}
	return docs
}

// fixture draws the scorers' documents: fixtureLabels labels, each with its own slice of the
// vocabulary it draws most words from, fixtureTrainEach training documents per label and
// fixtureTestDocs test documents.
func fixture(words []string) (train [][]string, labels []string, test [][]string) {
	rng := rngs.New(canarySeed, "fingerprint/fixture")
	doc := func(label int) []string {
		d := make([]string, fixtureDocWords)
		for i := range d {
			if rng.IntN(3) == 0 {
				d[i] = words[rng.IntN(len(words))]
			} else {
				span := max(1, len(words)/fixtureLabels)
				d[i] = words[(label*span+rng.IntN(span))%len(words)]
			}
		}
		return d
	}
	for l := 0; l < fixtureLabels; l++ {
		for j := 0; j < fixtureTrainEach; j++ {
			train = append(train, doc(l))
			labels = append(labels, fmt.Sprintf("label%d", l))
		}
	}
	for j := 0; j < fixtureTestDocs; j++ {
		test = append(test, doc(j%fixtureLabels))
	}
	return train, labels, test
}

func rawTexts(docs [][]string) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = strings.Join(d, " ")
	}
	return out
}

// mechanismEnvs are the Envs a mechanism's print builds it on: as `dptext obfuscate` does
// (env as it is) and as a run does (with the run's shared distance rows, which SanText,
// SanText+, TEM and the truncated Gumbel mechanism read their distances from), so that a change
// on either path changes the print.
func mechanismEnvs(env func() *registry.Env) []*registry.Env {
	shared := env()
	shared.DistanceRows = expmech.NewDistanceRows(shared.Embeddings, canaryDistanceBudget)
	return []*registry.Env{env(), shared}
}

// canaryDistanceBudget holds every distance row of the fixture's vocabulary (CanaryVocabulary
// words of 8 bytes each per row).
const canaryDistanceBudget = 8 * CanaryVocabulary * CanaryVocabulary

// mechanismPrint hashes mechanism i's releases of the canary documents at each of its ε (the
// one-element grid of a mechanism without ε), and its guarantee for each, with the mechanism
// built on each of envs in turn.
func mechanismPrint(cfg *runconfig.Config, i int, envs []*registry.Env, docs [][]string) (string, error) {
	mc := cfg.Mechanisms[i]
	o, err := cfg.MechanismOptions(i)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for k, env := range envs {
		fmt.Fprintf(h, "env=%d\x00", k)
		if err := releasePrint(h, mc, o, env, docs); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// releasePrint writes to h the releases of docs and the guarantees of the mechanism of options
// o built on env at each ε of mc's grid.
func releasePrint(h hash.Hash, mc runconfig.ComponentConfig, o *registry.MechanismOptions, env *registry.Env, docs [][]string) error {
	for _, e := range mc.Grid() {
		m, err := o.Build(env, e.Value())
		if err != nil {
			return fmt.Errorf("building it at ε = %s on the fixture: %w", e, err)
		}
		gens := make([]*rand.Rand, len(docs))
		for d := range docs {
			gens[d] = rngs.New(canarySeed, fmt.Sprintf("fingerprint/mech/eps=%s/doc=%d", e, d))
		}
		out, err := mechanisms.PrivatizeBatch(m, gens, docs)
		if err != nil {
			return fmt.Errorf("releasing the canary at ε = %s: %w", e, err)
		}
		fmt.Fprintf(h, "eps=%s\x00", e)
		writeDocs(h, out)
		for _, d := range docs {
			g := m.Guarantee(d)
			fmt.Fprintf(h, "%s\x00%x\x00%s\x00", g.Kind, math.Float64bits(g.Epsilon), g.Metric)
			for _, k := range slices.Sorted(maps.Keys(g.Bounds)) {
				fmt.Fprintf(h, "%s=%x\x00", k, math.Float64bits(g.Bounds[k]))
			}
		}
	}
	return nil
}

// ranker is a classifier that scores every candidate (attackers.Ranker, without the import).
type ranker interface {
	PredictRanked(rng *rand.Rand, docs [][]string) ([]string, []string, [][]float64)
}

// scorerPrint hashes scorer i's answers on the fixture: a classifier's predictions (and the
// scores of every candidate, for one that ranks) after fitting on the training documents, a
// utility measure's score of each test document against each training document of its label.
func scorerPrint(cfg *runconfig.Config, i int, env *registry.Env, train [][]string, labels []string, test [][]string) (string, error) {
	o, err := cfg.ScorerOptions(i)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	switch {
	case o.Metric != nil:
		pm, err := o.Metric.Build(env)
		if err != nil {
			return "", err
		}
		for j, d := range test {
			for _, k := range []int{j % len(train), (j + 1) % len(train)} {
				writeFloat(h, pm.Measure(train[k], d))
			}
		}
	case o.Classifier != nil:
		c, err := o.Classifier.Build(env)
		if err != nil {
			return "", err
		}
		if err := c.Fit(rngs.New(canarySeed, "fingerprint/fit"), train, labels); err != nil {
			return "", fmt.Errorf("fitting it on the fixture: %w", err)
		}
		if rk, ok := c.(ranker); ok {
			pred, cands, scores := rk.PredictRanked(rngs.New(canarySeed, "fingerprint/predict"), test)
			writeDocs(h, [][]string{pred, cands})
			for _, s := range scores {
				for _, x := range s {
					writeFloat(h, x)
				}
			}
		} else {
			writeDocs(h, [][]string{c.Predict(rngs.New(canarySeed, "fingerprint/predict"), test)})
		}
	default:
		return "", fmt.Errorf("neither a classifier nor a utility measure")
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func writeDocs(h hash.Hash, docs [][]string) {
	for _, d := range docs {
		for _, w := range d {
			io.WriteString(h, w)
			h.Write([]byte{0})
		}
		h.Write([]byte{1})
	}
}

func writeFloat(h hash.Hash, x float64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
	h.Write(b[:])
}
