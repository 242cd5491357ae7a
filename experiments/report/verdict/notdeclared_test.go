package verdict

import (
	"math"
	"strings"
	"testing"
)

// TestNotDeclaredListsHeavyTails: a compared pair whose unadjusted bootstrap p is below α but
// whose adjusted p is not is listed under its level with its distance from 0 in standard errors
// and both p-values, most standard errors first; a declared pair, a pair with an unadjusted p at
// or above α, a pair of another level and a pair not compared are not. Mutant (run by hand):
// listing on the unadjusted p alone (declared pairs too) fails.
func TestNotDeclaredListsHeavyTails(t *testing.T) {
	v := &Result{Spec: Spec{Attack: "att", Levels: []float64{0.5, 0.7}, LevelNames: []string{"x", "y"}, Utilities: []string{"u"}, Alpha: 0.05, Confidence: 0.95, Replicates: 1000}}
	pair := func(a, b string, l int, diff, se, p, adj float64, compared bool) Pair {
		return Pair{A: a, B: b, Utility: "u", Level: l, Diff: diff, SE: se, P: p, Adj: adj, Compared: compared, Family: FamilyAll, FamilySize: 6,
			Low: math.Inf(-1), High: math.Inf(1), Reached: 1}
	}
	v.Pairs = []Pair{
		pair("heavy", "other", 0, 0.142, 0.021, 0.0041, 0.24, true), // 6.8 SE, listed second
		pair("declared", "other", 0, 0.2, 0.02, 0.001, 0.01, true),  // significant: not listed
		pair("plain", "other", 0, 0.03, 0.02, 0.2, 1, true),         // not separated: not listed
		pair("skipped", "other", 0, 0.3, 0.01, math.NaN(), math.NaN(), false),
		pair("other", "flipped", 0, -0.2, 0.02, 0.001, 0.06, true), // 10 SE, listed first, oriented
		pair("elsewhere", "other", 1, 0.2, 0.02, 0.001, 0.5, true), // another level
	}
	got := v.notDeclared(0)
	if len(got) != 2 {
		t.Fatalf("listed %d pairs, want 2: %q", len(got), got)
	}
	if !strings.HasPrefix(got[0], "flipped − other in u: +0.200, 10.0 standard errors") || !strings.HasPrefix(got[1], "heavy − other in u: +0.142, 6.8 standard errors") {
		t.Errorf("listed %q", got)
	}
	if !strings.Contains(got[1], "bootstrap p = 0.0041, adjusted p = 0.24") {
		t.Errorf("p-values missing: %q", got[1])
	}
	md := v.Markdown("s")
	if !strings.Contains(md, "Not declared although the unadjusted 95 % interval excludes 0") || !strings.Contains(md, got[0]) {
		t.Errorf("Markdown does not list them:\n%s", md)
	}
}
