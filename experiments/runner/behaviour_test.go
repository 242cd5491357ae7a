package runner

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"dptext/experiments/registry"
	"dptext/experiments/runconfig"
	"dptext/internal/fixtures"
	"dptext/mechanisms"
	"dptext/mechanisms/metricdp"
)

// swapEMD registers, under emd's own name and version, a copy whose Build is build (given the
// original's), until the test ends. Configs must be parsed after the swap: a config decodes
// its options, and so binds its builder, when it is parsed.
func swapEMD(t *testing.T, build func(orig func(*registry.Env, float64, metricdp.EMDOptions) (mechanisms.Mechanism, error), env *registry.Env, eps float64, o metricdp.EMDOptions) (mechanisms.Mechanism, error)) {
	t.Helper()
	entry := registry.Mechanisms["emd"]
	spec, ok := entry.Spec.(registry.MechanismSpec[metricdp.EMDOptions])
	if !ok {
		t.Fatalf("emd's spec is a %T, not a MechanismSpec[metricdp.EMDOptions]", entry.Spec)
	}
	orig := spec.Build
	spec.Build = func(env *registry.Env, eps float64, o metricdp.EMDOptions) (mechanisms.Mechanism, error) {
		return build(orig, env, eps, o)
	}
	mutant := entry
	mutant.Spec = spec
	registry.Mechanisms["emd"] = mutant
	t.Cleanup(func() { registry.Mechanisms["emd"] = entry })
}

// behaviourConfig is the fixture experiment with emd at ε = 10 added, parsed now (so with the
// emd registered now).
func behaviourConfig(t *testing.T, corpusPath, vecPath string) *runconfig.Config {
	t.Helper()
	cfg, err := runconfig.ParseConfig(filepath.Join(t.TempDir(), "fixture.toml"),
		fixtures.Experiment(corpusPath, vecPath)+"\n[[mechanisms]]\nname = \"emd\"\nepsilons = [10]\n")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// A mechanism whose code changed without a version bump (EMD drawing its noise at 1.1 ε,
// registered under the same name and version) is neither resumed from the run folder the
// correct code wrote nor served from the private cache; the other mechanisms' releases are
// still reused. A copy that behaves the same (the builder wrapped, nothing changed) resumes
// every cell and reuses every release. Mutants: with the behaviour left out of the cell
// fingerprint the resume is accepted; left out of the private key the mutant gets 8 of 8
// releases from the cache.
func TestChangedBehaviourIsRecomputedNotReused(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	data, dir := t.TempDir(), t.TempDir()
	run := func(cfg *runconfig.Config, out string, force bool) (string, error) {
		var log bytes.Buffer
		_, err := Run(context.Background(), cfg, RunOptions{OutDir: out, Jobs: 2, Log: &log, DataDir: data, Force: force})
		return log.String(), err
	}
	log, err := run(behaviourConfig(t, corpusPath, vecPath), dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log, "private cache: 0 of 8") {
		t.Fatalf("first run's cache use:\n%s", log)
	}
	first := readFile(t, filepath.Join(dir, "results.csv"))

	t.Run("same behaviour, other code", func(t *testing.T) {
		swapEMD(t, func(orig func(*registry.Env, float64, metricdp.EMDOptions) (mechanisms.Mechanism, error), env *registry.Env, eps float64, o metricdp.EMDOptions) (mechanisms.Mechanism, error) {
			return orig(env, eps, o)
		})
		cfg := behaviourConfig(t, corpusPath, vecPath)
		log, err := run(cfg, dir, false)
		if err != nil || !strings.Contains(log, "8 of 8 cells already finished; running 0") {
			t.Fatalf("resume: %v\n%s", err, log)
		}
		fresh := t.TempDir()
		if log, err = run(cfg, fresh, false); err != nil || !strings.Contains(log, "private cache: 8 of 8") {
			t.Fatalf("fresh folder: %v\n%s", err, log)
		}
		if got := readFile(t, filepath.Join(fresh, "results.csv")); got != first {
			t.Error("a copy that behaves the same wrote other results")
		}
	})

	t.Run("EMD at 1.1 ε", func(t *testing.T) {
		swapEMD(t, func(orig func(*registry.Env, float64, metricdp.EMDOptions) (mechanisms.Mechanism, error), env *registry.Env, eps float64, o metricdp.EMDOptions) (mechanisms.Mechanism, error) {
			return orig(env, 1.1*eps, o)
		})
		cfg := behaviourConfig(t, corpusPath, vecPath)
		_, err := run(cfg, dir, false)
		if err == nil || !strings.Contains(err.Error(), "behaviour of mechanism/emd") || strings.Contains(err.Error(), "mechanism/expmech") {
			t.Fatalf("resuming the correct code's folder with the mutant: %v; want a refusal naming emd's behaviour alone", err)
		}
		fresh := t.TempDir()
		log, err := run(cfg, fresh, false)
		if err != nil || !strings.Contains(log, "private cache: 6 of 8") {
			t.Fatalf("fresh folder: %v; want the 2 emd releases recomputed and the 6 others reused:\n%s", err, log)
		}
		if got := readFile(t, filepath.Join(fresh, "results.csv")); got == first {
			t.Error("the mutant's results equal the correct code's: it was not run")
		}
		if _, err := run(cfg, dir, true); err != nil {
			t.Fatalf("--force should recompute: %v", err)
		}
		if man := readFile(t, filepath.Join(dir, "manifest.json")); !strings.Contains(man, `"behaviour_fingerprints"`) || !strings.Contains(man, `"mechanism/emd": "sha256:`) || strings.Contains(man, "not fingerprinted") {
			t.Errorf("the manifest states no behaviour fingerprint of emd, or a component went unfingerprinted:\n%s", man)
		}
	})
}
