package runner

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"dptext/experiments/runconfig"
	"dptext/experiments/rundir"
	"dptext/internal/fixtures"
)

// A run with a [verdict] table writes verdict.md and verdict.csv, and predictions.csv pairs
// the items: every mechanism and ε scores the same (repeat, item) pairs with the same authors.
func TestVerdictIsWrittenAndItemsArePaired(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	cfg := fixtureConfig(t, corpusPath, vecPath)
	src := cfg.Text + `[verdict]
attack = "sr-nn"
above_chance = [0.05, 0.5]
utilities = ["fasttext", "cosine"]
replicates = 200
halves = true
search = false
`
	cfg, err := runconfig.ParseConfig(cfg.Path, src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := runFixture(t, cfg, dir, 2, context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	md := readFile(t, filepath.Join(dir, "verdict.md"))
	for _, want := range []string{"## Verdicts at matched privacy, set 6", "### sr-nn ≤ 0.217 (chance 0.167 + 0.05)", "| expmech | never reaches on its grid (lowest 0.250)",
		"12 items of 6 authors", "### sr-nn ≤ 0.667 (chance 0.167 + 0.5)", "fewer than two mechanisms reach", "### Replication on two disjoint halves of the authors"} {
		if !strings.Contains(md, want) {
			t.Errorf("verdict.md lacks %q:\n%s", want, md)
		}
	}
	recs, err := csv.NewReader(strings.NewReader(readFile(t, filepath.Join(dir, "verdict.csv")))).ReadAll()
	if err != nil || len(recs) == 0 || recs[0][0] != "set" {
		t.Fatalf("verdict.csv: %v %v", recs, err)
	}
	preds, err := csv.NewReader(strings.NewReader(readFile(t, filepath.Join(dir, "predictions.csv")))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// (scorer, repeat, item) → author, and the mechanisms/ε that scored it.
	author := map[string]string{}
	points := map[string]map[string]bool{}
	for _, p := range preds[1:] {
		key := p[4] + "/" + p[3] + "/" + p[8]
		if a, ok := author[key]; ok && a != p[9] {
			t.Fatalf("item %s has authors %s and %s", key, a, p[9])
		}
		author[key] = p[9]
		if points[key] == nil {
			points[key] = map[string]bool{}
		}
		points[key][p[1]+"/"+p[2]] = true
		if p[4] == "cosine" && p[8] != "" && p[10] == "" {
			t.Fatalf("utility row without value: %v", p)
		}
	}
	for key, ps := range points {
		if len(ps) != 3 { // none, expmech 8, expmech 2
			t.Errorf("item %s scored by %d mechanism settings, want 3", key, len(ps))
		}
	}
	if len(points) != 4*2*6 { // 4 scorers × 2 repeats × 6 items
		t.Errorf("%d (scorer, repeat, item) keys, want 48", len(points))
	}
}

func TestVerdictConfigErrors(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	base := fixtureConfig(t, corpusPath, vecPath).Text
	for _, c := range []struct{ table, want string }{
		{"[verdict]\nattack = \"fasttext\"\nabove_chance = [0.1]\nutilities = [\"cosine\"]\n", "verdict.attack"},
		{"[verdict]\nattack = \"sr-nn\"\nutilities = [\"cosine\"]\n", "verdict.above_chance"},
		{"[verdict]\nattack = \"sr-nn\"\nabove_chance = [0.1]\nutilities = [\"sr-nn\"]\n", "verdict.utilities"},
		{"[verdict]\nattack = \"sr-nn\"\nabove_chance = [0.1]\nutilities = [\"cosine\"]\nbaseline = \"nope\"\n", "verdict.baseline"},
		{"[verdict]\nattack = \"sr-nn\"\nabove_chance = [0.1]\nutilities = [\"cosine\"]\nreplicates = 5\n", "verdict.replicates"},
		{"[verdict]\nattack = \"sr-nn\"\nabove_chance = [0.1]\nutilities = [\"cosine\"]\nlevels = 5\n", "verdict.levels"},
		{"[verdict]\nattack = \"sr-nn\"\nabove_chance = [0.1]\nutilities = [\"cosine\"]\nclaimed_eps = { word = [1] }\n", "verdict.claimed_eps"},
		{"[verdict]\nattack = \"sr-nn\"\nabove_chance = [0.1]\nutilities = [\"cosine\"]\nclaimed_eps = { pure = [] }\n", "verdict.claimed_eps"},
		{"[verdict]\nattack = \"sr-nn\"\nabove_chance = [0.1]\nutilities = [\"cosine\"]\nclaimed_eps = { \"metric:EMD\" = [-1] }\n", "verdict.claimed_eps"},
		{"[verdict]\nattack = \"sr-nn\"\nabove_chance = [0.1]\nutilities = [\"cosine\"]\naudited_eps = { pure = [1] }\n", "verdict.audited_eps"},
		{"[verdict]\nattack = \"sr-nn\"\nabove_chance = [0.1]\nutilities = [\"cosine\"]\nsearch_rounds = 50\n", "verdict.search_rounds"},
	} {
		_, err := runconfig.ParseConfig("x.toml", base+c.table)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one naming %s", c.table, err, c.want)
		}
	}
}

// A verdict reads every utility as "higher keeps more", so a distance (wmd, style_l2: a higher
// score keeps less) would turn "A keeps more" into a false statement: validation refuses it and
// says why, while a similarity configured the same way is accepted. Deterministic. Mutant: without
// the registry's Distance fact (or the check in validation) the wmd config is accepted and the
// first half fails.
func TestVerdictRefusesDistanceUtilities(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	base := fixtureConfig(t, corpusPath, vecPath).Text
	for _, distance := range []string{"wmd", "style_l2"} {
		src := base + "[[scorers]]\nname = \"" + distance + "\"\n[verdict]\nattack = \"sr-nn\"\nabove_chance = [0.1]\nutilities = [\"" + distance + "\"]\n"
		_, err := runconfig.ParseConfig("x.toml", src)
		if err == nil || !strings.Contains(err.Error(), "verdict.utilities") || !strings.Contains(err.Error(), "distance") {
			t.Errorf("utilities = [%q]: error %v, want one at verdict.utilities saying it is a distance", distance, err)
		}
	}
	src := base + "[[scorers]]\nname = \"chrf\"\n[verdict]\nattack = \"sr-nn\"\nabove_chance = [0.1]\nutilities = [\"chrf\"]\n"
	if _, err := runconfig.ParseConfig("x.toml", src); err != nil {
		t.Errorf("utilities = [\"chrf\"], a similarity: %v", err)
	}
}

// Mechanisms are compared at claimed ε only with mechanisms whose guarantee has the same unit:
// expmech (pure, ε per document) never meets the metric mechanisms, a level beyond the grid is
// reported as not reached, and a unit no mechanism has is said to be absent. Deterministic (no
// significance threshold is asserted). Mutant checked by hand: guaranteeUnit returning one unit
// for every metric makes this test fail (emd and mahalanobis compared with cmp).
func TestVerdictAtClaimedEpsilonByUnit(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	cfg := fixtureConfig(t, corpusPath, vecPath)
	src := strings.Replace(cfg.Text, "[[scorers]]\nname = \"sr-nn\"", `[[mechanisms]]
name = "emd"
epsilons = [8, 2]
[[mechanisms]]
name = "cmp"
epsilons = [8, 2]
[[mechanisms]]
name = "vickrey"
epsilons = [8, 2]
[[mechanisms]]
name = "mahalanobis"
epsilons = [8, 2]
[[scorers]]
name = "sr-nn"`, 1) + `[verdict]
attack = "sr-nn"
above_chance = [0.05]
utilities = ["fasttext", "cosine"]
replicates = 200
claimed_eps = { pure = [1e9], "metric:EMD" = [5], "metric:positional" = [5], "metric:mahalanobis" = [5], "metric:nope" = [1] }
`
	cfg, err := runconfig.ParseConfig(cfg.Path, src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := runFixture(t, cfg, dir, 2, context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	md := readFile(t, filepath.Join(dir, "verdict.md"))
	for _, want := range []string{"## Verdicts at matched claimed ε per document (pure), set 6", "Mechanisms of unit pure: expmech;",
		"| expmech | not reached: above its grid", "Mechanisms of unit metric:positional: cmp, vickrey;", "No mechanism of this run has unit metric:nope",
		"### claimed ε per unit of positional word distance (metric:positional) = 5"} {
		if !strings.Contains(md, want) {
			t.Errorf("verdict.md lacks %q:\n%s", want, md)
		}
	}
	recs, err := csv.NewReader(strings.NewReader(readFile(t, filepath.Join(dir, "verdict.csv")))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// cmp and vickrey share the positional metric; emd (a bag: EMD), mahalanobis and expmech
	// (pure) are alone in theirs.
	unitOf := map[string]string{"expmech": "pure", "emd": "EMD", "cmp": "positional", "vickrey": "positional", "mahalanobis": "mahalanobis"}
	claimed := 0
	for _, r := range recs[1:] {
		if !strings.HasPrefix(r[1], "claimed") {
			continue
		}
		claimed++
		if unitOf[r[5]] != "positional" || unitOf[r[6]] != "positional" || !strings.Contains(r[1], "(metric:positional)") {
			t.Errorf("compared across units or with a single-mechanism unit: %v", r)
		}
	}
	if claimed == 0 {
		t.Errorf("no claimed-ε comparison between the metric mechanisms of one unit:\n%s", md)
	}
}

// The ε search adds ordinary cells: with the fixture's expmech grid (8, 2) stopping short of
// the level sr-nn ≤ 0.217, the run adds smaller (and larger) ε, whose rows are in results.csv
// and whose cells are files of the run; verdict.md lists what was added; the run gives the
// same results.csv and verdict.md at --jobs 1 and 2, a second run in the same folder finds
// every cell (the added ones too) finished and runs none, and three shards plus `dptext merge`
// (which runs the search) give the whole run's results.csv and verdict.md. Deterministic.
// Mutant: a search whose proposals depended on the order cells finish in (or a merge that did
// not search) fails the comparisons.
func TestEpsilonSearchAddsOrdinaryCells(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	cfg := fixtureConfig(t, corpusPath, vecPath)
	src := cfg.Text + `[verdict]
attack = "sr-nn"
above_chance = [0.05]
utilities = ["cosine"]
replicates = 200
search_rounds = 2
`
	cfg, err := runconfig.ParseConfig(cfg.Path, src)
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	d1, d2 := t.TempDir(), t.TempDir()
	var log bytes.Buffer
	if _, err := Run(context.Background(), cfg, RunOptions{OutDir: d1, Jobs: 2, Log: &log, DataDir: data}); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), cfg, RunOptions{OutDir: d2, Jobs: 1, Log: &bytes.Buffer{}, DataDir: data}); err != nil {
		t.Fatal(err)
	}
	res, md := readFile(t, filepath.Join(d1, "results.csv")), readFile(t, filepath.Join(d1, "verdict.md"))
	if res != readFile(t, filepath.Join(d2, "results.csv")) || md != readFile(t, filepath.Join(d2, "verdict.md")) {
		t.Error("results.csv or verdict.md differ between --jobs 2 and 1")
	}
	if !strings.Contains(md, "ε search on this axis (at most 2 rounds") || !strings.Contains(md, "expmech ε = 0.5 (round 1: the level lies beyond its smallest ε)") {
		t.Errorf("verdict.md does not list the added ε:\n%s", md)
	}
	if !strings.Contains(res, ",expmech,0.5,") {
		t.Errorf("results.csv has no row of the added ε 0.5")
	}
	if _, err := os.Stat(filepath.Join(d1, "cells", rundir.CellFile("set=6/mech=expmech/eps=0.5/rep=0"))); err != nil {
		t.Errorf("no cell file of the added ε: %v", err)
	}
	log.Reset()
	if _, err := Run(context.Background(), cfg, RunOptions{OutDir: d1, Jobs: 2, Log: &log, DataDir: data}); err != nil {
		t.Fatal(err)
	}
	if regexp.MustCompile(`running [1-9]`).MatchString(log.String()) || readFile(t, filepath.Join(d1, "verdict.md")) != md {
		t.Errorf("the second run recomputed cells or changed verdict.md:\n%s", log.String())
	}
	sharded := t.TempDir()
	for k := range 3 {
		if _, err := Run(context.Background(), cfg, RunOptions{OutDir: sharded, Jobs: 2, Log: &bytes.Buffer{}, DataDir: data, Shard: rundir.Shard{K: k, N: 3}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := Merge(context.Background(), sharded, RunOptions{Log: &bytes.Buffer{}, DataDir: data, Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	if readFile(t, filepath.Join(sharded, "results.csv")) != res || readFile(t, filepath.Join(sharded, "verdict.md")) != md {
		t.Error("three shards and merge differ from the whole run")
	}
}
