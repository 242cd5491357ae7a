package verdict

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// The families a pair can be adjusted in (Pair.Family).
const (
	// FamilyAll is the default family: every comparison of the file.
	FamilyAll = "all"
	// FamilyPrimary holds the planned comparisons ([verdict] primary), tested at α on their own.
	FamilyPrimary = "primary"
	// FamilyExploratory holds every other comparison when there are planned ones, at α on its own.
	FamilyExploratory = "exploratory"
)

// FamilyInfo describes one family of comparisons adjusted together: its name, the number of
// comparisons (Size) from Tables tables, the significant ones (Significant), those not
// compared for want of reached replicates (NotCompared), α, the replicates, and the first
// step's critical value in standard errors (Critical: the α quantile of the replicates' smallest
// marginal p over the whole family, as the |difference|/se a comparison with normal, Student-t
// corrected sampling error needs to be significant at the first step).
type FamilyInfo struct {
	Name                      string
	Size, Tables, Significant int
	NotCompared               int
	Alpha, Critical           float64
	Replicates                int
}

// comparison is one pair of a family: its replicates (x − y, NaN where either is NaN), its
// estimate and bootstrap standard error.
type comparison struct {
	x, y     []float64
	diff, se float64
	// clusters is the number of authors the replicates resample.
	clusters int
}

// t is the studentised statistic of the estimate on the replicates' scale (∞ for a difference
// without variation, 0 for none): |diff|/se corrected for a bootstrap over n clusters as
// Hesterberg's expanded interval is (ExpandedPercentileInterval: the bootstrap variance is
// (n−1)/n of the plug-in one, and the statistic's tails are Student's t with n − 1 degrees of
// freedom, not normal), Φ⁻¹(F_{t,n−1}(|diff|/se · √((n−1)/n))). Without it the familywise error
// on 30 authors was 0.12 at α = 0.05 (TestStepdownFamilywiseError).
func (c comparison) t() float64 {
	switch {
	case c.se > 0:
		return toNormal(math.Abs(c.diff)/c.se, c.clusters)
	case c.diff != 0:
		return math.Inf(1)
	}
	return 0
}

// toNormal maps a studentised statistic over n clusters to the replicates' normal scale;
// fromNormal is its inverse.
func toNormal(t float64, n int) float64 {
	if n < 3 || math.IsInf(t, 0) {
		return t
	}
	st := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}
	return distuv.UnitNormal.Quantile(st.CDF(t * math.Sqrt(float64(n-1)/float64(n))))
}

func fromNormal(z float64, n int) float64 {
	if n < 3 || math.IsInf(z, 0) {
		return z
	}
	st := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}
	return st.Quantile(distuv.UnitNormal.CDF(z)) * math.Sqrt(float64(n)/float64(n-1))
}

// tstar is replicate b's centred, studentised statistic |(x − y) − diff|/se, and whether both
// values exist in it (a replicate in which a curve does not reach the level has none).
func (c comparison) tstar(b int) (float64, bool) {
	x, y := c.x[b], c.y[b]
	if math.IsNaN(x) || math.IsNaN(y) {
		return 0, false
	}
	if c.se == 0 {
		return 0, true
	}
	return math.Abs(x-y-c.diff) / c.se, true
}

// diffSE is the bootstrap standard error of pair p's difference over the replicates in which
// both curves reach the level, and the share of those replicates.
func (v *Result) diffSE(p Pair) (se, reached float64) {
	x, y := v.reps.vals[p.a], v.reps.vals[p.b]
	var n, sum, sq float64
	for b := range x {
		if math.IsNaN(x[b]) || math.IsNaN(y[b]) {
			continue
		}
		d := x[b] - y[b]
		n++
		sum += d
		sq += d * d
	}
	if n < 2 {
		return math.NaN(), n / float64(len(x))
	}
	m := sum / n
	return math.Sqrt(math.Max(0, (sq-n*m*m)/(n-1))), n / float64(len(x))
}

// rejectionCount is the largest number n of replicates at or above a statistic for which
// (1 + n)/(B + 1) < α: a p-value below α allows at most that many (−1: none is possible).
func rejectionCount(alpha float64, B int) int {
	k := int(math.Ceil(alpha*float64(B+1))) - 2
	for float64(k+2)/float64(B+1) < alpha {
		k++
	}
	for k >= 0 && !(float64(k+1)/float64(B+1) < alpha) {
		k--
	}
	return k
}

