package runconfig

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// verdictTail adds a cosine utility and a [verdict] table to validConfig; extra lines follow
// its last key.
const verdictTail = "\n[[scorers]]\nname = \"cosine\"\n[[scorers]]\nname = \"chrf\"\n[verdict]\nattack = \"sr-nn\"\nabove_chance = [0.1]\nutilities = [\"cosine\"]\n"

// TestWrittenValuesAreValidated: every value the issue found silently replaced, duplicated or
// turned into NaN is refused by the config's validation (what `check` and `run` share), at the
// line of its key, with the key and the valid range. The line is that of the last line of each
// config (the key under test is written last). Each absent key still takes its default. The
// mutant of each "written" test is the former `if x == 0 { x = default }`, under which the
// config parses.
func TestWrittenValuesAreValidated(t *testing.T) {
	base := validConfig + verdictTail
	for _, c := range []struct{ text, key, want string }{
		{base + "search_rounds = 0\n", "verdict.search_rounds", "0: want 1 to 20"},
		{base + "replicates = 0\n", "verdict.replicates", "0: want 100 to 100000"},
		{base + "confidence = 0\n", "verdict.confidence", "0: want a value in (0, 1)"},
		{base + "alpha = 0\n", "verdict.alpha", "0: want a value in (0, 1)"},
		{base + "[distinguish]\nwords = 0\n", "distinguish.words", "0: want 1 to"},
		{base + "[distinguish]\npairs = 0\n", "distinguish.pairs", "0: want 2 to 10000"},
		{base + "[distinguish]\nreleases = 0\n", "distinguish.releases", "0: want 2 to 1000"},
		{base + "[distinguish]\nreplicates = 0\n", "distinguish.replicates", "0: want 100 to 100000"},
		{base + "[distinguish]\nalpha = 0\n", "distinguish.alpha", "0: want a value in (0, 0.5)"},
		{base + "[audit]\nsamples = 0\n", "audit.samples", "0: want 10 to"},
		{base + "[audit]\nalpha = 0\n", "audit.alpha", "0: want a value in (0, 1)"},
		{base + "[audit]\npairs = 0\n", "audit.pairs", "0: want 1 to"},
		{base + "[distinguish]\nverdict_levels = [710]\n", "distinguish.verdict_levels", "710: its distinguisher accuracy"},
		{base + "[distinguish]\nverdict_levels = [37]\n", "distinguish.verdict_levels", "want levels above 0, at most 36."},
		{base + "[distinguish]\nverdict_levels = [1, 2, 1]\n", "distinguish.verdict_levels", "entries 1 and 3 are both 1"},
		{base + "[distinguish]\ndistinguishers = [\"overlap\", \"overlap\"]\n", "distinguish.distinguishers", "entries 1 and 2 are both \"overlap\""},
		{strings.Replace(base, `utilities = ["cosine"]`, `utilities = ["cosine", "chrf", "cosine"]`, 1), "verdict.utilities", "entries 1 and 3 are both \"cosine\""},
		{strings.Replace(base, `above_chance = [0.1]`, `above_chance = [0.1, 0.1]`, 1), "verdict.above_chance", "entries 1 and 2 are both 0.1"},
		{strings.Replace(base, `above_chance = [0.1]`, `above_chance = [0.9]`, 1), "verdict.above_chance", `set "4" has 4 authors, so its accuracy level is chance 0.25 + 0.9 = 1.15, above 1`},
		{base + "claimed_eps = { pure = [5, 5] }\n", "verdict.claimed_eps", "entries 1 and 2 are both 5"},
		{strings.Replace(validConfig, "format = \"sotu\"", "format = \"sotu\"\ntopic = \"era\"\nera_split_year = 0", 1), "corpus.era_split_year", "0: want a year in 1791…2100"},
		{strings.Replace(validConfig, "format = \"sotu\"", "format = \"sotu\"\nera_split_year = 1913", 1), "corpus.era_split_year", "applies to topic = \"era\" only"},
		{strings.Replace(validConfig, "authors = 4", "authors = 0\nall_authors = true", 1), "sets[0].all_authors", "with authors = 0: give one of them"},
		{validConfig + "[report]\nmetric = \"accuracy\"\n[[report.references]]\nset = \"4\"\nlabel = \"sr-nn\"\nvalues = { none = 0.5 }\nauthors = 0\n", "report.references[0].authors", "0: want the number of authors of the published set (≥ 1), or leave authors out"},
		{strings.Replace(validConfig, "epsilons = [30, 10]", "epsilons = [30, 10, 30.0]", 1), "mechanisms[1].epsilons", "30 appears twice (entries 1 and 3)"},
		{base + "attack_measure = \"\"\n", "verdict.attack_measure", `"": want "accuracy" or "reciprocal_rank", or leave attack_measure out`},
		{validConfig + "label = \"\"\n", "scorers[0].label", `"": want a label, or leave label out (the scorer is then named "sr-nn")`},
		{validConfig + "protocol = \"\"\n", "scorers[0].protocol", `"": want "static" or "adaptive", or leave protocol out`},
		{validConfig + "[report]\nlevel = 0\n", "report.level", "level = 0: want a confidence level"},
		{validConfig + "[report]\nprivacy_metrics = [\"gamma\", \"gamma\"]\n", "report.privacy_metrics", "entries 1 and 2 are both \"gamma\""},
	} {
		_, err := ParseConfig("bad.toml", c.text)
		line := strconv.Itoa(lineOf(c.text, c.key))
		want := "bad.toml:" + line + ": " + c.key + ": "
		if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q…%q", c.key, err, want, c.want)
		}
	}
	cfg, err := ParseConfig("ok.toml", base+"[distinguish]\n[audit]\n")
	if err != nil {
		t.Fatal(err)
	}
	if v, d, a := cfg.Verdict, cfg.Distinguish, cfg.Audit; v.Replicates != 20000 || v.SearchRounds != 4 || v.Confidence != 0.95 || v.Alpha != 0.05 ||
		d.Pairs != 60 || d.Words != 100 || d.Releases != 10 || d.Replicates != 2000 || d.Alpha != 0.05 || a.Samples == 0 || a.Pairs == 0 || a.Alpha == 0 {
		t.Errorf("absent keys did not take their defaults: %+v %+v %+v", v, d, a)
	}
	// Written as dotted keys or inline tables, a 0 is as written.
	for _, text := range []string{validConfig + verdictTail + "search_rounds = 0\n", strings.Replace(validConfig, "seed = 1", "seed = 1\ndistinguish = { pairs = 0 }", 1)} {
		if _, err := ParseConfig("bad.toml", text); err == nil {
			t.Errorf("accepted %q", text[len(text)-40:])
		}
	}
}

