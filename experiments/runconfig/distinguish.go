package runconfig

import (
	"errors"
	"math"
	"slices"

	"dptext/internal/configfile"
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

// DistinguishLevelAccuracy is the distinguisher accuracy e^ε/(1 + e^ε) of an empirical ε level,
// computed as 1/(1 + e^−ε), which stays finite for every ε (the quotient is ∞/∞ = NaN from
// ε = 710 on).
func DistinguishLevelAccuracy(eps float64) float64 { return 1 / (1 + math.Exp(-eps)) }

// maxDistinguishLevel bounds [distinguish] verdict_levels: from about ε = 36.7 on, e^−ε is
// below half a float64 ulp of 1 and the level's accuracy is exactly 1.
var maxDistinguishLevel = math.Floor(10*math.Log(1/(0x1p-53))) / 10

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
	if d.Pairs == 0 && !c.isWritten("distinguish", "pairs") {
		d.Pairs = def.Pairs
	}
	if d.Words == 0 && !c.isWritten("distinguish", "words") {
		d.Words = def.Words
	}
	if d.Releases == 0 && !c.isWritten("distinguish", "releases") {
		d.Releases = def.Releases
	}
	if d.Distances == nil {
		d.Distances = def.Distances
	}
	if d.Alpha == 0 && !c.isWritten("distinguish", "alpha") {
		d.Alpha = def.Alpha
	}
	if d.Replicates == 0 && !c.isWritten("distinguish", "replicates") {
		d.Replicates = def.Replicates
	}
	switch {
	case d.Pairs < 2 || d.Pairs > maxDistinguishPairs:
		return c.ErrAt("distinguish", "pairs", "%d: want 2 to %d", d.Pairs, maxDistinguishPairs)
	case d.Words < 1 || d.Words > configfile.MaxCount:
		return c.ErrAt("distinguish", "words", "%d: want 1 to %d (and at most the snippets' length)", d.Words, configfile.MaxCount)
	case d.Releases < 2 || d.Releases > maxDistinguishReleases:
		return c.ErrAt("distinguish", "releases", "%d: want 2 to %d (half choose the distinguisher, half are scored)", d.Releases, maxDistinguishReleases)
	case d.Replicates < 100 || d.Replicates > maxDistinguishReplicates:
		return c.ErrAt("distinguish", "replicates", "%d: want 100 to %d", d.Replicates, maxDistinguishReplicates)
	case !(d.Alpha > 0 && d.Alpha < 0.5):
		return c.ErrAt("distinguish", "alpha", "%v: want a value in (0, 0.5)", d.Alpha)
	}
	if i, j := firstRepeat(d.Distances); i > 0 {
		return c.ErrAt("distinguish", "distances", "%v: entries %d and %d are both %d: want distinct distances", d.Distances, j, i, d.Distances[i-1])
	}
	if i, j := firstRepeat(d.Distinguishers); i > 0 {
		return c.ErrAt("distinguish", "distinguishers", "%q: entries %d and %d are both %q: want distinct names", d.Distinguishers, j, i, d.Distinguishers[i-1])
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
		if DistinguishLevelAccuracy(l) >= 1 {
			return c.ErrAt("distinguish", "verdict_levels", "%v: %v: its distinguisher accuracy e^ε/(1 + e^ε) is 1 to within float64 precision (from ε ≈ %.1f on), a level no measured accuracy can be told from: want levels above 0, at most %.1f",
				d.VerdictLevels, l, maxDistinguishLevel, maxDistinguishLevel)
		}
	}
	if i, j := firstRepeat(d.VerdictLevels); i > 0 {
		return c.ErrAt("distinguish", "verdict_levels", "%v: entries %d and %d are both %v: want distinct levels (a repeat prints its table twice and widens the familywise correction)", d.VerdictLevels, j, i, d.VerdictLevels[i-1])
	}
	if !slices.Contains(d.Distances, *d.VerdictDistance) {
		return c.ErrAt("distinguish", "verdict_distance", "%d: want one of distances = %v", *d.VerdictDistance, d.Distances)
	}
	return nil
}
