package runconfig

import (
	"strconv"
	"strings"
	"testing"
)

// TestVerdictAttackMeasure: attack_measure defaults to accuracy, takes reciprocal_rank for an
// attacker that ranks (koppel11), and is refused with the key, the line and the valid values
// for an unknown value and for an attacker that cannot rank (sr-nn).
func TestVerdictAttackMeasure(t *testing.T) {
	verdict := func(attack, measure string) string {
		s := "\n[[scorers]]\nname = \"cosine\"\n[[scorers]]\nname = \"koppel11\"\n[verdict]\nattack = \"" + attack + "\"\nabove_chance = [0.1]\nutilities = [\"cosine\"]\n"
		if measure != "" {
			s += "attack_measure = \"" + measure + "\"\n"
		}
		return s
	}
	cfg, err := ParseConfig("ok.toml", validConfig+verdict("sr-nn", ""))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Verdict.AttackMeasure != AttackAccuracy {
		t.Errorf("attack_measure defaults to %q, want %q", cfg.Verdict.AttackMeasure, AttackAccuracy)
	}
	cfg, err = ParseConfig("ok.toml", validConfig+verdict("koppel11", "reciprocal_rank"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Verdict.AttackMeasure != AttackReciprocalRank {
		t.Errorf("attack_measure %q, want %q", cfg.Verdict.AttackMeasure, AttackReciprocalRank)
	}
	// attack_measure is the last line of these configs.
	line := strings.Count(validConfig+verdict("sr-nn", "x"), "\n")
	for _, c := range []struct{ text, want string }{
		{validConfig + verdict("sr-nn", "rank"), `bad.toml:` + strconv.Itoa(line) + `: verdict.attack_measure: "rank": want "accuracy" or "reciprocal_rank"`},
		{validConfig + verdict("sr-nn", "reciprocal_rank"), `bad.toml:` + strconv.Itoa(line) + `: verdict.attack_measure: "reciprocal_rank": attacker sr-nn (sr-nn) scores no candidate but the one it names`},
	} {
		_, err := ParseConfig("bad.toml", c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
		if err != nil && !strings.Contains(err.Error(), "koppel11") && strings.Contains(c.want, "scores no candidate") {
			t.Errorf("error %v does not name an attacker that ranks", err)
		}
	}
}

// TestVerdictPrimary: [verdict] primary takes "A vs B" pairs and "* vs X" of configured
// mechanism ids, parsed into PrimaryComparisons, and refuses any other entry with the key, the
// line and what would be valid.
func TestVerdictPrimary(t *testing.T) {
	verdict := func(primary string) string {
		return "\n[[scorers]]\nname = \"cosine\"\n[[scorers]]\nname = \"koppel11\"\n[verdict]\nattack = \"koppel11\"\nabove_chance = [0.1]\nutilities = [\"cosine\"]\nprimary = " + primary + "\n"
	}
	cfg, err := ParseConfig("ok.toml", validConfig+verdict(`["none vs none", "* vs none"]`))
	if err == nil {
		t.Fatalf("a pair of one mechanism with itself was accepted: %+v", cfg.Verdict.PrimaryComparisons)
	}
	ids := func(c *Config) []string {
		var out []string
		for _, m := range c.Mechanisms {
			out = append(out, m.ID())
		}
		return out
	}
	base, err := ParseConfig("ok.toml", validConfig)
	if err != nil {
		t.Fatal(err)
	}
	ms := ids(base)
	if len(ms) < 2 {
		t.Fatalf("validConfig has mechanisms %v, want two", ms)
	}
	cfg, err = ParseConfig("ok.toml", validConfig+verdict(`["`+ms[0]+` vs `+ms[1]+`", "* vs `+ms[1]+`"]`))
	if err != nil {
		t.Fatal(err)
	}
	want := []PrimaryComparison{{A: ms[0], B: ms[1]}, {Against: ms[1]}}
	if got := cfg.Verdict.PrimaryComparisons; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("primary parsed %+v, want %+v", got, want)
	}
	line := strings.Count(validConfig+verdict(`[]`), "\n")
	for _, c := range []struct{ primary, want string }{
		{`["` + ms[0] + `-` + ms[1] + `"]`, `: want "A vs B" (two mechanism ids) or "* vs X"`},
		{`["` + ms[0] + ` vs nosuch"]`, `: want two different configured mechanism ids, or * and one (mechanisms: `},
		{`["* vs *"]`, `: want two different configured mechanism ids`},
	} {
		_, err := ParseConfig("bad.toml", validConfig+verdict(c.primary))
		prefix := "bad.toml:" + strconv.Itoa(line) + ": verdict.primary: "
		if err == nil || !strings.Contains(err.Error(), prefix) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("primary %s: error %v, want one containing %q and %q", c.primary, err, prefix, c.want)
		}
	}
}
