package audit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"dptext/internal/rngs"
	"dptext/internal/stats"
)

// Options configure Run.
type Options struct {
	// Claim is the per-unit ε to test when ClaimSet; otherwise the target's own ε is tested.
	Claim float64
	// ClaimSet says Claim was given (so that a claim of 0 can be tested).
	ClaimSet bool
	// Samples is K: outputs drawn per input for each half (selection and test) of a sampled
	// word-level test, and runs per document for each half (training and test) of a game.
	Samples int
	// Alpha is the family-wise error rate of all sampled bounds together.
	Alpha float64
	// MaxSamples, when above Samples, lets a sampled word test whose claim is above its ceiling
	// at K draw up to MaxSamples outputs per input and half (the K that could refute its claim;
	// see Report.SamplesToRefute): worth it for mechanisms whose draws are cheap.
	MaxSamples int
	// Pairs is the number of word pairs of each kind (nearest, random, far).
	Pairs int
	// Outputs is the number of outputs tested per sampled word pair (selected on the first half).
	Outputs int
	// Candidates is the number of most frequent vocabulary rows the input words are drawn from
	// (their neighbours come from the whole vocabulary).
	Candidates int
	// Seed makes the audit reproducible (the audit releases nothing, so a known seed is fine).
	Seed uint64
	// Progress, when not nil, is called after each test with the number done and the total.
	Progress func(done, total int)
}

// Limits of the options (the work and memory grow with samples × pairs; a noise test holds K
// directions of the vectors' dimension): `dptext audit`'s flags and a config's [audit] table
// are refused above them.
const (
	SamplesLimit = 1_000_000 // Samples and MaxSamples
	PairsLimit   = 100       // Pairs
)

// DefaultOptions are the settings of `dptext audit` without flags.
func DefaultOptions() Options {
	return Options{Claim: math.NaN(), Samples: 3000, Alpha: 0.05, Pairs: 3, Outputs: 2, Candidates: 5000, Seed: 1}
}

// Finding is the result of one test.
type Finding struct {
	// Level is "word" or "document" (bounds on the release's loss), "noise" (the noise step
	// against the density the claim requires), "decoding" (the released words against an exact
	// re-decoding of the noise) or "sampler" (the sampler against the computed distribution).
	Level string
	// Kind is the pair's kind: "nearest", "random", "far", "one word changed", "two words
	// swapped" or "one OOV word changed".
	Kind string
	// X and Y are the two inputs.
	X, Y []string
	// Output names the output event the bound is about: a word, or the distinguisher's guess.
	Output string
	// Bound is the lower confidence bound on the privacy loss between X and Y (exact value when
	// Exact). −Inf when nothing could be bounded.
	Bound float64
	// Exact says Bound was computed from the exact distributions, not sampled.
	Exact bool
	// Method describes how: "exact", "clopper-pearson", "likelihood ratio", "naive bayes".
	Method string
	// Units is the claim's number of units for the pair (d(x, x′) for a metric claim); the claim
	// is Claim·Units.
	Units float64
	// Claim is the claimed bound on the loss between X and Y.
	Claim float64
	// Ceiling is the largest Bound the test could have shown at its sample size and level (the
	// bound of an output seen in every draw under one input and never under the other; see
	// SampledCeiling); +Inf for an exact finding. A test whose Ceiling is below its Claim cannot
	// fail.
	Ceiling float64
	// Rejected says a goodness-of-fit test rejected the distribution the claim requires (a
	// noise-step finding; Bound is then NaN unless the test bounds a parameter).
	Rejected bool
	// PValue is the p-value of a goodness-of-fit finding (NaN for other findings).
	PValue float64
	// Reason says, for a skipped pair, why it has no finite claim.
	Reason string
}

// Violates says the bound exceeds the claim by more than rounding, or a goodness-of-fit test
// rejected the noise the claim requires. Rounding: an exact loss and the claim it is held to
// (SynTF's ℓ) may be log-sum-exps over the whole vocabulary summed in different orders, which
// differ by about 1e-10 relative on 30,000 words; 1e-8 relative is taken as equal.
func (f Finding) Violates() bool {
	return f.Rejected || f.Bound > f.Claim*(1+claimTolerance)+claimTolerance
}

// claimTolerance is the relative (and absolute) slack of Violates.
const claimTolerance = 1e-8

// CannotFail says the test's ceiling is below its claim: no output of the mechanism, however
// broken, could have made it exceed the claim at this sample size.
func (f Finding) CannotFail() bool { return !f.Rejected && f.bounds() && f.Ceiling <= f.Claim }

// bounds says the finding bounds the release's loss (a word or document test), rather than
// testing a distribution (noise step, sampler).
func (f Finding) bounds() bool { return f.Level == "word" || f.Level == "document" }

// SampledCeiling is the largest lower bound a sampled test with k draws per input at one-sided
// level a can show: ln(L/U) with L the Clopper–Pearson lower bound of k successes in k trials
// and U the upper bound of 0 in k, about ln(k/ln(1/a)). It is the same for the distinguishing
// game (both error counts 0).
func SampledCeiling(k int, a float64) float64 {
	return math.Log(stats.ClopperPearsonLower(k, k, a) / stats.ClopperPearsonUpper(0, k, a))
}

