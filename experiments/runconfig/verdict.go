package runconfig

import (
	"math"
	"slices"
	"strings"

	"dptext/attackers"
	"dptext/experiments/registry"
	"dptext/experiments/report/verdict"
)

// VerdictConfig is the optional [verdict] table: which mechanism keeps more utility at the same
// attack success. For each set, every mechanism's utilities are interpolated along its own ε
// grid at the attack levels chance + each of AboveChance (with Search, the grid is first
// extended until each level is closely bracketed), with intervals from a cluster bootstrap
// over the evaluation authors, and every pair of mechanisms is compared with p-values from
// the same replicates adjusted by the stepdown over the whole file, or over the Primary
// comparisons and the rest apart (verdict.MatchedWeights, verdict.AdjustFamilies); with ClaimedEps or AuditedEps the mechanisms that share a unit of
// guarantee are also compared at those levels of claimed or audited ε. Written as verdict.md
// and verdict.csv in the run folder.
type VerdictConfig struct {
	// Attack is the id of the authorship attacker that sets the privacy level.
	Attack string `toml:"attack"`
	// AttackMeasure is the per-item attack score the levels and the matching use: "accuracy"
	// (default: 1 when the attacker names the true author, else 0) or "reciprocal_rank" (the
	// true author's reciprocal rank among the candidates, ties broken at random in
	// expectation: attackers.ReciprocalRank; needs an attacker that ranks, registry Ranks),
	// whose chance level is H_n/n for n authors. Its items vary less than 0/1 correctness.
	AttackMeasure string `toml:"attack_measure"`
	// AboveChance are the attack levels above chance (the attack measure of a uniform guess:
	// 1/authors for accuracy, H_n/n for reciprocal rank), e.g. [0.05, 0.1].
	AboveChance []float64 `toml:"above_chance"`
	// Utilities are the ids of topic classifiers (per-item correctness) and utility measures
	// (per-item values) to compare.
	Utilities []string `toml:"utilities"`
	// Baseline is the unprivatised mechanism (default "none"; "" for none): no point of any
	// curve; verdict.md reports how often it meets each level by itself.
	Baseline *string `toml:"baseline"`
	// Replicates of the bootstrap (default: chosen from the family, verdict.DefaultReplicates:
	// 20000, or the 2m/α a family of m compared pairs needs, verdict.MinReplicates, at most
	// 100000; ReplicatesChosen says so), Confidence of the
	// utilities' intervals (default 0.95), Alpha the family-wise error rate of each family of
	// verdicts (default 0.05).
	Replicates int     `toml:"replicates"`
	Confidence float64 `toml:"confidence"`
	Alpha      float64 `toml:"alpha"`
	// ReplicatesChosen is true when the config does not give replicates: Replicates is then
	// verdict.BaseReplicates, raised by the verdicts once the family's size is known.
	ReplicatesChosen bool `toml:"-"`
	// Halves also compares the mechanisms on two disjoint halves of the authors (a seeded
	// split) and says, for every significant verdict on all of them, whether it holds on each
	// half.
	Halves bool `toml:"halves"`
	// ClaimedEps are levels of claimed ε at which the mechanisms whose guarantees share a unit
	// are compared, keyed by that unit: "pure" (ε per document: the privacy row epsilon_doc,
	// e.g. expmech's ε·l, SynTF's ℓ·n) or "metric:<metric>" (ε per unit of that metric's word
	// distance: epsilon_doc divided by the mean evaluation document length, as a metric
	// guarantee's document ε is ε·N), e.g. { pure = [5000], "metric:positional" = [3, 5] }. The
	// units of a run are derived from the mechanisms' guarantees (verdict.md lists them).
	ClaimedEps map[string][]float64 `toml:"claimed_eps"`
	// AuditedEps are levels of audited ε (the privacy row audited_eps_lcb, per claim unit; needs
	// [audit]) keyed by unit as ClaimedEps. Only exact losses are positions (an audit ceiling of
	// ∞); counting lower bounds are left out and listed.
	AuditedEps map[string][]float64 `toml:"audited_eps"`
	// Search (default true) adds cells at new ε, within each mechanism's ε range, until every
	// attack level is bracketed by points of the mechanism's own grid closely enough (see
	// experiments/verdictrun's epsearch.go and docs/statistics.md); the added cells are ordinary cells of the run.
	Search *bool `toml:"search"`
	// Primary lists the planned comparisons, tested as their own family at Alpha (every other
	// comparison is then an exploratory family of its own): "A vs B" compares mechanisms A and
	// B, "* vs X" every mechanism against X (mechanism ids), on every axis, level and utility.
	Primary []string `toml:"primary"`
	// PrimaryComparisons is Primary parsed (filled by validation).
	PrimaryComparisons []PrimaryComparison `toml:"-"`
	// SearchRounds bounds the rounds of the search (default 4; each round adds at most two ε
	// per mechanism and level: one outside the bracket, one inside it).
	SearchRounds int `toml:"search_rounds"`
}

