package rundir

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"dptext/experiments/registry"
	"dptext/experiments/runconfig"
	"dptext/internal/filehash"
)

// Fingerprint is everything that determines a finished cell besides its own coordinates: the
// config text, the component versions and behaviour fingerprints, the seed and the content
// hash of every input. Finished cells are reused only under an equal fingerprint. It is kept
// in cells/fingerprint.json.
type Fingerprint struct {
	ConfigHash string            `json:"config_sha256"`
	Seed       uint64            `json:"seed"`
	Components map[string]string `json:"component_versions"`
	// Inputs maps each input's role to its content hash.
	Inputs map[string]string `json:"inputs"`
	// Behaviour maps each component to its behaviour fingerprint (package
	// experiments/fingerprint): code that releases or decides differently on the canary has
	// another, whatever its registry version says.
	Behaviour map[string]string `json:"behaviour,omitempty"`
}

// NewFingerprint is the fingerprint of a run of cfg on inputs by components behaving as
// behaviour says (component → fingerprint; see Fingerprint.Behaviour).
func NewFingerprint(cfg *runconfig.Config, inputs []Input, behaviour map[string]string) *Fingerprint {
	fp := &Fingerprint{ConfigHash: cfg.Hash, Seed: uint64(cfg.Seed), Components: ComponentVersions(cfg), Inputs: map[string]string{}, Behaviour: behaviour}
	for _, in := range inputs {
		fp.Inputs[in.Role] = in.SHA256
	}
	return fp
}

// Hash is the SHA-256 of the fingerprint's JSON (map keys sorted).
func (fp *Fingerprint) Hash() string {
	data, _ := json.Marshal(fp)
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Diff names what differs from old, as "what (old → new)" items.
func (fp *Fingerprint) Diff(old *Fingerprint) []string {
	short := func(s string) string {
		if len(s) > 12 {
			return s[:12] + "…"
		}
		if s == "" {
			return "none"
		}
		return s
	}
	var out []string
	if old.ConfigHash != fp.ConfigHash {
		out = append(out, fmt.Sprintf("config (sha256 %s → %s)", short(old.ConfigHash), short(fp.ConfigHash)))
	}
	if old.Seed != fp.Seed {
		out = append(out, fmt.Sprintf("seed (%d → %d)", old.Seed, fp.Seed))
	}
	out = append(out, ChangedComponents(old.Components, fp.Components)...)
	if old.Behaviour == nil && fp.Behaviour != nil {
		out = append(out, "behaviour fingerprints (none recorded: made by a dptext that did not fingerprint its components)")
	}
	if old.Behaviour != nil {
		for _, k := range slices.Sorted(maps.Keys(mergeKeys(old.Behaviour, fp.Behaviour))) {
			o, wasThere := old.Behaviour[k]
			n, isThere := fp.Behaviour[k]
			switch {
			case !wasThere:
				out = append(out, fmt.Sprintf("behaviour of %s (fingerprinted now, not by the code that made the cells: it is new or was not measured then)", k))
			case !isThere:
				out = append(out, fmt.Sprintf("behaviour of %s (fingerprinted by the code that made the cells, not now)", k))
			case o != n:
				out = append(out, fmt.Sprintf("behaviour of %s (%s → %s: the code releases or decides differently on the canary)", k, short(o), short(n)))
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(mergeKeys(old.Inputs, fp.Inputs))) {
		if old.Inputs[k] != fp.Inputs[k] {
			out = append(out, fmt.Sprintf("%s (sha256 %s → %s)", k, short(old.Inputs[k]), short(fp.Inputs[k])))
		}
	}
	return out
}

func mergeKeys(a, b map[string]string) map[string]string {
	m := map[string]string{}
	for k, v := range a {
		m[k] = v
	}
	for k, v := range b {
		m[k] = v
	}
	return m
}

func fingerprintPath(dir string) string { return filepath.Join(dir, "cells", "fingerprint.json") }

// readFingerprint reads cells/fingerprint.json; nil when there is none.
func readFingerprint(dir string) (*Fingerprint, error) {
	data, err := filehash.ReadRegular(fingerprintPath(dir), filehash.MaxStateBytes, "a run's fingerprint")
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	fp := &Fingerprint{}
	if err := json.Unmarshal(data, fp); err != nil {
		return nil, fmt.Errorf("%s: %w", fingerprintPath(dir), err)
	}
	return fp, nil
}

func (fp *Fingerprint) Write(dir string) error {
	data, err := json.MarshalIndent(fp, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(fingerprintPath(dir), append(data, '\n'))
}

// CheckFingerprint refuses to reuse the finished cells in dir/cells when they were made from
// anything else than now, naming what changed; it records now when no cell is there yet.
func CheckFingerprint(dir string, now *Fingerprint) error {
	old, err := readFingerprint(dir)
	if err != nil {
		return err
	}
	if old == nil || old.Hash() == now.Hash() {
		return now.Write(dir)
	}
	if !hasCellFiles(dir) {
		return now.Write(dir)
	}
	return Refusef("%s holds finished cells computed from other data or settings, or by code that behaves differently; changed: %s. Reusing them would mix old and new results: choose another --out, or --force to recompute every cell",
		dir, strings.Join(now.Diff(old), ", "))
}

// hasCellFiles reports whether dir/cells holds any cell file.
func hasCellFiles(dir string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "cells", "*.cell"))
	return len(files) > 0
}

// DataInputs hashes the data files the config's mechanisms and scorers declare
// (MechanismSpec.Files, ScorerSpec.Files: SynTF's WordNet dictionary, the erae/ae-dp model
// file, …), so that a change to them is noticed.
func DataInputs(cfg *runconfig.Config) ([]Input, error) {
	var out []Input
	add := func(kind, table string, i int, id string, files []registry.InputFile) error {
		for _, f := range files {
			path := f.Path
			if f.ConfigRelative {
				path = cfg.Resolve(path)
			}
			sum, n, err := HashPath(path)
			if err != nil {
				return fmt.Errorf("%s %s: %s: %w", kind, id, f.Key, err)
			}
			out = append(out, Input{Role: fmt.Sprintf("%s (%s[%d])", f.Role, table, i), Path: filepath.ToSlash(f.Path), SHA256: sum, Bytes: n, Read: filepath.Clean(path)})
		}
		return nil
	}
	for i, m := range cfg.Mechanisms {
		o, err := cfg.MechanismOptions(i)
		if err != nil {
			return nil, err
		}
		if err := add("mechanism", "mechanisms", i, m.ID(), o.Files()); err != nil {
			return nil, err
		}
	}
	for i, s := range cfg.Scorers {
		o, err := cfg.ScorerOptions(i)
		if err != nil {
			return nil, err
		}
		if err := add("scorer", "scorers", i, s.ID(), o.Files()); err != nil {
			return nil, err
		}
	}
	return out, nil
}
