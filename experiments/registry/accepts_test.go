package registry

import (
	"os"
	"path/filepath"
	"testing"
)

// The ε search checks the ε it proposes with CheckEpsilon, between its rounds, while no cell
// runs: for SynTF it must give Build's answer (nil at a valid ε; Build's error at an ε outside
// the mechanism's range and for a synthetic length that does not fit in memory) without
// computing ℓ, which the cells then compute on the workers. The test tells ℓ computed by the
// file Build writes to ℓ's cache folder. Mutant: Accepts calling Build → the cache file is
// written by the check.
func TestSynTFCheckEpsilonAgreesWithBuildWithoutComputingEll(t *testing.T) {
	store, train, _, _, _, _ := goldenInputs(t)
	for _, tc := range []struct {
		params   string
		eps      float64
		cellDocs int // Env.CellDocs: the documents whose synthetic words must fit in memory
	}{
		{"", 10, 0},
		{"", 0, 0},
		{"n = 1000000", 10, 1 << 20},
		{"weighting = 'tfidf'", 10, 0},
	} {
		o, err := Mechanisms["syntf"].Decode(testParams(t, "syntf", tc.params))
		if err != nil {
			t.Fatal(err)
		}
		env := &Env{Embeddings: store, Workers: 1, Corpus: train, CacheDir: t.TempDir(), CellDocs: tc.cellDocs}
		checked, checkErr := o.CheckEpsilon(env, tc.eps)
		if !checked {
			t.Fatal("syntf has no ε check: the ε search would build it (and compute ℓ) between rounds")
		}
		if files, _ := filepath.Glob(filepath.Join(env.CacheDir, "*")); len(files) != 0 {
			t.Errorf("%q at ε = %g: the check wrote %v: it computed ℓ", tc.params, tc.eps, files)
		}
		_, buildErr := o.Build(env, tc.eps)
		if (checkErr == nil) != (buildErr == nil) || (checkErr != nil && checkErr.Error() != buildErr.Error()) {
			t.Errorf("%q at ε = %g: CheckEpsilon says %v, Build %v", tc.params, tc.eps, checkErr, buildErr)
		}
		if buildErr == nil {
			if files, _ := filepath.Glob(filepath.Join(env.CacheDir, "syntf-ell-*.json")); len(files) == 0 {
				t.Errorf("%q at ε = %g: Build wrote no ℓ to the cache folder: the test cannot tell ℓ computed", tc.params, tc.eps)
			}
		}
		_ = os.RemoveAll(env.CacheDir)
	}
}