// PrimaryComparison is one entry of [verdict] primary: the pair A, B, or (Against set) every
// mechanism against Against.
type PrimaryComparison struct{ A, B, Against string }

// parsePrimary checks [verdict] primary's entries against the configured mechanism ids.
func (c *Config) parsePrimary() error {
	v := c.Verdict
	var ids []string
	for _, m := range c.Mechanisms {
		ids = append(ids, m.ID())
	}
	known := func(id string) bool { return slices.Contains(ids, id) }
	v.PrimaryComparisons = nil
	for _, e := range v.Primary {
		a, b, ok := strings.Cut(e, " vs ")
		a, b = strings.TrimSpace(a), strings.TrimSpace(b)
		switch {
		case !ok || a == "" || b == "":
			return c.ErrAt("verdict", "primary", "%q: want \"A vs B\" (two mechanism ids) or \"* vs X\" (every mechanism against X)", e)
		case a == "*" && known(b):
			v.PrimaryComparisons = append(v.PrimaryComparisons, PrimaryComparison{Against: b})
		case a != "*" && a != b && known(a) && known(b):
			v.PrimaryComparisons = append(v.PrimaryComparisons, PrimaryComparison{A: a, B: b})
		default:
			return c.ErrAt("verdict", "primary", "%q: want two different configured mechanism ids, or * and one (mechanisms: %s)", e, strings.Join(ids, ", "))
		}
	}
	return nil
}

// The values of [verdict] attack_measure.
const (
	// AttackAccuracy matches on each item's 0/1 correctness of the attacker.
	AttackAccuracy = "accuracy"
	// AttackReciprocalRank matches on each item's reciprocal rank of the true author.
	AttackReciprocalRank = "reciprocal_rank"
)

