package runner

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"dptext/embeddings"
	"dptext/experiments/protocol"
	"dptext/experiments/registry"
	"dptext/experiments/report"
	"dptext/experiments/runconfig"
	"dptext/mechanisms"
	"dptext/mechanisms/metricdp"
)

// TestPairBoundRowsReportInfiniteShare: of three consecutive pairs, one differs in an
// out-of-vocabulary word kept as published (no finite bound) and must not enter the mean; the
// finite mean counts every word of the documents (N consistent with E). The old code reported
// ε·N·E over in-vocabulary words for every pair, a finite number for all three.
func TestPairBoundRowsReportInfiniteShare(t *testing.T) {
	store, err := embeddings.New([]string{"a", "b", "c"}, 1, []float32{0, 1, 3})
	if err != nil {
		t.Fatal(err)
	}
	m, err := metricdp.NewEMD(store, 2, metricdp.EMDOptions{OOV: metricdp.OOVKeep, Order: mechanisms.OrderBag, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	set := &protocol.SetData{Name: "s", Eval: [][]string{{"a", "b", "x"}, {"b", "c", "x"}, {"a", "a", "y"}}}
	row := func(scorer, metric string, v float64) report.Row {
		return report.Row{Set: "s", Scorer: scorer, Metric: metric, Value: v}
	}
	got := map[string]float64{}
	rows, err := privacyRows(m, set, set.Eval, row, &registry.Env{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		got[r.Metric] = r.Value
	}
	// Pairs: (0, 1): {a, b} against {b, c} matched a–b (1) and b–c (2), x with x, so ε·D = 6;
	// (1, 2) and (2, 0) differ in their unknown word (x against y): no finite bound.
	if got["log_multiplier_infinite_share"] != 2.0/3 {
		t.Errorf("infinite share %v, want 2/3", got["log_multiplier_infinite_share"])
	}
	if math.Abs(got["log_multiplier_mean"]-6) > 1e-9 {
		t.Errorf("finite mean %v, want 6", got["log_multiplier_mean"])
	}
	if got["epsilon_doc"] != 6 {
		t.Errorf("epsilon_doc %v, want ε·N = 6", got["epsilon_doc"])
	}
}

// TestConfigRejectsUnrepresentableEpsilon: an ε outside the mechanism's range is a config error
// naming the key and the range (it used to pass check and panic or decode every word to the
// first vocabulary row at run time).
func TestConfigRejectsUnrepresentableEpsilon(t *testing.T) {
	cfg := "name = \"x\"\n[[sets]]\nname = \"a\"\nauthors = 2\n[[mechanisms]]\nname = \"emd\"\nepsilons = [10, 1e-40]\n[[scorers]]\nname = \"sr-nn\"\n"
	_, err := runconfig.ParseConfig("x.toml", cfg)
	if err == nil || !strings.Contains(err.Error(), "epsilons") || !strings.Contains(err.Error(), "[0.001, 1e+12]") {
		t.Errorf("error %v, want one naming epsilons and the range", err)
	}
}

// TestAuditRow: with an [audit] table the privacy rows carry the audited ε of the mechanism,
// positive and not above the claim for a correct EMD; bad [audit] values are config errors.
func TestAuditRow(t *testing.T) {
	var words []string
	var vecs []float32
	for i := range 30 {
		words = append(words, fmt.Sprintf("w%d", i))
		vecs = append(vecs, float32(i), float32(i%3))
	}
	store, err := embeddings.New(words, 2, vecs)
	if err != nil {
		t.Fatal(err)
	}
	m, err := metricdp.NewEMD(store, 1, metricdp.DefaultEMDOptions())
	if err != nil {
		t.Fatal(err)
	}
	set := &protocol.SetData{Name: "s", Eval: [][]string{{"w1", "w2"}, {"w3", "w4"}}}
	row := func(scorer, metric string, v float64) report.Row {
		return report.Row{Set: "s", Mechanism: "emd", Epsilon: report.EpsilonOf(1), Scorer: scorer, Metric: metric, Value: v}
	}
	cfg := &runconfig.Config{Seed: 3, Audit: &runconfig.AuditConfig{Samples: 500, Alpha: 0.05, Pairs: 1}}
	rows, err := privacyRows(m, set, set.Eval, row, &registry.Env{Embeddings: store}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]float64{}
	for _, r := range rows {
		found[r.Metric] = r.Value
	}
	lcb, ok1 := found["audited_eps_lcb"]
	ceiling, ok2 := found["audited_eps_ceiling"]
	if !ok1 || !ok2 {
		t.Fatalf("no audited_eps_lcb and audited_eps_ceiling rows in %v", rows)
	}
	if !(lcb > 0 && lcb <= 1) {
		t.Errorf("audited ε %v, want in (0, 1]", lcb)
	}
	if !(ceiling >= lcb) {
		t.Errorf("audit ceiling %v below the audited ε %v", ceiling, lcb)
	}
	base := "name = \"x\"\n[[sets]]\nname = \"a\"\nauthors = 2\n[[mechanisms]]\nname = \"none\"\n[[scorers]]\nname = \"sr-nn\"\n"
	if _, err := runconfig.ParseConfig("x.toml", base+"[audit]\nalpha = 2\n"); err == nil || !strings.Contains(err.Error(), "audit.alpha") {
		t.Errorf("alpha = 2: %v", err)
	}
	c, err := runconfig.ParseConfig("x.toml", base+"[audit]\n")
	if err != nil || c.Audit == nil || c.Audit.Samples != 3000 {
		t.Errorf("empty [audit]: %+v, %v; want the defaults", c.Audit, err)
	}
}