// PerUnit is Bound/Units, the ε per claim unit the test demonstrates (+Inf when the pair has no
// claim units but a positive bound; 0 when the bound is not positive).
func (f Finding) PerUnit() float64 {
	switch {
	case !(f.Bound > 0):
		return 0
	case f.Units == 0:
		return math.Inf(1)
	}
	return f.Bound / f.Units
}

// Report is the result of Run.
type Report struct {
	// Target is the audited target's name.
	Target string
	// Claim is the per-unit ε tested (+Inf: nothing was audited, see ClaimNote).
	Claim float64
	// ClaimNote says what the claim is and where it comes from, first in the printed report.
	ClaimNote string
	// Findings holds every test; Skipped the pairs without a finite claim (not tested).
	Findings, Skipped []Finding
	// Tests is the number of one-sided tests (Clopper–Pearson intervals and goodness-of-fit
	// tests) the family-wise level α was divided among: each is at level α/Tests.
	Tests int
	// Alpha is the family-wise error rate of the sampled bounds.
	Alpha float64
	// Samples is K.
	Samples int
	// Level is the one-sided level of every test, α/Tests.
	Level float64
}

// Violations are the findings whose bound exceeds the claim, largest excess first.
func (r *Report) Violations() []Finding {
	var v []Finding
	for _, f := range r.Findings {
		if f.Violates() {
			v = append(v, f)
		}
	}
	excess := func(f Finding) float64 {
		if d := f.Bound - f.Claim; !math.IsNaN(d) {
			return d
		}
		return math.Inf(1) // a rejected goodness-of-fit test: no bound to compare
	}
	sort.SliceStable(v, func(i, j int) bool { return excess(v[i]) > excess(v[j]) })
	return v
}

// AuditedEpsilon is the largest per-unit ε lower bound over the findings that bound the
// release's loss (0 when none is positive): the audited ε lower confidence bound to set beside
// the claimed ε, and never without AuditedCeiling.
func (r *Report) AuditedEpsilon() float64 {
	best := 0.0
	for _, f := range r.Findings {
		if f.bounds() {
			best = math.Max(best, f.PerUnit())
		}
	}
	return best
}

// Measured reports whether any finding bounds the release's loss per claim unit (a pair the
// claim calls identical, 0 units, has no per-unit value). Without one (every pair with a
// distance is unprotected, as for a mechanism whose claim is ∞) there is no audited ε:
// AuditedEpsilon and AuditedCeiling are then 0 by convention and must not be printed as
// measurements.
func (r *Report) Measured() bool {
	for _, f := range r.Findings {
		if f.bounds() && f.Units > 0 {
			return true
		}
	}
	return false
}

// AuditedCeiling is the largest per-unit value AuditedEpsilon could have taken: the maximum
// over the findings that bound the release's loss of Ceiling/Units (+Inf when a finding is
// exact; a pair with no claim units counts only when its bound is positive, +Inf then). An AuditedEpsilon close to it is a property of the sample size,
// not of the mechanism.
func (r *Report) AuditedCeiling() float64 {
	best := 0.0
	for _, f := range r.Findings {
		if !f.bounds() {
			continue
		}
		switch {
		case f.Units > 0:
			best = math.Max(best, f.Ceiling/f.Units)
		case f.Bound > 0:
			best = math.Inf(1) // a positive bound on a pair the claim says is identical
		}
	}
	return best
}

// SamplesToRefute is the number of outputs per input (K) at which a sampled test at this
// report's level could first show a bound of c: the smallest K with SampledCeiling(K) ≥ c,
// about e^c·ln(1/level) (SPEC §7). It is +Inf where that K overflows.
func (r *Report) SamplesToRefute(c float64) float64 {
	if c <= SampledCeiling(r.Samples, r.Level) {
		return float64(r.Samples)
	}
	k := math.Exp(c) * math.Log(1/r.Level)
	if k > 1e15 || math.IsInf(k, 1) {
		return math.Inf(1)
	}
	for SampledCeiling(int(k), r.Level) < c {
		k *= 1.01
	}
	return math.Ceil(k)
}

// Unfailable counts the findings that cannot fail at their sample size (CannotFail).
func (r *Report) Unfailable() int {
	n := 0
	for _, f := range r.Findings {
		if f.CannotFail() {
			n++
		}
	}
	return n
}

