package fingerprint

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"dptext/embeddings"
	"dptext/experiments/registry"
	"dptext/experiments/runconfig"
	"dptext/internal/fixtures"
	"dptext/internal/rngs"
	"dptext/mechanisms"
	"dptext/mechanisms/audit"
	"dptext/mechanisms/distinguish"
)

// fingerprintConfig has one mechanism of each family the fixture can run and every kind of
// scorer: a classifier that ranks (koppel11 is not used: it reads characters, which the
// numbered words have few of), one that does not, and a utility measure.
const fingerprintConfig = `name = "fp"
seed = 1
%s[[sets]]
name = "4"
authors = 4
[[mechanisms]]
name = "none"
[[mechanisms]]
name = "emd"
epsilons = [10, 5]
[[mechanisms]]
name = "expmech"
epsilons = [8]
[[scorers]]
name = "sr-nn"
[[scorers]]
name = "nb"
[[scorers]]
name = "cosine"
`

func components(t *testing.T, text string) map[string]string {
	t.Helper()
	corpusPath, vecPath := fixtures.Corpus(t, 2, 2, 400)
	cfg, err := runconfig.ParseConfig(filepath.Join(t.TempDir(), "fp.toml"), fmt.Sprintf(text, fixtures.Inputs(corpusPath, vecPath)))
	if err != nil {
		t.Fatal(err)
	}
	store := fixtures.RandomStore(t, rngs.New(1, "fingerprint-test/store"), 600, 8, 1)
	return Components(cfg, Inputs{Store: store, Context: context.Background()})
}

// Every component gets a fingerprint of its behaviour, the same on every call; another ε of a
// mechanism changes that mechanism's alone; a second label of the same mechanism with the same
// options behaves the same and gets the same fingerprint. Deterministic. Mutant: only the
// first ε of each mechanism run on the canary leaves emd's fingerprint unchanged when its
// second ε changes, and this fails. (A mechanism whose code changed under the same name and
// version: experiments/runner's TestChangedBehaviourIsRecomputedNotReused.)
func TestComponentsFingerprintBehaviour(t *testing.T) {
	a := components(t, fingerprintConfig)
	if len(a) != 6 {
		t.Fatalf("%d fingerprints, want 6: %v", len(a), a)
	}
	for k, v := range a {
		if !Usable(v) {
			t.Errorf("%s: %s", k, v)
		}
	}
	if b := components(t, fingerprintConfig); !maps.Equal(a, b) {
		t.Errorf("two calls differ:\n%v\n%v", a, b)
	}
	c := components(t, strings.Replace(fingerprintConfig, "epsilons = [10, 5]", "epsilons = [10, 4]", 1))
	for k := range a {
		if changed := a[k] != c[k]; changed != (k == "mechanism/emd") {
			t.Errorf("%s: changed %v after emd's ε changed", k, changed)
		}
	}
	d := components(t, fingerprintConfig+"\n[[mechanisms]]\nname = \"emd\"\nlabel = \"emd-copy\"\nepsilons = [10, 5]\n")
	if d["mechanism/emd-copy"] != a["mechanism/emd"] {
		t.Errorf("the same mechanism under another label has another fingerprint")
	}
}

// With [audit], each mechanism with an ε also gets the audit's behaviour on it ("audit/<id>"),
// and an audit that decides differently (here: one that drops its last test, standing for any
// change of the audit's code) changes exactly those fingerprints, so a run folder whose audit
// rows the old audit wrote is not resumed; the same audit gives the same fingerprints on every
// call. Without [audit] there are none. Mutant run: the
// findings left out of the hash → the changed audit keeps its fingerprints, and this fails.
func TestAuditFingerprint(t *testing.T) {
	plain := components(t, fingerprintConfig)
	withAudit := fingerprintConfig + "\n[audit]\nsamples = 300\n"
	a := components(t, withAudit)
	for _, k := range []string{"audit/emd", "audit/expmech"} {
		if !Usable(a[k]) {
			t.Errorf("%s: %q, want an audit fingerprint", k, a[k])
		}
	}
	if again := components(t, withAudit); !maps.Equal(a, again) {
		t.Errorf("two calls with [audit] differ:\n%v\n%v", a, again)
	}
	if len(a) != len(plain)+2 {
		t.Errorf("%d fingerprints with [audit], want %d (one audit per mechanism with an ε): %v", len(a), len(plain)+2, a)
	}
	defer func(f func(string, mechanisms.Mechanism, *embeddings.Store, audit.Options) (*audit.Report, error)) {
		runAudit = f
	}(runAudit)
	original := runAudit
	runAudit = func(name string, m mechanisms.Mechanism, store *embeddings.Store, o audit.Options) (*audit.Report, error) {
		rep, err := original(name, m, store, o)
		if err == nil && len(rep.Findings) > 0 {
			rep.Findings = rep.Findings[:len(rep.Findings)-1]
		}
		return rep, err
	}
	b := components(t, withAudit)
	for k := range a {
		if changed := a[k] != b[k]; changed != strings.HasPrefix(k, "audit/") {
			t.Errorf("%s: changed %v under a changed audit", k, changed)
		}
	}
}