// stepdownResult is the outcome of the stepdown over one family: per comparison, its
// unadjusted p, adjusted p and critical value (in standard errors, from its own replicates),
// and the first step's critical value for a comparison of normal sampling error (FamilyInfo's
// Critical).
type stepdownResult struct {
	raw, adj, crit []float64
	first          float64
}

// replicateStats writes comparison c's centred, studentised replicate statistics into out (an
// unreached replicate at +∞).
func (c comparison) replicateStats(out []float64) {
	for b := range out {
		x, ok := c.tstar(b)
		if !ok {
			x = math.Inf(1)
		}
		out[b] = x
	}
}

// ranker ranks replicate statistics without a comparison sort: its buffers are reused from one
// comparison to the next.
type ranker struct {
	keys, keys2 []uint64
	idx, idx2   []int32
}

// rankAtOrAbove writes into rank[b] the number of values of vals at or above vals[b], and into
// sorted the values in ascending order. The values must be ≥ 0 (+∞ allowed; statistics are
// absolute values): their IEEE bits then order as unsigned integers, so a least-significant-
// digit radix sort of the bits with the indices beside them sorts them in eight counting
// passes (a pass whose byte is the same in every key is skipped). It gives the ranks
// atOrAbove gives by a binary search per value after a comparison sort, about 7.7 times faster
// on 20,000 replicates (BenchmarkRankAtOrAbove, medians of 3: 0.45 against 3.41 ms).
func (r *ranker) rankAtOrAbove(vals, sorted []float64, rank []int32) {
	n := len(vals)
	if cap(r.keys) < n {
		r.keys, r.keys2 = make([]uint64, n), make([]uint64, n)
		r.idx, r.idx2 = make([]int32, n), make([]int32, n)
	}
	keys, keys2, idx, idx2 := r.keys[:n], r.keys2[:n], r.idx[:n], r.idx2[:n]
	for i, v := range vals {
		keys[i] = math.Float64bits(v)
		idx[i] = int32(i)
	}
	var count [256]int
	for shift := uint(0); shift < 64; shift += 8 {
		count = [256]int{}
		for _, k := range keys {
			count[(k>>shift)&0xff]++
		}
		if n > 0 && count[(keys[0]>>shift)&0xff] == n {
			continue
		}
		pos := 0
		for d, c := range count {
			count[d] = pos
			pos += c
		}
		for i, k := range keys {
			d := (k >> shift) & 0xff
			keys2[count[d]] = k
			idx2[count[d]] = idx[i]
			count[d]++
		}
		keys, keys2, idx, idx2 = keys2, keys, idx2, idx
	}
	for i := n - 1; i >= 0; {
		j := i
		for j > 0 && keys[j-1] == keys[i] {
			j--
		}
		for t := j; t <= i; t++ {
			rank[idx[t]] = int32(n - j)
			sorted[t] = math.Float64frombits(keys[t])
		}
		i = j - 1
	}
}

// nthLargest is the n-th largest (from 1) of the comparison's replicate statistics
// (replicateStats) given their ranks: the statistic of a replicate with the smallest rank of at
// least n.
func (c comparison) nthLargest(rank []int32, n int) float64 {
	best := -1
	for b, r := range rank {
		if int(r) >= n && (best < 0 || r < rank[best]) {
			best = b
		}
	}
	x, ok := c.tstar(best)
	if !ok {
		return math.Inf(1)
	}
	return x
}

// atOrAbove is the number of values of the ascending sorted at or above t.
func atOrAbove(sorted []float64, t float64) int {
	return len(sorted) - sort.SearchFloat64s(sorted, t)
}