// Run audits the target.
func Run(t *Target, o Options) (*Report, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	claim, err := auditedClaim(t, o)
	if err != nil {
		return nil, err
	}
	rep := &Report{Target: t.Name, Claim: claim, Alpha: o.Alpha, Samples: o.Samples, ClaimNote: claimNote(t, o, claim)}
	orig := t // Apply and SampleWord record release errors on the target they were made for
	if o.ClaimSet && t.NoBound {
		t = t.perWordUnits()
	}
	pl := planAudit(t, o, claim, rep)
	level := o.Alpha / float64(max(rep.Tests, 1))
	rep.Level = level
	pr := &progress{report: o.Progress, total: len(pl.words) + len(pl.games) + 2*len(pl.noise) + len(pl.sampler) + len(pl.stages)}
	if len(pl.noise) > 0 {
		pr.total += decodeHubs
	}
	auditWords(t, o, pl, claim, level, rep, pr)
	if t.Groups != nil && t.LogProbabilities != nil && !math.IsInf(claim, 1) {
		if f, ok := exhaustiveGroups(t); ok {
			f.Claim, f.PValue, f.Ceiling = claim*f.Units, math.NaN(), math.Inf(1)
			rep.Findings = append(rep.Findings, f)
		}
	}
	if t.LogProbabilities != nil && !math.IsInf(claim, 1) {
		if f, ok := exhaustivePairs(t, min(o.Candidates, exhaustiveWords)); ok {
			f.Claim, f.PValue, f.Ceiling = claim*f.Units, math.NaN(), math.Inf(1)
			rep.Findings = append(rep.Findings, f)
		}
	}
	auditSamplers(t, o, pl.sampler, level, rep, pr)
	for i, x := range pl.stages {
		fs, err := stageFindings(t, o.Seed, i, x, min(o.Samples, stageDraws), level)
		if err != nil {
			return nil, err
		}
		rep.Findings = append(rep.Findings, fs...)
		pr.step()
	}
	for i, x := range pl.noise {
		fs, err := noiseFindings(t, rngs.New(o.Seed, fmt.Sprintf("audit/noise=%d", i)), x, pl.partners[x], claim, o.Samples, level)
		if err != nil {
			return nil, err
		}
		rep.Findings = append(rep.Findings, fs...)
		pr.step()
	}
	if err := auditDecoding(t, o, pl, rep, pr); err != nil {
		return nil, err
	}
	for i, g := range pl.games {
		units := t.DocUnits(g.x, g.y)
		f := playGame(t, rngs.New(o.Seed, fmt.Sprintf("audit/game=%d", i)), g, o.Samples, level)
		f.Units, f.Claim, f.PValue = units, claim*units, math.NaN()
		f.Ceiling = SampledCeiling(o.Samples, level)
		rep.Findings = append(rep.Findings, f)
		pr.step()
	}
	if orig.releaseErr != nil {
		return nil, orig.releaseErr // findings from failed releases are not findings
	}
	return rep, nil
}

// check refuses options Run cannot audit with.
func (o Options) check() error {
	if o.Samples < 10 || o.Samples > SamplesLimit {
		return fmt.Errorf("audit: samples = %d: want 10 to %d", o.Samples, SamplesLimit)
	}
	if o.MaxSamples < 0 || o.MaxSamples > SamplesLimit {
		return fmt.Errorf("audit: max samples = %d: want 0 (off) to %d", o.MaxSamples, SamplesLimit)
	}
	if !(o.Alpha > 0 && o.Alpha < 1) {
		return fmt.Errorf("audit: alpha = %g: want a value in (0, 1)", o.Alpha)
	}
	if o.Pairs < 1 || o.Pairs > PairsLimit || o.Outputs < 1 {
		return fmt.Errorf("audit: pairs = %d, outputs = %d: want 1 to %d pairs and at least 1 output", o.Pairs, o.Outputs, PairsLimit)
	}
	return nil
}

// auditedClaim is the ε per unit the audit tests: the options' claim when set, no claim
// (+Inf) for a target that claims nothing, else the target's ε.
func auditedClaim(t *Target, o Options) (float64, error) {
	switch {
	case o.ClaimSet:
		if !(o.Claim >= 0) || math.IsInf(o.Claim, 0) {
			return 0, fmt.Errorf("audit: claim = %g: want a finite value ≥ 0", o.Claim)
		}
		return o.Claim, nil
	case t.NoClaim || t.NoBound:
		return math.Inf(1), nil
	}
	return t.Epsilon, nil
}

// claimNote says what the audited claim is: the mechanism's own, one given, or none.
func claimNote(t *Target, o Options, claim float64) string {
	switch {
	case o.ClaimSet && (t.NoBound || t.NoClaim):
		return fmt.Sprintf("claim %.6g per differing word, given by --claim (the mechanism's own claim is ∞)", claim)
	case o.ClaimSet:
		return fmt.Sprintf("claim %.6g per unit, given by --claim (the mechanism's own is %.6g)", claim, t.Epsilon)
	case t.NoBound:
		return "no bound between different words (the mechanism's claim is ∞); nothing to audit — test a finite per-word claim with --claim"
	case t.NoClaim:
		return "the mechanism claims no privacy (claim ∞); nothing to audit — test a finite per-word claim with --claim"
	}
	return fmt.Sprintf("claim %.6g per unit, the mechanism's own", claim)
}

// progress counts the audited inputs and reports each to the options' Progress.
type progress struct {
	report      func(done, total int)
	done, total int
}

// step counts one more audited input.
func (p *progress) step() {
	p.done++
	if p.report != nil {
		p.report(p.done, p.total)
	}
}

// auditPlan lists what an audit tests: word pairs, the sampler's inputs, the noise step's
// words with their partners, and document games.
type auditPlan struct {
	words    []wordPair
	sampler  []string
	games    []game
	noise    []string
	stages   []string
	partners map[string][]string
}