// TestGameFingerprint: with [distinguish] every mechanism gets a fingerprint of the game played
// on it, the same on every call; a game that stops coupling x′ to x (the mutant of the
// distinguishing game's releases) changes that of the position-wise sampler (expmech) and of no
// other component (emd releases a bag, none is deterministic, so their games are unchanged).
func TestGameFingerprint(t *testing.T) {
	plain := components(t, fingerprintConfig)
	withGame := fingerprintConfig + "\n[distinguish]\npairs = 4\nwords = 30\n"
	a := components(t, withGame)
	for _, k := range []string{"distinguish/none", "distinguish/emd", "distinguish/expmech"} {
		if !Usable(a[k]) {
			t.Errorf("%s: %q, want a game fingerprint", k, a[k])
		}
	}
	if again := components(t, withGame); !maps.Equal(a, again) {
		t.Errorf("two calls with [distinguish] differ:\n%v\n%v", a, again)
	}
	if len(a) != len(plain)+3 {
		t.Errorf("%d fingerprints with [distinguish], want %d (one game per mechanism): %v", len(a), len(plain)+3, a)
	}
	defer func(f func([]distinguish.Pair, distinguish.Release, distinguish.Vectors, distinguish.Options, uint64, string) (*distinguish.Result, error)) {
		playGame = f
	}(playGame)
	original := playGame
	playGame = func(pairs []distinguish.Pair, r distinguish.Release, v distinguish.Vectors, o distinguish.Options, seed uint64, path string) (*distinguish.Result, error) {
		o.PositionWise = false
		return original(pairs, r, v, o, seed, path)
	}
	b := components(t, withGame)
	for k := range a {
		if changed := a[k] != b[k]; changed != (k == "distinguish/expmech") {
			t.Errorf("%s: changed %v under a game without coupling", k, changed)
		}
	}
}

// A mechanism that reads the run's shared distance rows is printed through them too: SanText's
// print builds it on an Env with DistanceRows, and its releases there read rows from them (so
// a change on that path — which a run takes and obfuscate does not — changes the print). Mutant:
// mechanismEnvs without the shared Env fails (no rows kept); by hand on 2026-11-29, SanText's
// ratings from shared rows scaled by 1.01 left the print unchanged before mechanismEnvs and a
// run folder of the old code was reused, and changes it after (the folder is refused).
func TestMechanismPrintReadsSharedDistanceRows(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 2, 2, 400)
	text := fmt.Sprintf("name = \"fp\"\nseed = 1\n%s[[sets]]\nname = \"4\"\nauthors = 4\n[[mechanisms]]\nname = \"santext\"\nepsilons = [3]\n[[scorers]]\nname = \"nb\"\n",
		fixtures.Inputs(corpusPath, vecPath))
	cfg, err := runconfig.ParseConfig(filepath.Join(t.TempDir(), "fp.toml"), text)
	if err != nil {
		t.Fatal(err)
	}
	store := fixtures.RandomStore(t, rngs.New(1, "fingerprint-test/store"), 600, 8, 1).TopK(CanaryVocabulary)
	envs := mechanismEnvs(func() *registry.Env { return &registry.Env{Embeddings: store, Workers: 1} })
	if _, err := mechanismPrint(cfg, 0, envs, canary(store.Words())); err != nil {
		t.Fatal(err)
	}
	read := false
	for _, env := range envs {
		if kept, _, _ := env.DistanceRows.Stats(); kept > 0 {
			read = true
		}
	}
	if !read {
		t.Fatal("no Env of the print holds shared distance rows SanText read: the run's path is not printed")
	}
}
