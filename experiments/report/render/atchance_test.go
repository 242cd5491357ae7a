package render

import (
	"dptext/experiments/report"
	"math"
	"strings"
	"testing"

	"dptext/internal/stats"
)

// chanceRows is a run of one set with 20 authors and 2 topics over 5 repeats: on mechanism
// none, the author scorer gets authorRight of 20 right and the topic scorer topicRight of 20
// in every repeat.
func chanceRows(authorRight, topicRight float64) []report.Row {
	var rows []report.Row
	for rep := 0; rep < 5; rep++ {
		rows = append(rows,
			report.Row{Set: "20", Epsilon: report.NoEpsilon, Repeat: rep, Scorer: report.SplitScorer, Metric: "authors", Value: 20},
			report.Row{Set: "20", Epsilon: report.NoEpsilon, Repeat: rep, Scorer: report.SplitScorer, Metric: "topics", Value: 2},
			report.Row{Set: "20", Epsilon: report.NoEpsilon, Repeat: rep, Scorer: report.SplitScorer, Metric: "eval_docs", Value: 20})
		for _, s := range []struct {
			scorer string
			right  float64
		}{{"koppel11", authorRight}, {"fasttext", topicRight}} {
			rows = append(rows,
				report.Row{Set: "20", Mechanism: "none", Epsilon: report.NoEpsilon, Repeat: rep, Scorer: s.scorer, Metric: report.MetricCorrect, Value: s.right},
				report.Row{Set: "20", Mechanism: "none", Epsilon: report.NoEpsilon, Repeat: rep, Scorer: s.scorer, Metric: report.MetricTotal, Value: 20})
		}
	}
	return rows
}

func chanceLayout() Layout {
	l := DefaultLayout()
	l.Columns = []Column{{Scorer: "koppel11", Label: "DRauth", Task: report.TaskAuthor}, {Scorer: "fasttext", Label: "DRtopic", Task: report.TaskTopic}}
	return l
}

// The exact binomial tail agrees with the sum of the probability mass function.
func TestBinomialUpper(t *testing.T) {
	for _, c := range []struct{ k, n, p float64 }{{3, 20, 0.05}, {4, 20, 0.05}, {15, 20, 0.5}, {1, 5, 0.3}, {5, 5, 0.3}} {
		want := 0.0
		for x := c.k; x <= c.n; x++ {
			want += math.Exp(stats.LogChoose(int(c.n), int(x)) + x*math.Log(c.p) + (c.n-x)*math.Log(1-c.p))
		}
		if got := binomialUpper(c.k, c.n, c.p); math.Abs(got-want) > 1e-12 {
			t.Errorf("P(X ≥ %g | %g, %g) = %v, want %v", c.k, c.n, c.p, got, want)
		}
	}
}

// The flag's boundary at 20 authors: 3 of 20 right (15 %, three times chance) is not
// significant (P(X ≥ 3) = 0.075 ≥ 0.05), 4 of 20 is (0.016). A topic scorer at 13 of 20 with
// 2 topics is at chance (P(X ≥ 13) = 0.13), at 15 it is not (0.021). The check is
// deterministic (no false failures). Mutant: a check without a test, flagging only an
// accuracy at or below chance, passes 3 of 20 and 13 of 20 as above chance; this test fails
// on it (see naive below).
func TestAtChanceFlagsScorersNotAboveChance(t *testing.T) {
	flags := func(author, topic float64) map[string]AtChance {
		s, err := report.Aggregate(chanceRows(author, topic), nil, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]AtChance{}
		for _, a := range atChance(s, chanceLayout()) {
			out[a.Label] = a
		}
		return out
	}
	naive := func(right, total, chance float64) bool { return right/total <= chance }
	f := flags(3, 13)
	if _, ok := f["DRauth"]; !ok || naive(3, 20, 0.05) {
		t.Errorf("3 of 20 authors: flags %v, want DRauth flagged (the naive mutant would not flag it)", f)
	}
	if _, ok := f["DRtopic"]; !ok || naive(13, 20, 0.5) {
		t.Errorf("13 of 20 topics: flags %v, want DRtopic flagged", f)
	}
	if a := f["DRauth"]; math.Abs(a.P-0.07548) > 1e-4 || a.Chance != 0.05 {
		t.Errorf("DRauth p = %v, chance %v: want 0.0755 and 0.05", a.P, a.Chance)
	}
	if f := flags(4, 15); len(f) != 0 {
		t.Errorf("4 of 20 and 15 of 20: flags %v, want none", f)
	}
	// The flag reaches the table (the none entry is marked) and the caption.
	tb := buildTables(mustAggregate(t, chanceRows(3, 15), chanceLayout()), chanceLayout())
	md := string(tb.markdown(Caption{}))
	if !strings.Contains(md, "3 ± 0.0 "+ChanceMark) || strings.Contains(md, "15 ± 0.0 "+ChanceMark) {
		t.Errorf("table does not mark DRauth alone:\n%s", md)
	}
	if !strings.Contains(md, "At chance before any mechanism") || !strings.Contains(md, "set 20, DRauth (koppel11): 3 of 20 right") {
		t.Errorf("caption does not name the column at chance:\n%s", md)
	}
	lines, err := AtChanceLines(chanceRows(3, 15), chanceLayout())
	if err != nil || len(lines) != 1 || !strings.Contains(lines[0], "DRauth") {
		t.Errorf("log lines %q, %v: want one naming DRauth", lines, err)
	}
}