// planAudit draws the pairs and games to test, records in rep.Skipped those with no finite
// bound, and sets rep.Tests to the number of one-sided tests (the level of each is α/tests).
func planAudit(t *Target, o Options, claim float64, rep *Report) *auditPlan {
	rng := rngs.New(o.Seed, "audit/pairs")
	pairs := wordPairs(t, rng, o.Pairs, o.Candidates)
	games := documentGames(t, pairs)
	for _, cp := range t.ClaimPairs {
		pairs = append(pairs, wordPair{kind: "where the claim is attained", x: cp[0], y: cp[1]})
	}
	pl := &auditPlan{}
	// Count the sampled tests first: the level of every one-sided interval is α/(2·tests).
	wordSampled := t.LogProbabilities == nil
	tests := 0
	for _, p := range pairs {
		units := t.WordUnits(p.x, p.y)
		f := Finding{Level: "word", Kind: p.kind, X: []string{p.x}, Y: []string{p.y}, Units: units, Claim: claim * units}
		if math.IsInf(f.Claim, 1) || math.IsNaN(f.Claim) {
			f.Bound, f.Reason = math.NaN(), t.reason(claim, f.X, f.Y)
			rep.Skipped = append(rep.Skipped, f)
			continue
		}
		pl.words = append(pl.words, p)
		if t.Stages == nil && (wordSampled || !exactFor(t, p.x, p.y)) {
			tests += 2 * o.Outputs
		}
	}
	pl.sampler = samplerInputs(t, pl.words)
	if t.Stages != nil {
		pl.stages = stageInputs(pl.words)
	}
	for _, g := range games {
		units := t.DocUnits(g.x, g.y)
		if c := claim * units; math.IsInf(c, 1) || math.IsNaN(c) || math.IsInf(units, 1) {
			rep.Skipped = append(rep.Skipped, Finding{Level: "document", Kind: g.kind, X: g.x, Y: g.y, Units: units, Claim: math.Inf(1), Bound: math.NaN(),
				Reason: t.reason(claim, g.x, g.y)})
			continue
		}
		if c := claim * units; t.Stages != nil && c > SampledCeiling(o.Samples, o.Alpha/2) {
			// Above the ceiling of even a single test at this K: the game cannot fail, and a
			// two-stage draw costs passes over the vocabulary; the stages are audited instead.
			rep.Skipped = append(rep.Skipped, Finding{Level: "document", Kind: g.kind, X: g.x, Y: g.y, Units: units, Claim: c, Bound: math.NaN(),
				Reason: fmt.Sprintf("not played: its claim %.4g is above the %.4g any game could show at K = %d, so it cannot fail; the sampler's stages are audited in parts instead", c, SampledCeiling(o.Samples, o.Alpha/2), o.Samples)})
			continue
		}
		pl.games = append(pl.games, g)
		tests += 2
	}
	noiseCount := 0
	if t.Noise != nil && !math.IsInf(claim, 1) {
		pl.noise, pl.partners = noiseWords(pl.words)
		for _, x := range pl.noise {
			if v, ok := t.Noise.WordVector(x); ok {
				noiseCount += noiseTests(len(pl.partners[x]), len(v))
			}
		}
		noiseCount += choiceTestCount(t, len(pl.noise)+decodeHubs)
	}
	rep.Tests = 2*tests + noiseCount + len(pl.sampler)*(1+ownWordTests) + len(pl.stages)*stageTests
	return pl
}

// samplerInputs lists, once each in order, the words of the exactly audited pairs: the
// sampler of every such input is tested against the computed distribution.
func samplerInputs(t *Target, words []wordPair) []string {
	var inputs []string
	if t.LogProbabilities == nil {
		return inputs
	}
	seen := map[string]bool{}
	for _, p := range words {
		if !exactFor(t, p.x, p.y) {
			continue
		}
		for _, w := range []string{p.x, p.y} {
			if !seen[w] {
				seen[w] = true
				inputs = append(inputs, w)
			}
		}
	}
	return inputs
}

// auditWords tests each planned word pair: exactly when the target gives its distribution,
// else by sampling (with adaptive K), each from its own stream.
func auditWords(t *Target, o Options, pl *auditPlan, claim, level float64, rep *Report, pr *progress) {
	wordSampled := t.LogProbabilities == nil
	for i, p := range pl.words {
		units := t.WordUnits(p.x, p.y)
		prng := rngs.New(o.Seed, fmt.Sprintf("audit/word=%d", i))
		var f Finding
		if t.Stages != nil {
			f = stagePairFinding(t, p, claim, units)
		} else if !wordSampled && exactFor(t, p.x, p.y) {
			f = exactWord(t, p)
			f.Ceiling = math.Inf(1)
		} else {
			// Adaptive K: a pair whose claim is above the ceiling at K gets the K that could
			// refute it, up to MaxSamples; chosen from the claim alone, before any draw, so the
			// level of the test is unchanged.
			k := o.Samples
			if c := claim * units; o.MaxSamples > k && c > SampledCeiling(k, level) {
				k = int(math.Min(float64(o.MaxSamples), rep.SamplesToRefute(c)))
			}
			f = sampledWord(t, prng, p, k, o.Outputs, level)
			f.Ceiling = SampledCeiling(k, level)
		}
		f.Units, f.Claim, f.PValue = units, claim*units, math.NaN()
		rep.Findings = append(rep.Findings, f)
		pr.step()
	}
}

// ownMaxFactor bounds the draws of the sampler tests at this many times K.
const ownMaxFactor = 20

