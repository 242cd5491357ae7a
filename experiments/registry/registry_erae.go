package registry

import (
	"fmt"
	"path/filepath"

	"dptext/mechanisms"
	"dptext/mechanisms/erae"
)

func eraeDefaults() erae.MechanismOptions { return erae.MechanismOptions{} }

// eraeFiles declares the model file (an empty path is reported by the build).
func eraeFiles(o erae.MechanismOptions) []InputFile {
	if o.Model == "" {
		return nil
	}
	return []InputFile{{Key: "model", Role: "model", Path: o.Model, ConfigRelative: true}}
}

// eraeBuild builds erae (reward: the model must have been trained with the embedding reward)
// or ae-dp (without it).
func eraeBuild(reward bool) func(env *Env, eps float64, o erae.MechanismOptions) (mechanisms.Mechanism, error) {
	name, train := "erae", "dptext train erae --config CONFIG --out MODEL"
	if !reward {
		name, train = "ae-dp", "dptext train erae --no-reward --config CONFIG --out MODEL"
	}
	return func(env *Env, eps float64, o erae.MechanismOptions) (mechanisms.Mechanism, error) {
		if o.Model == "" {
			return nil, fmt.Errorf("%s: model is empty: want the path of a model written by `%s`", name, train)
		}
		path := o.Model
		if !filepath.IsAbs(path) && env.ConfigDir != "" {
			path = filepath.Join(env.ConfigDir, path)
		}
		m, err := env.Memo("erae/"+path, func() (any, error) { return erae.Load(path) })
		if err != nil {
			return nil, err
		}
		model := m.(*erae.Model)
		if want, ok := env.InputSHA256[filepath.Clean(path)]; ok && model.SHA256() != want {
			return nil, fmt.Errorf("%s: model %s changed after the run hashed it (sha256 %.12s… in the manifest, %.12s… loaded): the results would not come from the file the manifest names; run again once it no longer changes",
				name, path, want, model.SHA256())
		}
		if err := model.CheckKind(path, reward); err != nil {
			return nil, err
		}
		// The configured vectors rate the generator's top candidates in the diagnostics when
		// they hold the model's words (they do when it was trained on this config); the
		// release never reads them.
		vectors := env.Embeddings
		if vectors != nil && model.VectorsCover(vectors) != nil {
			vectors = nil
		}
		return erae.NewMechanism(model, eps, o.Stages, vectors)
	}
}