// stepdown runs the stepdown procedure of Romano and Wolf (2005) with Westfall and Young's
// (1993) resampling on B replicates, each comparison calibrated on its own replicates: the
// centred, studentised statistic |d_b − d|/se of replicate b is turned into its marginal
// p-value p_k,b = #{b′: T*_k,b′ ≥ T*_k,b}/(B + 1) and the estimate's statistic T_k into p_k = (1
// + #{b: T*_k,b ≥ T_k})/(B + 1) (the unadjusted p-value). Comparisons are tested from the
// smallest p; the comparison at step j against the replicates' minimum p over the comparisons
// still in the family (itself and every later one), recomputed at every step: its p is (1 +
// #{b: min_b ≤ p_k})/(B + 1), and the adjusted p the running maximum over the steps. Calibrating
// each comparison on its own replicates (rather than dividing by the standard error alone, the
// max-T form) keeps a comparison whose replicates have heavy tails — a curve that crosses the
// level in another bracket in a few replicates — from setting the critical value of every
// other one: on configs/mechanisms.toml the max-T form needed 5.8 standard errors at the first
// step over 426 comparisons, more than Bonferroni's 3.9. A replicate in which the comparison
// does not exist counts against it (T* = +∞); one in which another comparison does not exist
// counts against that one only through its own marginal p. The critical value of step j is
// the p below which step j rejects; mapped to comparison k's own replicates it is the
// statistic T_k must exceed (a comparison rejected at step j gets step j's, every later one
// that of the step at which the procedure stopped), so that its interval d ∓ crit·se excludes
// 0 exactly when its adjusted p is below α.
func stepdown(cs []comparison, B int, alpha float64) stepdownResult {
	m := len(cs)
	out := stepdownResult{raw: make([]float64, m), adj: make([]float64, m), crit: make([]float64, m), first: math.NaN()}
	if m == 0 {
		return out
	}
	ranks := make([][]int32, m) // ranks[k][b]: B+1 times replicate b's marginal p in comparison k
	obs := make([]int, m)       // B+1 times the unadjusted p
	parallelChunks(m, 4, func(from, to int) {
		vals, sorted := make([]float64, B), make([]float64, B)
		var rk ranker
		for k := from; k < to; k++ {
			cs[k].replicateStats(vals)
			rank := make([]int32, B)
			rk.rankAtOrAbove(vals, sorted, rank)
			ranks[k] = rank
			obs[k] = 1 + atOrAbove(sorted, cs[k].t())
		}
	})
	order := make([]int, m)
	for k := range order {
		order[k] = k
	}
	sort.SliceStable(order, func(i, j int) bool { return obs[order[i]] < obs[order[j]] })
	K := rejectionCount(alpha, B)
	// run[b] is the running minimum rank over the comparisons from step j on (B + 1 before the
	// first); the step's critical count is the (K+1)-th smallest of run, which can only fall
	// from one step to the next: a count of each rank (ranks in 1 … B+1) and the number at or
	// below the current answer find it in O(B) per step and O(B) in all for the answer's moves.
	run := make([]int32, B)
	count := make([]int, B+2)
	for b := range run {
		run[b] = int32(B + 1)
	}
	count[B+1] = B
	kth, atOrBelow := B+1, B
	stepP := make([]float64, m)
	stepN := make([]int, m) // the step's critical count: reject when obs < it
	for j := m - 1; j >= 0; j-- {
		rank := ranks[order[j]]
		n := 0
		for b, r := range rank {
			if old := run[b]; r < old {
				count[old]--
				count[r]++
				if int(old) > kth && int(r) <= kth {
					atOrBelow++
				}
				run[b] = r
			}
			if int(run[b]) <= obs[order[j]] {
				n++
			}
		}
		stepP[j] = float64(1+n) / float64(B+1)
		stepN[j] = 0
		if K >= 0 && K < B {
			for kth > 1 && atOrBelow-count[kth] >= K+1 {
				atOrBelow -= count[kth]
				kth--
			}
			stepN[j] = kth
		}
	}
	out.first = distuv.UnitNormal.Quantile(1 - float64(stepN[0])/float64(B+1)/2)
	if len(cs) > 0 {
		out.first = fromNormal(out.first, cs[0].clusters)
	}
	stop := m // the first step not rejected
	at := make([]int, m)
	p := 0.0
	for j, k := range order {
		p = math.Max(p, stepP[j])
		out.adj[k] = math.Min(1, p)
		if stop == m && !(p < alpha) {
			stop = j
		}
		at[k] = j
		if stop < m {
			at[k] = stop
		}
		out.raw[k] = float64(obs[k]) / float64(B+1)
	}
	// T_k > crit exactly when obs_k < the step's critical count: crit is the (count − 1)-th
	// largest of the comparison's own replicate statistics, the statistic of the replicate
	// with the smallest rank (values at or above it) of at least count − 1.
	parallelChunks(m, 4, func(from, to int) {
		for k := from; k < to; k++ {
			out.crit[k] = math.Inf(1)
			if n := stepN[at[k]] - 1; n >= 1 && n <= B {
				out.crit[k] = fromNormal(cs[k].nthLargest(ranks[k], n), cs[k].clusters)
			}
		}
	})
	return out
}