// auditSamplers tests the sampler of each input against its computed distribution: the χ²
// test over all outputs, and the own-word test of the input's own probability and its largest
// outputs, each on its own (sampler.go).
func auditSamplers(t *Target, o Options, inputs []string, level float64, rep *Report, pr *progress) {
	if len(inputs) == 0 {
		return
	}
	rows := map[string]int{}
	for i, w := range t.OutputWords {
		rows[w] = i
	}
	for i, x := range inputs {
		draws := samplerDraws(t, x, rows, o.Samples, ownMaxFactor*o.Samples, level)
		sample := t.SampleWord(rngs.New(o.Seed, fmt.Sprintf("audit/sampler=%d", i)), x, draws)
		f := samplerFinding(t, x, rows, sample, level)
		own := ownWordFinding(t, x, rows, sample, level)
		rep.Findings = append(rep.Findings, f, own)
		pr.step()
	}
}

// auditDecoding checks the decoding of the noise step's words and then of the decodeHubs words
// released most often in their draws (see decode.go).
func auditDecoding(t *Target, o Options, pl *auditPlan, rep *Report, pr *progress) error {
	if len(pl.noise) == 0 {
		return nil
	}
	total := map[string]int{}
	tested := map[string]bool{}
	for i, x := range pl.noise {
		f, choice, counts, err := decodeFinding(t, o.Seed, i, x, pl.partners[x], o.Samples, rep.Level)
		if err != nil {
			return err
		}
		f.Claim = rep.Claim
		rep.Findings = append(rep.Findings, f)
		rep.Findings = append(rep.Findings, choice...)
		pr.step()
		tested[x] = true
		for w, c := range counts {
			total[w] += c
		}
	}
	hubs := make([]string, 0, len(total))
	for w := range total {
		if _, known := t.Noise.WordVector(w); known && !tested[w] {
			hubs = append(hubs, w)
		}
	}
	sort.Slice(hubs, func(i, j int) bool {
		if total[hubs[i]] != total[hubs[j]] {
			return total[hubs[i]] > total[hubs[j]]
		}
		return hubs[i] < hubs[j]
	})
	hubs = hubs[:min(len(hubs), decodeHubs)]
	pr.total -= decodeHubs - len(hubs)
	for i, x := range hubs {
		f, choice, _, err := decodeFinding(t, o.Seed, len(pl.noise)+i, x, nil, o.Samples, rep.Level)
		if err != nil {
			return err
		}
		f.Claim, f.Kind = rep.Claim, "release against an exact re-decoding, at a word released most often"
		rep.Findings = append(rep.Findings, f)
		for _, c := range choice {
			c.Kind += ", at a word released most often"
			rep.Findings = append(rep.Findings, c)
		}
		pr.step()
	}
	return nil
}

// reason says why the pair x, y has no finite claim: the mechanism claims nothing, or its own
// reason (an UnprotectedReason method), or out-of-vocabulary words passed through.
func (t *Target) reason(claim float64, x, y []string) string {
	switch {
	case math.IsInf(claim, 1) && t.NoBound:
		return "unprotected (∞): the mechanism states no bound between different words (test a finite per-word claim with --claim)"
	case math.IsInf(claim, 1):
		return "the mechanism claims no privacy (test a value with --claim): unprotected (∞)"
	}
	if t.Unprotected != nil {
		if r := t.Unprotected(x, y); r != "" {
			return "unprotected (∞): " + r
		}
	}
	for _, w := range append(append([]string(nil), x...), y...) {
		if _, ok := t.Store.Lookup(w); !ok {
			return "unprotected (∞): out-of-vocabulary words are passed through unchanged"
		}
	}
	return "unprotected (∞): the mechanism states no finite bound for the pair"
}

// wordPair is a pair of single-word inputs.
type wordPair struct {
	kind string
	x, y string
}

// wordPairs draws n input words of each kind from the candidates most frequent rows and pairs
// each with its nearest neighbour, a uniformly drawn word, or its farthest word (Euclidean
// distance over the whole vocabulary).
func wordPairs(t *Target, rng *rand.Rand, n, candidates int) []wordPair {
	s := t.Store
	candidates = min(max(candidates, 2), s.Len())
	var out []wordPair
	for _, kind := range []string{"nearest", "random", "far"} {
		for range n {
			x := rng.IntN(candidates)
			var y int
			switch kind {
			case "nearest", "far":
				y = extremeNeighbour(s.Vector(x), x, s.Len(), s.Vector, kind == "far")
			default:
				for y = x; y == x; {
					y = rng.IntN(s.Len())
				}
			}
			out = append(out, wordPair{kind: kind, x: s.Word(x), y: s.Word(y)})
		}
	}
	return out
}

// extremeNeighbour returns the row other than self nearest to v (or farthest when far), ties by
// lowest row.
func extremeNeighbour(v []float32, self, n int, vec func(int) []float32, far bool) int {
	best, bestD := -1, 0.0
	for r := range n {
		if r == self {
			continue
		}
		d := 0.0
		for i, a := range vec(r) {
			x := float64(a) - float64(v[i])
			d += x * x
		}
		if best < 0 || (!far && d < bestD) || (far && d > bestD) {
			best, bestD = r, d
		}
	}
	return best
}

// game is a pair of neighbouring documents.
type game struct {
	kind string
	x, y []string
}

