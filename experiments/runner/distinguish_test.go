package runner

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"dptext/experiments/report"
	"dptext/experiments/runconfig"
	"dptext/internal/fixtures"
)

// eightAuthors returns the head of a config over the generated corpus (5 authors per topic, 6
// documents each): the name, seed 3, one repeat, the corpus and vectors, 4 snippets per author
// and one set of 8 authors. The tests of this file add mechanisms, scorers and tables to it.
func eightAuthors(t *testing.T, name string) string {
	corpusPath, vecPath := fixtures.Corpus(t, 5, 6, 800)
	return fmt.Sprintf("name = %q\nseed = 3\nrepeats = 1\n%ssnippets_per_author = 4\n[[sets]]\nname = \"8\"\nauthors = 8\n", name, fixtures.Inputs(corpusPath, vecPath))
}

// TestDistinguishKnownAnswers runs [distinguish] over the generated corpus with real mechanisms
// of known order and checks the empirical ε lower bounds (rows distinguish_eps_<k>_lcb) against
// the truth: none is the most distinguishable at every distance; uniform random replacement
// shows (nearly) none (lower bound at most 0.1, at a false-failure rate of about 0.5% per
// distance: see distinguish.TestKnownAnswers); the same mechanism under two labels gets
// overlapping intervals at every distance; EMD at ε = 200 is more distinguishable than at ε = 2
// (lower bound above the other's upper bound) at 5 changed words. It also checks that the rows are the same at
// --jobs 1 and 3. Mutants: distinguish.TestKnownAnswers shows the leaking "random" release that
// randomOK refuses; here, swapping the two EMD labels makes the ordering check fail (it is an
// inequality between measured bounds, not a constant).
func TestDistinguishKnownAnswers(t *testing.T) {
	text := eightAuthors(t, "distinguish") + `[[mechanisms]]
name = "none"
[[mechanisms]]
name = "random"
[[mechanisms]]
name = "emd"
epsilons = [200, 2]
[[mechanisms]]
name = "expmech"
label = "expmech-a"
epsilons = [8]
[[mechanisms]]
name = "expmech"
label = "expmech-b"
epsilons = [8]
[[scorers]]
name = "cosine"
[distinguish]
pairs = 32
words = 50
releases = 10
distances = [1, 5, 0]
`
	cfg, err := runconfig.ParseConfig(filepath.Join(t.TempDir(), "d.toml"), text)
	if err != nil {
		t.Fatal(err)
	}
	d1, d2 := t.TempDir(), t.TempDir()
	if err := runFixture(t, cfg, d1, 1, context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if err := runFixture(t, cfg, d2, 3, context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if readFile(t, filepath.Join(d1, "results.csv")) != readFile(t, filepath.Join(d2, "results.csv")) {
		t.Fatal("results.csv differs between --jobs 1 and --jobs 3")
	}
	rows, err := report.ReadRowsFile(filepath.Join(d1, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	type key struct{ mech, eps, metric string }
	got := map[key]float64{}
	for _, r := range rows {
		if r.Scorer == "privacy" {
			got[key{r.Mechanism, r.Epsilon.String(), r.Metric}] = r.Value
		}
	}
	at := func(mech, eps, k, suffix string) float64 {
		v, ok := got[key{mech, eps, "distinguish_eps_" + k + suffix}]
		if !ok && suffix == "_ucb" && got[key{mech, eps, "distinguish_accuracy_" + k}] > 0 {
			return math.Inf(1) // an infinite upper bound is no row
		}
		if !ok {
			t.Fatalf("no row distinguish_eps_%s%s for %s ε %q", k, suffix, mech, eps)
		}
		return v
	}
	if got[key{"none", "", "distinguish_pairs"}] != 32 || got[key{"none", "", "distinguish_releases"}] != 10 {
		t.Errorf("design rows: pairs %v, releases %v: want 32, 10", got[key{"none", "", "distinguish_pairs"}], got[key{"none", "", "distinguish_releases"}])
	}
	for _, k := range []string{"k1", "k5", "doc"} {
		none := at("none", "", k, "_lcb")
		t.Logf("%s: none %.3g, random [%.3g, %.3g], emd 200 [%.3g, %.3g], emd 2 [%.3g, %.3g], expmech-a [%.3g, %.3g], expmech-b [%.3g, %.3g]", k, none,
			at("random", "", k, "_lcb"), at("random", "", k, "_ucb"), at("emd", "200", k, "_lcb"), at("emd", "200", k, "_ucb"),
			at("emd", "2", k, "_lcb"), at("emd", "2", k, "_ucb"), at("expmech-a", "8", k, "_lcb"), at("expmech-a", "8", k, "_ucb"),
			at("expmech-b", "8", k, "_lcb"), at("expmech-b", "8", k, "_ucb"))
		for _, m := range []struct{ mech, eps string }{{"random", ""}, {"emd", "200"}, {"emd", "2"}, {"expmech-a", "8"}} {
			if l := at(m.mech, m.eps, k, "_lcb"); l > none {
				t.Errorf("%s: %s ε %q has lower bound %.3g above none's %.3g", k, m.mech, m.eps, l, none)
			}
		}
		if l := at("random", "", k, "_lcb"); l > 0.1 {
			t.Errorf("%s: random replacement has lower bound %.3g: want at most 0.1", k, l)
		}
		if a, b := "expmech-a", "expmech-b"; at(a, "8", k, "_lcb") > at(b, "8", k, "_ucb") || at(b, "8", k, "_lcb") > at(a, "8", k, "_ucb") {
			t.Errorf("%s: one mechanism under two labels has disjoint intervals", k)
		}
	}
	if hi, lo := at("emd", "200", "k5", "_lcb"), at("emd", "2", "k5", "_ucb"); !(hi > lo) {
		t.Errorf("k5: emd at ε = 200 has lower bound %.3g, not above the upper bound %.3g at ε = 2", hi, lo)
	}
}

// TestDistinguishVerdict: with [distinguish] verdict_levels, verdict.md holds a comparison of
// the mechanisms with an ε grid (emd and expmech on one scale) at matched empirical ε, its axis
// the distinguisher's accuracy per item (predictions of scorer distinguish_k5, one value per
// author), with its replication on the halves of the authors; without the key it holds none.
// Too few pairs for every author to have one is an error that says so.
func TestDistinguishVerdict(t *testing.T) {
	base := eightAuthors(t, "distinguish-verdict") + `[[mechanisms]]
name = "none"
[[mechanisms]]
name = "emd"
epsilons = [200, 5, 2]
[[mechanisms]]
name = "expmech"
epsilons = [8, 2]
[[scorers]]
name = "sr-nn"
[[scorers]]
name = "cosine"
[verdict]
attack = "sr-nn"
above_chance = [0.1]
utilities = ["cosine"]
replicates = 200
halves = true
# no ε search: the count of distinguish rows below is per grid cell
search = false
[distinguish]
pairs = 32
words = 50
releases = 10
distances = [1, 5]
`
	for _, c := range []struct {
		extra string
		want  bool
	}{{"verdict_levels = [0.5, 1]\nverdict_distance = 5\n", true}, {"", false}} {
		cfg, err := runconfig.ParseConfig(filepath.Join(t.TempDir(), "d.toml"), base+c.extra)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := runFixture(t, cfg, dir, 2, context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		md := readFile(t, filepath.Join(dir, "verdict.md"))
		has := strings.Contains(md, "The privacy axis is the empirical document ε, 5 words of another author")
		if has != c.want {
			t.Errorf("%q: verdict.md has the empirical axis %v, want %v:\n%s", c.extra, has, c.want, md)
		}
		if c.want {
			_, axis, _ := strings.Cut(md, "The privacy axis is the empirical document ε")
			for _, want := range []string{"### distinguish_k5 ≤ 0.622 (empirical ε 0.5)", "### distinguish_k5 ≤ 0.731 (empirical ε 1)", "| emd |", "| expmech |",
				"### Replication on two disjoint halves of the authors"} {
				if !strings.Contains(axis, want) {
					t.Errorf("verdict.md lacks %q:\n%s", want, md)
				}
			}
			if n := strings.Count(readFile(t, filepath.Join(dir, "predictions.csv")), ",distinguish_k5,"); n != 6*32 {
				t.Errorf("predictions.csv has %d rows of distinguish_k5: want one per item of each of the 6 cells, 192", n)
			}
		}
	}
	cfg, err := runconfig.ParseConfig(filepath.Join(t.TempDir(), "d.toml"), strings.Replace(base, "pairs = 32", "pairs = 4", 1)+"verdict_levels = [1]\n")
	if err != nil {
		t.Fatal(err)
	}
	// Refused before the first cell (runconfig.CheckDraws); the verdict's own error is the backstop.
	if err := runFixture(t, cfg, t.TempDir(), 2, context.Background(), nil); err == nil || !strings.Contains(err.Error(), `distinguish.pairs: 4: set "8" has 8 authors`) {
		t.Errorf("4 pairs for 8 authors: error %v, want one saying every author needs a pair", err)
	}
}

// runEmpiricalSearch runs the generated corpus (8 authors, 4 snippets each) with none and one
// mechanism on grid, scorers sr-nn and cosine, a [verdict] with search_rounds rounds and a
// [distinguish] table at k = 5 with verdict_levels = [level], and returns verdict.md and
// results.csv.
func runEmpiricalSearch(t *testing.T, mechanism, grid string, rounds int, level float64) (md, results string) {
	src := eightAuthors(t, "empirical-search") + fmt.Sprintf(`[[mechanisms]]
name = "none"
[[mechanisms]]
name = %q
epsilons = [%s]
[[scorers]]
name = "sr-nn"
[[scorers]]
name = "cosine"
[verdict]
attack = "sr-nn"
above_chance = [0.1]
utilities = ["cosine"]
replicates = 200
search_rounds = %d
[distinguish]
pairs = 32
words = 50
releases = 10
distances = [5]
verdict_levels = [%g]
`, mechanism, grid, rounds, level)
	cfg, err := runconfig.ParseConfig(filepath.Join(t.TempDir(), "d.toml"), src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := runFixture(t, cfg, dir, 2, context.Background(), nil); err != nil {
		t.Fatalf("the run failed: %v", err)
	}
	return readFile(t, filepath.Join(dir, "verdict.md")), readFile(t, filepath.Join(dir, "results.csv"))
}

// TestEpsilonSearchOnEmpiricalAxis: the ε search runs on the empirical-ε axis too. emd's grid
// (200, 100) is about as distinguishable as the unprivatised text, so the level empirical ε 0.5
// lies beyond its smallest ε on that axis; the search adds emd at 100/4 = 25 (and, if still
// beyond, 25/4 = 6.25 in round 2) as ordinary cells — rows of results.csv with the
// distinguisher's scores — and the empirical axis's table says what it added. Deterministic
// (fixed seed). Mutant: a search proposing from the attack axis only (as before this change)
// leaves no search note under the empirical axis's table and fails.
func TestEpsilonSearchOnEmpiricalAxis(t *testing.T) {
	md, res := runEmpiricalSearch(t, "emd", "200, 100", 2, 0.5)
	_, axis, ok := strings.Cut(md, "The privacy axis is the empirical document ε")
	if !ok {
		t.Fatalf("verdict.md has no empirical axis:\n%s", md)
	}
	if !strings.Contains(axis, "ε search on this axis (at most 2 rounds") || !strings.Contains(axis, "emd ε = 25 (round 1: the level lies beyond its smallest ε)") {
		t.Errorf("the empirical axis's table does not say the search added emd at ε 25:\n%s", axis)
	}
	if !strings.Contains(res, ",emd,25,") || !regexp.MustCompile(`,emd,25,[^\n]*distinguish_eps_k5`).MatchString(res) {
		t.Errorf("results.csv has no distinguish row of the added emd ε 25:\n%s", res)
	}
}

// TestEpsilonSearchStopsAtARefusedEpsilon: a mechanism whose smallest ε depends on the data
// (truncated-gumbel needs ε > (2(1 + ln|V|) + 3)/Δ_min) gets search proposals (÷4 per round
// from its grid's smallest ε, on the empirical axis, where it stays above the level) until one
// is refused; the run does not fail: verdict.md says the ε was refused and that the mechanism's
// range ends there, and no cell of the refused ε is in results.csv. Deterministic. Mutant: a
// search that adds the proposed cell without asking the mechanism first fails the run with the
// mechanism's error (as configs/mechanisms.toml did).
func TestEpsilonSearchStopsAtARefusedEpsilon(t *testing.T) {
	md, res := runEmpiricalSearch(t, "truncated-gumbel", "100000, 4000", 6, 0.1)
	m := regexp.MustCompile(`truncated-gumbel ε = ([0-9.e+]+) refused by the mechanism \(.*want ε > .*\), so its range ends there`).FindStringSubmatch(md)
	if m == nil {
		t.Fatalf("verdict.md does not say which ε truncated-gumbel refused:\n%s", md)
	}
	if strings.Contains(res, ",truncated-gumbel,"+m[1]+",") {
		t.Errorf("results.csv has rows of the refused ε %s", m[1])
	}
}