// AdjustFamilies adjusts every pair of the results, which must share their bootstrap
// replicates' count (and, within one set of authors, their weights: MatchedWeights): with
// primary nil, all compared pairs form one family (FamilyAll); otherwise the pairs for which
// primary is true form FamilyPrimary and the rest FamilyExploratory, each at α. Each family is
// adjusted by the stepdown maximum of the studentised differences (stepdown), which sets every
// compared pair's P, Adj, its simultaneous interval Low–High and its Verdict; a pair whose
// curves both reach the level in fewer than 1 − α/2 of the replicates is not compared and says
// so. Results of independent sets of authors enter a family replicate by replicate (their
// weights are independent draws, so the pairs of replicates are draws of the joint
// distribution). It returns an error when the results' replicate counts differ.
func AdjustFamilies(results []*Result, primary func(r *Result, p *Pair) bool) error {
	if len(results) == 0 {
		return nil
	}
	B := results[0].reps.B
	for _, r := range results {
		if r.reps.B != B {
			return fmt.Errorf("verdict: a family's tables have %d and %d replicates: want the same", B, r.reps.B)
		}
		r.Families = nil
		r.FamilyTables = len(results)
	}
	type member struct {
		r *Result
		k int
	}
	families := map[string][]member{}
	names := []string{FamilyAll}
	if primary != nil {
		names = []string{FamilyPrimary, FamilyExploratory}
	}
	notCompared := map[string]int{}
	for _, r := range results {
		for k := range r.Pairs {
			p := &r.Pairs[k]
			p.Family = FamilyAll
			if primary != nil {
				p.Family = FamilyExploratory
				if primary(r, p) {
					p.Family = FamilyPrimary
				}
			}
			if !p.Compared {
				notCompared[p.Family]++
				p.P, p.Adj, p.Low, p.High = math.NaN(), math.NaN(), math.NaN(), math.NaN()
				p.Verdict = fmt.Sprintf("not compared: both reach the level in %.1f %% of replicates, fewer than 1 − α/2 = %.1f %%", 100*p.Reached, 100*(1-r.Spec.Alpha/2))
				continue
			}
			families[p.Family] = append(families[p.Family], member{r, k})
		}
	}
	for _, name := range names {
		ms := families[name]
		alpha := results[0].Spec.Alpha
		cs := make([]comparison, len(ms))
		for i, m := range ms {
			p := m.r.Pairs[m.k]
			cs[i] = comparison{x: m.r.reps.vals[p.a], y: m.r.reps.vals[p.b], diff: p.Diff, se: p.SE, clusters: m.r.Clusters}
		}
		sd := stepdown(cs, B, alpha)
		info := FamilyInfo{Name: name, Size: len(ms), NotCompared: notCompared[name], Alpha: alpha, Critical: sd.first, Replicates: B}
		tables := map[*Result]bool{}
		for i, m := range ms {
			tables[m.r] = true
			p := &m.r.Pairs[m.k]
			p.FamilySize = len(ms)
			p.P, p.Adj = sd.raw[i], sd.adj[i]
			p.Low, p.High = simultaneousInterval(p.Diff, p.SE, sd.crit[i], p.Adj < alpha)
			p.Verdict = "no significant difference"
			if p.Adj < alpha {
				info.Significant++
				p.Verdict = fmt.Sprintf("%s keeps more %s than %s at %s", p.A, p.Utility, p.B, m.r.Spec.levelText(p.Level))
			}
		}
		info.Tables = len(tables)
		for _, r := range results {
			r.Families = append(r.Families, info)
		}
	}
	for _, r := range results {
		for k := range r.Pairs {
			if p := &r.Pairs[k]; !p.Compared {
				p.FamilySize = len(families[p.Family])
			}
		}
	}
	return nil
}

// simultaneousInterval is diff ∓ crit·se; for a difference without bootstrap variation (se =
// 0) it is the point where the difference is significant and the whole line where it is not.
func simultaneousInterval(diff, se, crit float64, significant bool) (low, high float64) {
	if se > 0 {
		return diff - crit*se, diff + crit*se
	}
	if significant || diff == 0 {
		return diff, diff
	}
	return math.Inf(-1), math.Inf(1)
}