// documentGames builds the neighbouring documents from the first pair of each kind: one word
// changed (the nearest pair, in a three-word document), two words swapped (the far pair) and
// one out-of-vocabulary word changed.
func documentGames(t *Target, pairs []wordPair) []game {
	first := map[string]wordPair{}
	for _, p := range pairs {
		if _, ok := first[p.kind]; !ok {
			first[p.kind] = p
		}
	}
	near, far, rnd := first["nearest"], first["far"], first["random"]
	unknown := unknownTokens(t, 2)
	return []game{
		{"one word changed", []string{near.x, rnd.y, far.y}, []string{near.y, rnd.y, far.y}},
		{"two words swapped", []string{far.x, far.y, rnd.x}, []string{far.y, far.x, rnd.x}},
		{"one OOV word changed", []string{rnd.x, unknown[0]}, []string{rnd.x, unknown[1]}},
	}
}

// unknownTokens returns n tokens that are not in the target's vocabulary.
func unknownTokens(t *Target, n int) []string {
	var out []string
	for i := 0; len(out) < n; i++ {
		w := fmt.Sprintf("zxq%dqxz", i)
		if _, ok := t.Store.Lookup(w); !ok {
			out = append(out, w)
		}
	}
	return out
}

// exactFor says the target's distributions for both words are exactly computable.
func exactFor(t *Target, x, y string) bool {
	if t.LogProbabilities == nil {
		return false
	}
	_, okx := t.LogProbabilities(x)
	_, oky := t.LogProbabilities(y)
	return okx && oky
}

// exhaustiveGroups computes the largest exact loss max_w |ln P(w|x) − ln P(w|y)| over every
// pair x, y of one group of t.Groups whose distributions are computable, with its claim units;
// false when no group has such a pair. Only the group's own rows are compared: the audit
// relies on the mechanism's distributions giving no mass outside the group (the sampler test
// checks the draws against them).
func exhaustiveGroups(t *Target) (Finding, bool) {
	f := Finding{Level: "word", Kind: "every within-set pair", Bound: math.Inf(-1), Exact: true, Method: "exact, exhaustive"}
	pairs := 0
	for _, g := range t.Groups {
		var words []string
		var dists [][]float64
		for _, w := range g {
			if lp, ok := t.LogProbabilities(w); ok {
				words, dists = append(words, w), append(dists, lp)
			}
		}
		var rows []int
		for _, w := range words {
			if r, ok := t.Store.Lookup(w); ok {
				rows = append(rows, r)
			}
		}
		for i := range dists {
			for j := i + 1; j < len(dists); j++ {
				pairs++
				units := t.WordUnits(words[i], words[j])
				for _, r := range rows {
					d := math.Abs(dists[i][r] - dists[j][r])
					if per := d / units; f.Bound == math.Inf(-1) || per > f.Bound/f.Units {
						f.Bound, f.Units, f.X, f.Y, f.Output = d, units, []string{words[i]}, []string{words[j]}, t.Store.Word(r)
					}
				}
			}
		}
	}
	if pairs == 0 {
		return Finding{}, false
	}
	f.Kind = fmt.Sprintf("every within-set pair (%d pairs)", pairs)
	return f, true
}

// exhaustiveWords is the number of most frequent words every pair of which exhaustivePairs
// compares.
const exhaustiveWords = 100

// exhaustivePairs computes, over every pair x, y of the store's first n words whose
// distributions are computable and whose claim is finite and positive, the exact loss
// max_w |ln P(w|x) − ln P(w|y)| and returns the pair whose loss per claim unit is largest: the
// pairs where a mechanism's loss comes nearest its claim (for a metric claim often not the
// drawn ones), so that a claim too large by a factor shows. False when no pair qualifies.
func exhaustivePairs(t *Target, n int) (Finding, bool) {
	n = min(n, t.Store.Len())
	f := Finding{Level: "word", Kind: fmt.Sprintf("the pair nearest its claim among the %d most frequent words", n), Bound: math.Inf(-1), Exact: true, Method: "exact, every pair"}
	var words []string
	var dists [][]float64
	for r := range n {
		w := t.Store.Word(r)
		if lp, ok := t.LogProbabilities(w); ok {
			words, dists = append(words, w), append(dists, lp)
		}
	}
	found := false
	for i := range dists {
		for j := i + 1; j < len(dists); j++ {
			units := t.WordUnits(words[i], words[j])
			if !(units > 0) || math.IsInf(units, 1) {
				continue
			}
			best, arg := 0.0, 0
			other := dists[j][:len(dists[i])]
			for r, a := range dists[i] {
				// An output neither releases (both −Inf) gives −Inf − (−Inf) = NaN, which is
				// never > best: it is skipped without a test of its own.
				if d := math.Abs(a - other[r]); d > best {
					best, arg = d, r
				}
			}
			if !found || best/units > f.Bound/f.Units {
				found = true
				f.Bound, f.Units, f.X, f.Y, f.Output = best, units, []string{words[i]}, []string{words[j]}, t.OutputWords[arg]
			}
		}
	}
	return f, found
}

// exactWord computes max_w |ln P(w|x) − ln P(w|y)| from the exact distributions.
func exactWord(t *Target, p wordPair) Finding {
	lx, _ := t.LogProbabilities(p.x)
	ly, _ := t.LogProbabilities(p.y)
	best, arg := math.Inf(-1), 0
	for w := range lx {
		if d := math.Abs(lx[w] - ly[w]); d > best {
			best, arg = d, w
		}
	}
	return Finding{Level: "word", Kind: p.kind, X: []string{p.x}, Y: []string{p.y}, Output: t.OutputWords[arg],
		Bound: best, Exact: true, Method: "exact"}
}

