package runner

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dptext/embeddings"
	"dptext/experiments/protocol"
	"dptext/experiments/report"
	"dptext/experiments/runconfig"
	"dptext/internal/fixtures"
	"dptext/internal/rngs"
	"dptext/mechanisms"
)

// sharedDrawsConfig has EMD three times over a vocabulary of 100 words (top_k), so that the
// land topic's last words and the authors' habit words are out of vocabulary: "keep" (as
// published), "drop" (shares keep's draws) and "nearest-known" (noises more tokens: its own
// draws).
func sharedDrawsConfig(t *testing.T, order string) *runconfig.Config {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	emd := func(label, oov string) string {
		return fmt.Sprintf("[[mechanisms]]\nname = \"emd\"\nlabel = %q\nepsilons = [4, 1]\n[mechanisms.params]\ntop_k = 100\noov = %q\norder = %q\n", label, oov, order)
	}
	src := "name = \"shared\"\nseed = 11\nrepeats = 2\n" + fixtures.Inputs(corpusPath, vecPath) +
		"[[sets]]\nname = \"6\"\nauthors = 6\n" + emd("emd", "keep") + emd("emd-drop", "drop") + emd("emd-near", "nearest-known") +
		"[[scorers]]\nname = \"sr-nn\"\n"
	cfg, err := runconfig.ParseConfig(filepath.Join(t.TempDir(), "shared.toml"), src)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// The documents the runner releases for "emd-drop" are those of "emd" without their
// out-of-vocabulary words — the same decoded words (in place under order "keep", as a bag
// under "bag") — because both release from draws of emd's streams; each is exactly Apply on
// that stream, and "nearest-known", which noises other tokens, keeps its own cell's stream.
// Mutant caught: drawStream returning the cell's own path (independent draws per entry) makes
// the drop documents differ from keep's (checked: fails at the first document).
func TestSharedDrawsAreWhatBothEMDRowsRelease(t *testing.T) {
	for _, order := range []string{mechanisms.OrderBag, mechanisms.OrderKeep} {
		cfg := sharedDrawsConfig(t, order)
		in, err := loadInputs(context.Background(), cfg, RunOptions{DataDir: t.TempDir()}, func(string, ...any) {})
		if err != nil {
			t.Fatal(err)
		}
		sets, err := protocol.Split(cfg, in.docs, func(string, ...any) {})
		if err != nil {
			t.Fatal(err)
		}
		r := newRunner(cfg, sets, in, t.TempDir(), 2)
		r.ctx = context.Background()
		oovSeen := 0
		for _, eps := range cfg.Mechanisms[0].Grid() {
			for rep := 0; rep < cfg.Repeats; rep++ {
				set := sets[0].Draw(rep)
				var outs [3][][]string
				var ms [3]mechanisms.Mechanism
				for mi := range ms {
					c := cell{set: 0, mech: mi, eps: eps, rep: rep}
					if ms[mi], err = r.mechanism(c); err != nil {
						t.Fatal(err)
					}
					if outs[mi], err = r.privatise(context.Background(), &cellClock{}, ms[mi], c, "doc", set.Eval); err != nil {
						t.Fatal(err)
					}
				}
				keepPath := r.cellPath(cell{set: 0, mech: 0, eps: eps, rep: rep})
				nearPath := r.cellPath(cell{set: 0, mech: 2, eps: eps, rep: rep})
				store := ms[0].(interface{ Store() *embeddings.Store }).Store()
				for i, doc := range set.Eval {
					stream := func(path string) string { return fmt.Sprintf("%s/doc=%d", path, i) }
					for mi, path := range []string{keepPath, keepPath, nearPath} {
						if want := ms[mi].Apply(rngs.New(uint64(cfg.Seed), stream(path)), doc); !slices.Equal(outs[mi][i], want) {
							t.Fatalf("order %s ε %s rep %d doc %d: %s released %v, Apply on %s gives %v", order, eps, rep, i,
								cfg.Mechanisms[mi].ID(), outs[mi][i], stream(path), want)
						}
					}
					known := slices.DeleteFunc(slices.Clone(outs[0][i]), func(w string) bool {
						_, ok := store.Lookup(w)
						return !ok
					})
					oovSeen += len(outs[0][i]) - len(known)
					drop := slices.Clone(outs[1][i])
					if order == mechanisms.OrderBag {
						slices.Sort(known)
						slices.Sort(drop)
					}
					if !slices.Equal(known, drop) {
						t.Fatalf("order %s ε %s rep %d doc %d: emd-drop released %v, emd's decoded words are %v", order, eps, rep, i, drop, known)
					}
				}
			}
		}
		if oovSeen == 0 {
			t.Fatalf("order %s: no out-of-vocabulary word was kept: the test compares nothing", order)
		}
	}
}

// With shared draws, emd and emd-drop decode the same words, so the bag diagnostics over the
// in-vocabulary words (unchanged_share, mean_cosine) are equal in every cell of results.csv, and
// the results do not depend on --jobs.
func TestSharedDrawsRunIsDeterministicAndPaired(t *testing.T) {
	cfg := sharedDrawsConfig(t, mechanisms.OrderBag)
	data := t.TempDir()
	var results [2]string
	for j, jobs := range []int{1, 2} {
		dir := t.TempDir()
		if _, err := Run(context.Background(), cfg, RunOptions{OutDir: dir, Jobs: jobs, DataDir: data, Force: true}); err != nil {
			t.Fatal(err)
		}
		results[j] = readFile(t, filepath.Join(dir, "results.csv"))
	}
	if results[0] != results[1] {
		t.Fatal("results.csv differs between --jobs 1 and --jobs 2")
	}
	rows, err := report.ReadRows(strings.NewReader(results[0]), "results.csv")
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		eps    report.Epsilon
		rep    int
		metric string
	}
	keep, drop := map[key]float64{}, map[key]float64{}
	for _, row := range rows {
		if row.Scorer != "mechanism" || (row.Metric != "unchanged_share" && row.Metric != "mean_cosine") {
			continue
		}
		switch row.Mechanism {
		case "emd":
			keep[key{row.Epsilon, row.Repeat, row.Metric}] = row.Value
		case "emd-drop":
			drop[key{row.Epsilon, row.Repeat, row.Metric}] = row.Value
		}
	}
	if len(keep) != 8 || len(drop) != 8 {
		t.Fatalf("%d and %d diagnostic rows, want 8 each (2 ε × 2 repeats × 2 metrics)", len(keep), len(drop))
	}
	for k, v := range keep {
		if drop[k] != v {
			t.Errorf("%v: emd %v, emd-drop %v: the two rows did not decode the same words", k, v, drop[k])
		}
	}
}