// lineOf is the line of the key (dotted: table.key) in text: the last line that writes key or
// names it in an inline table or list.
func lineOf(text, key string) int {
	leaf := key[strings.LastIndex(key, ".")+1:]
	line := 0
	for i, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), leaf+" ") || strings.HasPrefix(strings.TrimSpace(l), leaf+"=") {
			line = i + 1
		}
	}
	return line
}

// TestDistinguishLevelAccuracy: the stable form agrees with e^ε/(1 + e^ε) where that is
// finite and stays a number (1) where it is NaN; the mutant, the quotient, is NaN at 710.
func TestDistinguishLevelAccuracy(t *testing.T) {
	for _, x := range []float64{1e-9, 0.5, 1, 5, 20, 36} {
		if got, want := DistinguishLevelAccuracy(x), math.Exp(x)/(1+math.Exp(x)); math.Abs(got-want) > 1e-15 {
			t.Errorf("ε %v: %v, want %v", x, got, want)
		}
	}
	for _, x := range []float64{710, 1e300} {
		if got := DistinguishLevelAccuracy(x); got != 1 {
			t.Errorf("ε %v: %v, want 1", x, got)
		}
	}
	if DistinguishLevelAccuracy(maxDistinguishLevel) >= 1 || DistinguishLevelAccuracy(maxDistinguishLevel+0.1) < 1 {
		t.Errorf("maxDistinguishLevel %v is not where the accuracy reaches 1", maxDistinguishLevel)
	}
}

// TestWrongTypeNamesKeyAndLine: a value of the wrong type is refused at its line with its key
// (array index included); it named neither ("toml: line 30 (last key "sets.authors"): …" in
// the message, no line in the error). Mutant: parseConfig without decodeErrorRE.
func TestWrongTypeNamesKeyAndLine(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{strings.Replace(validConfig, "authors = 4", "authors = 4.5", 1), "bad.toml:9: sets[0].authors: incompatible types"},
		{validConfig + verdictTail + "confidence = true\n", "bad.toml:" + strconv.Itoa(strings.Count(validConfig+verdictTail, "\n")+1) + ": verdict.confidence: incompatible types"},
	} {
		if _, err := ParseConfig("bad.toml", c.text); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("error %v, want %q…", err, c.want)
		}
	}
}

// TestClassificationKeysElsewhere: a key only the classification protocol reads, written under
// another protocol, was silently unused; it is refused at its line. Mutant: no check (parses).
func TestClassificationKeysElsewhere(t *testing.T) {
	text := strings.Replace(validConfig, "seed = 1", "seed = 1\n[protocol]\ntest_share = 0.5", 1)
	if _, err := ParseConfig("bad.toml", text); err == nil || !strings.HasPrefix(err.Error(), `bad.toml:4: protocol.test_share: applies to the classification protocol only (kind = "authorship"`) {
		t.Errorf("error %v", err)
	}
	text = strings.Replace(validConfig, "seed = 1", "seed = 1\n[protocol]\nkind = \"classification\"\ntest_share = 0.5", 1)
	if _, err := ParseConfig("ok.toml", text); err != nil {
		t.Errorf("classification: %v", err)
	}
}