// sampledWord bounds max_w |ln P(w|x)/P(w|y)| from below: on a first sample of K outputs per
// input it selects the given number of outputs whose log-ratio that sample alone bounds highest
// (either direction); on a fresh sample it bounds each of them with one-sided Clopper–Pearson
// intervals at the given level: ln(P_lower(w|x)/P_upper(w|y)) and the reverse. Selecting on
// one sample and testing on another keeps the Bonferroni count to the outputs tested.
func sampledWord(t *Target, rng *rand.Rand, p wordPair, k, outputs int, level float64) Finding {
	cx, cy := counts(t.SampleWord(rng, p.x, k)), counts(t.SampleWord(rng, p.y, k))
	type cand struct {
		w     string
		score float64
	}
	// Selection score: the bound the first sample itself would give, so that outputs with a
	// large ratio and enough mass to show it come first (a smoothed ratio favours rare noise).
	var cands []cand
	for w := range union(cx, cy) {
		r := math.Inf(-1)
		for _, ab := range [2][2]int{{cx[w], cy[w]}, {cy[w], cx[w]}} {
			if lo := stats.ClopperPearsonLower(ab[0], k, level); lo > 0 {
				r = math.Max(r, math.Log(lo/stats.ClopperPearsonUpper(ab[1], k, level)))
			}
		}
		cands = append(cands, cand{w, r})
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].score != cands[j].score {
			return cands[i].score > cands[j].score
		}
		return cands[i].w < cands[j].w
	})
	cands = cands[:min(outputs, len(cands))]
	tx, ty := counts(t.SampleWord(rng, p.x, k)), counts(t.SampleWord(rng, p.y, k))
	f := Finding{Level: "word", Kind: p.kind, X: []string{p.x}, Y: []string{p.y}, Bound: math.Inf(-1), Method: "clopper-pearson"}
	for _, c := range cands {
		for _, dir := range [2]bool{false, true} {
			a, b := tx[c.w], ty[c.w]
			if dir {
				a, b = b, a
			}
			lo := stats.ClopperPearsonLower(a, k, level)
			hi := stats.ClopperPearsonUpper(b, k, level)
			if lo > 0 {
				if v := math.Log(lo / hi); v > f.Bound {
					f.Bound, f.Output = v, c.w
				}
			}
		}
	}
	return f
}

func counts(ws []string) map[string]int {
	c := map[string]int{}
	for _, w := range ws {
		c[w]++
	}
	return c
}

func union(a, b map[string]int) map[string]bool {
	u := map[string]bool{}
	for w := range a {
		u[w] = true
	}
	for w := range b {
		u[w] = true
	}
	return u
}

// playGame runs the distinguishing game on g: K runs per document train the distinguisher (or
// none, for the likelihood-ratio test), K fresh runs per document test it. With FPR the share
// of y's outputs taken for x's and FNR the reverse, ε-DP gives 1 − FNR ≤ e^ε·FPR and
// 1 − FPR ≤ e^ε·FNR, so ε ≥ max(ln((1 − FNR)/FPR), ln((1 − FPR)/FNR)); both rates are replaced
// by their Clopper–Pearson upper bounds at the given level.
func playGame(t *Target, rng *rand.Rand, g game, k int, level float64) Finding {
	f := Finding{Level: "document", Kind: g.kind, X: g.x, Y: g.y}
	var decide func(out []string) bool // true: the output is taken for x's
	if lr := likelihoodRatio(t, g); lr != nil {
		f.Method = "likelihood ratio"
		decide = func(out []string) bool { return lr(out) > 0 }
	} else {
		f.Method = "naive bayes"
		nb := newNaiveBayes()
		runs := t.applyInTurn(rng, alternate(g.x, g.y, k))
		for i := 0; i < len(runs); i += 2 {
			nb.add(runs[i], true)
			nb.add(runs[i+1], false)
		}
		decide = nb.decide
	}
	fn, fp := 0, 0
	runs := t.applyInTurn(rng, alternate(g.x, g.y, k))
	for i := 0; i < len(runs); i += 2 {
		if !decide(runs[i]) {
			fn++
		}
		if decide(runs[i+1]) {
			fp++
		}
	}
	fnU, fpU := stats.ClopperPearsonUpper(fn, k, level), stats.ClopperPearsonUpper(fp, k, level)
	a, b := math.Log((1-fnU)/fpU), math.Log((1-fpU)/fnU)
	f.Bound = math.Max(a, b)
	f.Output = fmt.Sprintf("FPR %d/%d, FNR %d/%d", fp, k, fn, k)
	return f
}

// alternate is x, y, x, y, … (k of each): the order in which a game releases its runs.
func alternate(x, y []string, k int) [][]string {
	docs := make([][]string, 0, 2*k)
	for range k {
		docs = append(docs, x, y)
	}
	return docs
}