// validateVerdict fills the defaults of [verdict] and checks that it names configured scorers
// of the right tasks.
func (c *Config) validateVerdict() error {
	v := c.Verdict
	if v == nil {
		return nil
	}
	if v.Baseline == nil {
		none := "none"
		v.Baseline = &none
	}
	if v.Replicates == 0 && !c.isWritten("verdict", "replicates") {
		v.Replicates, v.ReplicatesChosen = verdict.BaseReplicates, true
	}
	if v.Search == nil {
		on := true
		v.Search = &on
	}
	if v.SearchRounds == 0 && !c.isWritten("verdict", "search_rounds") {
		v.SearchRounds = 4
	}
	if v.Confidence == 0 && !c.isWritten("verdict", "confidence") {
		v.Confidence = 0.95
	}
	if v.Alpha == 0 && !c.isWritten("verdict", "alpha") {
		v.Alpha = 0.05
	}
	scorer := func(id string) (ComponentConfig, bool) {
		for _, s := range c.Scorers {
			if s.ID() == id {
				return s, true
			}
		}
		return ComponentConfig{}, false
	}
	var ids []string
	for _, s := range c.Scorers {
		ids = append(ids, s.ID())
	}
	if s, ok := scorer(v.Attack); !ok || registry.Scorers[s.Name].Task != registry.TaskAuthor {
		return c.ErrAt("verdict", "attack", "%q: want the id of a configured authorship attacker (scorers: %s)", v.Attack, strings.Join(ids, ", "))
	}
	switch v.AttackMeasure {
	case "":
		if c.isWritten("verdict", "attack_measure") {
			return c.ErrAt("verdict", "attack_measure", `"": want %q or %q, or leave attack_measure out (%q)`, AttackAccuracy, AttackReciprocalRank, AttackAccuracy)
		}
		v.AttackMeasure = AttackAccuracy
	case AttackAccuracy:
	case AttackReciprocalRank:
		if s, _ := scorer(v.Attack); !registry.Scorers[s.Name].Ranks {
			var rankers []string
			for _, n := range registry.ScorerNames() {
				if registry.Scorers[n].Ranks {
					rankers = append(rankers, n)
				}
			}
			return c.ErrAt("verdict", "attack_measure", "%q: attacker %s (%s) scores no candidate but the one it names, so it has no rank of the true author: want %q, or an attacker that ranks (%s)",
				v.AttackMeasure, v.Attack, s.Name, AttackAccuracy, strings.Join(rankers, ", "))
		}
	default:
		return c.ErrAt("verdict", "attack_measure", "%q: want %q or %q", v.AttackMeasure, AttackAccuracy, AttackReciprocalRank)
	}
	if len(v.AboveChance) == 0 {
		return c.ErrAt("verdict", "above_chance", "missing: want attack levels above chance, e.g. [0.05, 0.1]")
	}
	for _, x := range v.AboveChance {
		if !(x >= 0 && x < 1) {
			return c.ErrAt("verdict", "above_chance", "%v: want values in [0, 1)", x)
		}
	}
	if i, j := firstRepeat(v.AboveChance); i > 0 {
		return c.ErrAt("verdict", "above_chance", "%v: entries %d and %d are both %v: want distinct levels (a repeat prints its table twice and widens the familywise correction)", v.AboveChance, j, i, v.AboveChance[i-1])
	}
	if err := c.checkAboveChanceReachable(); err != nil {
		return err
	}
	if len(v.Utilities) == 0 {
		return c.ErrAt("verdict", "utilities", "missing: want ids of topic classifiers or utility measures")
	}
	for _, u := range v.Utilities {
		if s, ok := scorer(u); !ok || registry.Scorers[s.Name].Task == registry.TaskAuthor {
			return c.ErrAt("verdict", "utilities", "%q: want the id of a configured topic classifier or utility measure (scorers: %s)", u, strings.Join(ids, ", "))
		} else if registry.Scorers[s.Name].Distance {
			return c.ErrAt("verdict", "utilities", "%q: %s is a distance (a higher score keeps less), and a verdict reads every utility as \"higher keeps more\": want a similarity or a topic classifier (e.g. cosine, embf1, chrf)", u, s.Name)
		}
	}
	if i, j := firstRepeat(v.Utilities); i > 0 {
		return c.ErrAt("verdict", "utilities", "%q: entries %d and %d are both %q: want distinct ids (a repeat is compared twice and widens the familywise correction)", v.Utilities, j, i, v.Utilities[i-1])
	}
	if *v.Baseline != "" {
		found := false
		for _, m := range c.Mechanisms {
			found = found || m.ID() == *v.Baseline
		}
		if !found {
			return c.ErrAt("verdict", "baseline", "%q: want the id of a configured mechanism (normally \"none\") or \"\"", *v.Baseline)
		}
	}
	for _, t := range []struct {
		key    string
		levels map[string][]float64
	}{{"claimed_eps", v.ClaimedEps}, {"audited_eps", v.AuditedEps}} {
		for _, unit := range sortedKeys(t.levels) {
			if !validUnit(unit) {
				return c.ErrAt("verdict", t.key, "unit %q: want \"pure\" (ε per document) or \"metric:<metric>\" (ε per unit of that word distance, e.g. \"metric:positional\")", unit)
			}
			if len(t.levels[unit]) == 0 {
				return c.ErrAt("verdict", t.key, "unit %q: no levels: want ε values, e.g. [2, 5]", unit)
			}
			for _, x := range t.levels[unit] {
				if !(x > 0 && x < math.Inf(1)) {
					return c.ErrAt("verdict", t.key, "unit %q: level %v: want finite ε > 0", unit, x)
				}
			}
			if i, j := firstRepeat(t.levels[unit]); i > 0 {
				return c.ErrAt("verdict", t.key, "unit %q: %v: entries %d and %d are both %v: want distinct levels", unit, t.levels[unit], j, i, t.levels[unit][i-1])
			}
		}
	}
	if err := c.parsePrimary(); err != nil {
		return err
	}
	if len(v.AuditedEps) > 0 && c.Audit == nil {
		return c.ErrAt("verdict", "audited_eps", "needs an [audit] table (the audited ε comes from it)")
	}
	switch {
	case v.SearchRounds < 1 || v.SearchRounds > 20:
		return c.ErrAt("verdict", "search_rounds", "%d: want 1 to 20 (search = false switches the search off)", v.SearchRounds)
	case v.Replicates < 100 || v.Replicates > 100_000:
		return c.ErrAt("verdict", "replicates", "%d: want 100 to 100000", v.Replicates)
	case !(v.Confidence > 0 && v.Confidence < 1):
		return c.ErrAt("verdict", "confidence", "%v: want a value in (0, 1)", v.Confidence)
	case !(v.Alpha > 0 && v.Alpha < 1):
		return c.ErrAt("verdict", "alpha", "%v: want a value in (0, 1)", v.Alpha)
	}
	return nil
}