// power80 is the normal quantile of 80 % power, Φ⁻¹(0.8).
var power80 = distuv.UnitNormal.Quantile(0.8)

// Detectable is, for one utility of a table in one family, the smallest difference this
// design detects with 80 % power at the family's α (MDD: (Critical + Φ⁻¹(0.8)) × the median
// standard error of the table's compared pairs of that utility, the first step's critical
// value, so a conservative figure for later steps), and the authors needed to detect a
// difference of 0.05 and 0.10 (the standard error scaling as 1/√authors, the critical value
// held).
type Detectable struct {
	Family, Utility      string
	SE, MDD              float64
	Authors05, Authors10 int
}

// Detectables computes Detectable for every family and utility of the table with compared pairs.
func (v *Result) Detectables() []Detectable {
	var out []Detectable
	for _, f := range v.Families {
		if math.IsNaN(f.Critical) || math.IsInf(f.Critical, 0) {
			continue
		}
		for _, u := range v.Spec.Utilities {
			var ses []float64
			for _, p := range v.Pairs {
				if p.Family == f.Name && p.Utility == u && p.Compared && p.SE > 0 {
					ses = append(ses, p.SE)
				}
			}
			if len(ses) == 0 {
				continue
			}
			sort.Float64s(ses)
			se := ses[len(ses)/2]
			if len(ses)%2 == 0 {
				se = (ses[len(ses)/2-1] + ses[len(ses)/2]) / 2
			}
			mdd := (f.Critical + power80) * se
			need := func(delta float64) int {
				return int(math.Ceil(float64(v.Clusters) * (mdd / delta) * (mdd / delta)))
			}
			out = append(out, Detectable{Family: f.Name, Utility: u, SE: se, MDD: mdd, Authors05: need(0.05), Authors10: need(0.10)})
		}
	}
	return out
}

// Standing is one mechanism's place at one level and utility, from the family's significant
// verdicts: MayBeBest when no mechanism keeps significantly more (Hsu's multiple comparisons
// with the best from the simultaneous pairwise verdicts: the set of such mechanisms contains
// the true best unless a verdict of the family is false), MayBeLeast when none keeps
// significantly less, and the interval of its rank (1 = keeps most): 1 + the number that keep
// significantly more, to the number compared − the number that keep significantly less.
type Standing struct {
	Mechanism             string
	Value                 float64
	RankLow, RankHigh     int
	MayBeBest, MayBeLeast bool
}

// Standings ranks the mechanisms that reach level l at the estimate, for utility u, by their
// value (largest first), with their rank intervals.
func (v *Result) Standings(l int, utility string) []Standing {
	var out []Standing
	for _, c := range v.Cells {
		if c.Level == l && c.Utility == utility && c.Status == StatusReached {
			out = append(out, Standing{Mechanism: c.Mechanism, Value: c.Value})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Value > out[j].Value })
	above, below := map[string]int{}, map[string]int{}
	for _, p := range v.Pairs {
		if p.Level == l && p.Utility == utility && p.Compared && p.Adj < v.Spec.Alpha {
			above[p.B]++
			below[p.A]++
		}
	}
	for i := range out {
		s := &out[i]
		s.RankLow, s.RankHigh = 1+above[s.Mechanism], len(out)-below[s.Mechanism]
		s.MayBeBest, s.MayBeLeast = above[s.Mechanism] == 0, below[s.Mechanism] == 0
	}
	return out
}

// bestSentence says, for level l and utility u, which mechanisms may keep the most and which
// the least ("" when fewer than two mechanisms reach the level).
func (v *Result) bestSentence(l int, u string) string {
	st := v.Standings(l, u)
	if len(st) < 2 {
		return ""
	}
	var best, least []string
	for _, s := range st {
		if s.MayBeBest {
			best = append(best, s.Mechanism)
		}
		if s.MayBeLeast {
			least = append(least, s.Mechanism)
		}
	}
	return fmt.Sprintf("%s: keeps most: %s; keeps least: %s", u, oneOf(best, len(st)), oneOf(least, len(st)))
}

// oneOf names a may-be set: the one mechanism, "one of {…}", or "any of the n" when nothing
// was excluded.
func oneOf(set []string, n int) string {
	switch {
	case len(set) == 1:
		return set[0]
	case len(set) == n:
		return fmt.Sprintf("any of the %d (none excluded)", n)
	}
	return "one of {" + strings.Join(set, ", ") + "}"
}