// likelihoodRatio returns ln P(out|x) − ln P(out|y) for targets that privatise every position
// independently with exactly known distributions, or nil.
func likelihoodRatio(t *Target, g game) func(out []string) float64 {
	if !t.Positional || t.LogProbabilities == nil || len(g.x) != len(g.y) {
		return nil
	}
	row := map[string]int{}
	for i, w := range t.OutputWords {
		row[w] = i
	}
	lx, ly := make([][]float64, len(g.x)), make([][]float64, len(g.y))
	for i := range g.x {
		var ok1, ok2 bool
		lx[i], ok1 = t.LogProbabilities(g.x[i])
		ly[i], ok2 = t.LogProbabilities(g.y[i])
		if !ok1 || !ok2 {
			return nil
		}
	}
	return func(out []string) float64 {
		s := 0.0
		for i, w := range out {
			r, ok := row[w]
			if !ok || i >= len(lx) {
				return 0
			}
			s += lx[i][r] - ly[i][r]
		}
		return s
	}
}

// naiveBayes is a two-class multinomial naive Bayes classifier over the features of an output:
// each word, and each word with its position (so it can learn both what and where).
type naiveBayes struct {
	count  [2]map[string]float64
	totals [2]float64
}

func newNaiveBayes() *naiveBayes {
	return &naiveBayes{count: [2]map[string]float64{{}, {}}}
}

func features(out []string) []string {
	f := make([]string, 0, 2*len(out))
	for i, w := range out {
		f = append(f, "w:"+w, fmt.Sprintf("p%d:%s", i, w))
	}
	if len(out) == 0 {
		f = append(f, "empty")
	}
	return f
}

func (nb *naiveBayes) add(out []string, isX bool) {
	c := 1
	if isX {
		c = 0
	}
	for _, f := range features(out) {
		nb.count[c][f]++
		nb.totals[c]++
	}
}

// decide says the output is more likely x's (add-one/2 smoothing over the features seen).
func (nb *naiveBayes) decide(out []string) bool {
	v := float64(len(nb.count[0]) + len(nb.count[1]) + 1)
	s := 0.0
	for _, f := range features(out) {
		s += math.Log((nb.count[0][f]+0.5)/(nb.totals[0]+0.5*v)) - math.Log((nb.count[1][f]+0.5)/(nb.totals[1]+0.5*v))
	}
	return s > 0
}

// Describe formats a finding on one line.
func (f Finding) Describe() string {
	if f.Level == "sampler" && f.Kind == "own word and largest outputs" {
		return fmt.Sprintf("sampler of [%s], its own word and largest outputs each on its own: smallest p = %.3g against the computed probabilities (%s: %s)", strings.Join(f.X, " "), f.PValue, f.Method, f.Output)
	}
	if f.Level == "sampler" {
		return fmt.Sprintf("sampler of [%s]: p = %.3g against the computed distribution (%s: %s)", strings.Join(f.X, " "), f.PValue, f.Method, f.Output)
	}
	if f.Level == "stages" {
		if len(f.Y) > 0 {
			return fmt.Sprintf("stages %s: [%s] vs [%s]: composed loss ≤ %.4g, claim %.4g (%s: %s)", f.Kind, strings.Join(f.X, " "), strings.Join(f.Y, " "), f.Bound, f.Claim, f.Method, f.Output)
		}
		if f.Exact {
			return fmt.Sprintf("stages of [%s], %s (%s): %s", strings.Join(f.X, " "), f.Kind, f.Method, f.Output)
		}
		return fmt.Sprintf("stages of [%s], %s: p = %.3g (%s: %s)", strings.Join(f.X, " "), f.Kind, f.PValue, f.Method, f.Output)
	}
	if f.Level == "decoding" {
		return fmt.Sprintf("decoding of [%s] (%s): %s", strings.Join(f.X, " "), f.Kind, f.Output)
	}
	if f.Level == "noise" {
		switch {
		case f.Method == "gamma sum":
			return fmt.Sprintf("noise %s of [%s]: the noise's ε ≥ %.4g (lower confidence bound), claim %.4g per unit (%s: %s)",
				f.Kind, strings.Join(f.X, " "), f.Bound, f.Claim, f.Method, f.Output)
		case f.Exact:
			return fmt.Sprintf("noise %s of [%s]: noise distance / claimed distance %.4g, at most 1 allowed (%s)",
				f.Kind, strings.Join(f.X, " "), f.Bound, f.Output)
		}
		return fmt.Sprintf("noise %s of [%s]: p = %.3g against the density claim %.4g requires (%s: %s)",
			f.Kind, strings.Join(f.X, " "), f.PValue, f.Claim, f.Method, f.Output)
	}
	how := f.Method
	kind := "lower bound"
	if f.Exact {
		kind = "exact"
	}
	power := ""
	if !f.Exact {
		power = fmt.Sprintf(", ceiling %.4g", f.Ceiling)
		if f.CannotFail() {
			power += ": cannot fail at this K"
		}
	}
	return fmt.Sprintf("%s %s: [%s] vs [%s], %s %q: %s log-ratio %.4g, claim %.4g (%s%s)",
		f.Level, f.Kind, strings.Join(f.X, " "), strings.Join(f.Y, " "), outputLabel(f), f.Output, kind, f.Bound, f.Claim, how, power)
}

func outputLabel(f Finding) string {
	if f.Level == "document" {
		return "distinguisher"
	}
	return "output"
}
