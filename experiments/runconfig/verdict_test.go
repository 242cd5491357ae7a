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