// AttackChance is the attack measure's chance level among n authors (a uniform guess): 1/n for
// accuracy, H_n/n for reciprocal rank.
func (v *VerdictConfig) AttackChance(n int) float64 {
	if v.AttackMeasure == AttackReciprocalRank {
		return attackers.ChanceReciprocalRank(n)
	}
	return 1 / float64(n)
}

// checkAboveChanceReachable refuses, for every set whose number of authors the config gives, an
// above_chance level whose attack level chance + x is above 1 (see CheckAboveChance).
func (c *Config) checkAboveChanceReachable() error {
	for _, s := range c.Sets {
		if s.Authors >= 2 {
			if err := c.CheckAboveChance(s.Name, s.Authors); err != nil {
				return err
			}
		}
	}
	return nil
}

// CheckAboveChance refuses an above_chance level that puts the attack level chance + x of set
// (of n authors) above 1, a success no attack measure can reach (verdict.md printed such a
// level, and every mechanism "never reached" it).
func (c *Config) CheckAboveChance(set string, n int) error {
	v := c.Verdict
	if v == nil {
		return nil
	}
	chance := v.AttackChance(n)
	for _, x := range v.AboveChance {
		if chance+x > 1 {
			return c.ErrAt("verdict", "above_chance", "%v: set %q has %d authors, so its %s level is chance %.4g + %v = %.4g, above 1 (no attack exceeds 1): want levels at most %.4g for this set",
				x, set, n, v.AttackMeasure, chance, x, chance+x, 1-chance)
		}
	}
	return nil
}

// validUnit reports whether a [verdict] unit key has the form guaranteeUnit gives.
func validUnit(u string) bool {
	return u == "pure" || (strings.HasPrefix(u, "metric:") && len(u) > len("metric:"))
}

// firstRepeat finds the first entry of list equal to an earlier one: its position and the
// earlier one's, counted from 1 (0, 0: the entries are distinct).
func firstRepeat[T comparable](list []T) (at, first int) {
	seen := map[T]int{}
	for i, x := range list {
		if j, ok := seen[x]; ok {
			return i + 1, j + 1
		}
		seen[x] = i
	}
	return 0, 0
}
