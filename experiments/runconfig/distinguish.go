package runconfig

import (
	"errors"
	"math"
	"slices"

	"dptext/mechanisms/distinguish"
)

// DistinguishConfig is the optional [distinguish] table: every mechanism at every ε of the grid
// (the identity and the unclaimed ones too) is measured by package distinguish's game between
// neighbouring documents of the set's evaluation snippets, and the empirical document-level ε
// it implies is reported per distance as the privacy rows "distinguish_eps_<k>" with their
// "_lcb", "_ucb" and "_ceiling" rows (see runner's distinguishRows). Unset keys take
// distinguish.DefaultOptions.
type DistinguishConfig struct {
	// Pairs per distance; Words the documents' length (the snippets' first Words words);
	// Releases per document (half choose the distinguisher, half are scored).
	Pairs    int `toml:"pairs"`
	Words    int `toml:"words"`
	Releases int `toml:"releases"`
	// Distances are the numbers k of words taken from another author's snippet; 0 stands for
	// the other author's whole snippet.
	Distances []int `toml:"distances"`
	// Distinguishers are the names tried (distinguish.Names; default all).
	Distinguishers []string `toml:"distinguishers"`
	// Alpha is the error rate of each one-sided bound; Replicates the bootstrap's.
	Alpha      float64 `toml:"alpha"`
	Replicates int     `toml:"replicates"`
	// VerdictLevels, with a [verdict] table, are levels of empirical ε at which the mechanisms
	// with an ε grid are compared (all of them on one scale), at distance VerdictDistance (one
	// of Distances; default the first).
	VerdictLevels   []float64 `toml:"verdict_levels"`
	VerdictDistance *int      `toml:"verdict_distance"`
}

// The limits of [distinguish]: the work is pairs × releases × (distances + 1) documents per cell.
const maxDistinguishPairs, maxDistinguishReleases, maxDistinguishReplicates = 10_000, 1_000, 100_000

// Options are the table's values as distinguish.Options.
func (d *DistinguishConfig) Options() distinguish.Options {
	return distinguish.Options{Pairs: d.Pairs, Words: d.Words, Releases: d.Releases, Distances: d.Distances,
		Distinguishers: d.Distinguishers, Alpha: d.Alpha, Replicates: d.Replicates}
}

// validateDistinguish fills the defaults of [distinguish] and checks its values.
func (c *Config) validateDistinguish() error {
	d := c.Distinguish
	if d == nil {
		return nil
	}
	def := distinguish.DefaultOptions()
	if d.Pairs == 0 {
		d.Pairs = def.Pairs
	}
	if d.Words == 0 {
		d.Words = def.Words
	}
	if d.Releases == 0 {
		d.Releases = def.Releases
	}
	if d.Distances == nil {
		d.Distances = def.Distances
	}
	if d.Alpha == 0 {
		d.Alpha = def.Alpha
	}
	if d.Replicates == 0 {
		d.Replicates = def.Replicates
	}
	switch {
	case d.Pairs > maxDistinguishPairs:
		return c.ErrAt("distinguish", "pairs", "%d: want at most %d", d.Pairs, maxDistinguishPairs)
	case d.Releases > maxDistinguishReleases:
		return c.ErrAt("distinguish", "releases", "%d: want at most %d", d.Releases, maxDistinguishReleases)
	case d.Replicates > maxDistinguishReplicates:
		return c.ErrAt("distinguish", "replicates", "%d: want at most %d", d.Replicates, maxDistinguishReplicates)
	}
	if err := d.Options().Check(); err != nil {
		var oe *distinguish.OptionError
		if errors.As(err, &oe) {
			return c.ErrAt("distinguish", oe.Key, "%s", oe.Msg)
		}
		return err
	}
	if d.VerdictDistance == nil {
		d.VerdictDistance = &d.Distances[0]
	}
	if len(d.VerdictLevels) > 0 && c.Verdict == nil {
		return c.ErrAt("distinguish", "verdict_levels", "%v: needs a [verdict] table (its utilities, replicates, confidence and alpha)", d.VerdictLevels)
	}
	for _, l := range d.VerdictLevels {
		if !(l > 0) || math.IsInf(l, 0) {
			return c.ErrAt("distinguish", "verdict_levels", "%v: %v: want finite levels above 0", d.VerdictLevels, l)
		}
	}
	if !slices.Contains(d.Distances, *d.VerdictDistance) {
		return c.ErrAt("distinguish", "verdict_distance", "%d: want one of distances = %v", *d.VerdictDistance, d.Distances)
	}
	return nil
}
