// Package distinguish measures a text mechanism's empirical document-level privacy loss: how
// well an observer who knows two candidate inputs x and x′ can tell from one release which of
// them it came from, turned into the ε that pure ε-differential privacy would need to allow it
// (after Li, Grivet Sébert, Xu, McIver and Dras 2026, "Beyond Theoretical Bounds: Empirical
// Privacy Loss Calibration for Text Rewriting Under Local Differential Privacy").
//
// The game. Each pair (x, x′) is two documents of the same length: x′ equals x except for k
// words taken from another author's document at the same positions (for each distance k of
// Options.Distances), or, at the far end (k = Whole), is that other author's document. Each of
// x and x′ is released Options.Releases times through the mechanism (Release). A distinguisher
// scores a release o against the two candidates, s(o; x, x′), and answers "x" when s > 0, "x′"
// when s < 0 and half of each when s = 0; none of them is trained. Four are tried (Names): word
// overlap and positional agreement in surface space, centred mean-vector cosine and positional
// cosine in embedding space. The first half of the releases of every pair chooses the
// distinguisher with the highest accuracy at each distance; only the other half is scored.
//
// The estimate. The balanced accuracy A of a test between x and x′ under pure ε-DP is at most
// e^ε/(1 + e^ε) (its advantage TPR − FPR at most (e^ε − 1)/(e^ε + 1)), so ε ≥ ln(A/(1 − A)).
// A is the mean over pairs of each pair's accuracy on its scored releases; since the bound
// holds pair by pair, their mean obeys it too. Its one-sided (1 − α) confidence bounds come
// from a bootstrap over clusters of pairs (the authors of x: releases of one pair depend on the
// pair, so pairs, not releases, are the unit), each bound widened to the Clopper–Pearson bound
// of the pooled scored trials where that is wider (the bootstrap collapses when every release
// is told apart). Ceiling is the ε lower bound a design of this size shows when every scored
// trial is right: a lower bound near it measures the design, not the mechanism.
//
// What it is not: a lower bound for the distinguishers tried, never a proof of privacy; and a
// document-level loss for documents of this length, not a per-word ε.
package distinguish

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"dptext/internal/rngs"
	"dptext/internal/stats"
	"dptext/mechanisms"
)

// Whole is the distance of pairs whose x′ is another author's whole document.
const Whole = 0

// Options are the sizes of the measurement.
type Options struct {
	// Pairs is the number of pairs (x, x′) at each distance.
	Pairs int
	// Words is the documents' length: every document is cut to its first Words words.
	Words int
	// Releases is R, the releases of each document; the first half chooses the distinguisher,
	// the second half is scored.
	Releases int
	// Distances are the k of the pairs (words of x replaced); Whole (0) stands for whole
	// documents by different authors.
	Distances []int
	// Distinguishers are the names (of Names) tried; empty means all.
	Distinguishers []string
	// Alpha is the error rate of each one-sided confidence bound.
	Alpha float64
	// Replicates is the number of bootstrap replicates.
	Replicates int
	// PositionWise couples each x′ to x (set by For, from the mechanism): the mechanism releases
	// position by position (mechanisms.PositionWise), so the r-th release of x′ at a distance
	// k ≠ Whole is the r-th release of x with the positions where x′ differs redrawn, and only
	// those words go through the mechanism. Every release keeps the mechanism's law (at a
	// position where x and x′ agree, x's draw is a draw of x′'s word, independent of the other
	// positions); only the joint law of the two releases changes, which no estimate reads on its
	// own: each trial is one release scored alone, and the bootstrap resamples whole pairs.
	PositionWise bool
}

// For returns o for mechanism m: PositionWise set when m releases position by position.
func (o Options) For(m mechanisms.Mechanism) Options {
	p, ok := m.(mechanisms.PositionWise)
	o.PositionWise = ok && p.PositionWise()
	return o
}

// DefaultOptions are 60 pairs of 100-word documents, 10 releases each, at k = 1, 5, 25 and whole
// documents, all distinguishers, α = 0.05 and 2,000 bootstrap replicates.
func DefaultOptions() Options {
	return Options{Pairs: 60, Words: 100, Releases: 10, Distances: []int{1, 5, 25, Whole}, Alpha: 0.05, Replicates: 2000}
}

// OptionError is a bad option: its key (the toml name of the field) and what is wrong.
type OptionError struct{ Key, Msg string }

func (e *OptionError) Error() string { return e.Key + " = " + e.Msg }

// Check names the first bad option (an *OptionError).
func (o Options) Check() error {
	bad := func(key, format string, args ...any) error {
		return &OptionError{Key: key, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case o.Pairs < 2:
		return bad("pairs", "%d: want at least 2", o.Pairs)
	case o.Words < 1:
		return bad("words", "%d: want at least 1", o.Words)
	case o.Releases < 2:
		return bad("releases", "%d: want at least 2 (half choose the distinguisher, half are scored)", o.Releases)
	case len(o.Distances) == 0:
		return bad("distances", "[]: want at least one (0 for whole documents)")
	case !(o.Alpha > 0 && o.Alpha < 0.5):
		return bad("alpha", "%v: want a value in (0, 0.5)", o.Alpha)
	case o.Replicates < 100:
		return bad("replicates", "%d: want at least 100", o.Replicates)
	}
	seen := map[int]bool{}
	for _, k := range o.Distances {
		if k < 0 || k > o.Words {
			return bad("distances", "%v: %d: want 0 (whole documents) or 1 to words = %d", o.Distances, k, o.Words)
		}
		if seen[k] {
			return bad("distances", "%v: %d twice", o.Distances, k)
		}
		seen[k] = true
	}
	for _, n := range o.Distinguishers {
		if !slices.Contains(Names, n) {
			return bad("distinguishers", "%q: want names among %q", o.Distinguishers, Names)
		}
	}
	return nil
}

// DistanceName is k's name in row names and tables: "k5", or "doc" for Whole.
func DistanceName(k int) string {
	if k == Whole {
		return "doc"
	}
	return "k" + strconv.Itoa(k)
}

// Release privatises every document of docs through the mechanism's own release path, document
// i from a stream of its own named by i (so equal calls give equal releases, however the work is
// divided).
type Release func(docs [][]string) ([][]string, error)

// Level is the measurement at one distance.
type Level struct {
	// Distance is k (Whole for whole documents).
	Distance int
	// Chosen is the distinguisher chosen on the selection releases; Selection holds each tried
	// distinguisher's accuracy there.
	Chosen    string
	Selection map[string]float64
	// Accuracy is the chosen distinguisher's balanced accuracy on the scored releases (mean over
	// pairs), with its one-sided (1 − α) lower and upper confidence bounds.
	Accuracy, AccuracyLow, AccuracyHigh float64
	// PerPair is each pair's accuracy on its scored releases (Accuracy is their mean).
	PerPair []float64
	// Correct and Trials are the pooled scored trials (a tie counts half).
	Correct float64
	Trials  int
	// Epsilon, EpsilonLow and EpsilonHigh are ε(A) = ln(A/(1 − A)) (0 for A ≤ 1/2, +Inf for
	// A = 1) of the three accuracies; Ceiling is ε of the Clopper–Pearson lower bound when every
	// scored trial is right.
	Epsilon, EpsilonLow, EpsilonHigh, Ceiling float64
}

// Result is the measurement at every distance.
type Result struct {
	Levels []Level
	// Pairs and Releases are the design: pairs per distance, releases per document (half
	// scored).
	Pairs, Releases int
}

// EpsilonOf is the smallest pure ε that allows balanced accuracy a between two inputs:
// ln(a/(1 − a)), 0 for a ≤ 1/2, +Inf for a ≥ 1.
func EpsilonOf(a float64) float64 {
	switch {
	case a <= 0.5:
		return 0
	case a >= 1:
		return math.Inf(1)
	}
	return math.Log(a / (1 - a))
}

// Measure plays the game on pairs through release and returns one Level per distance of o.
// vec, which may be nil (then the embedding distinguishers are not tried), gives the words'
// vectors. release is called once (see play); the bootstrap draws from
// rngs.New(seed, path + "/bootstrap/…").
// The result depends only on the releases, seed, path, the pairs and o.
func Measure(pairs []Pair, release Release, vec Vectors, o Options, seed uint64, path string) (*Result, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	if len(pairs) < 2 {
		return nil, fmt.Errorf("distinguish: %d pairs: want at least 2", len(pairs))
	}
	names := o.Distinguishers
	if len(names) == 0 {
		names = Names
	}
	if vec == nil {
		names = slices.DeleteFunc(slices.Clone(names), func(n string) bool { return embeddingNames[n] })
		if len(names) == 0 {
			return nil, fmt.Errorf("distinguish: only embedding distinguishers chosen, but no vectors")
		}
	}
	variants, rel, err := play(pairs, release, o)
	if err != nil {
		return nil, err
	}
	sc := newScorer(vec, pairs)
	// docs[p][v] and released[p][v][r]: variants[p][v] and rel[p][v][r] prepared once for every
	// distance and distinguisher that scores them.
	docs, released := make([][]document, len(pairs)), make([][][]document, len(pairs))
	for p := range pairs {
		for v := range variants[p] {
			docs[p] = append(docs[p], sc.document(variants[p][v], names))
			var rs []document
			for _, r := range rel[p][v] {
				rs = append(rs, sc.document(r, names))
			}
			released[p] = append(released[p], rs)
		}
	}
	sel := o.Releases / 2
	res := &Result{Pairs: len(pairs), Releases: o.Releases}
	for j, k := range o.Distances {
		// acc[d][p][half]: correct answers of distinguisher d on pair p's selection (0) and
		// scored (1) releases.
		acc := make([][][2]float64, len(names))
		for d := range acc {
			acc[d] = make([][2]float64, len(pairs))
		}
		for p := range pairs {
			x, xp := docs[p][0], docs[p][1+j]
			for r := range o.Releases {
				half := 0
				if r >= sel {
					half = 1
				}
				fromX, fromXp := released[p][0][r], released[p][1+j][r]
				for d, n := range names {
					acc[d][p][half] += answer(sc.score(n, fromX, x, xp)) + answer(-sc.score(n, fromXp, x, xp))
				}
			}
		}
		lv := Level{Distance: k, Selection: map[string]float64{}}
		best := -1.0
		var chosen int
		for d, n := range names {
			s := 0.0
			for p := range pairs {
				s += acc[d][p][0]
			}
			s /= float64(2 * sel * len(pairs))
			lv.Selection[n] = s
			if s > best {
				best, chosen = s, d
			}
		}
		lv.Chosen = names[chosen]
		perPair := make([]float64, len(pairs))
		clusters := make([]int, len(pairs))
		scored := 2 * (o.Releases - sel)
		for p := range pairs {
			perPair[p] = acc[chosen][p][1] / float64(scored)
			clusters[p] = pairs[p].Cluster
			lv.Correct += acc[chosen][p][1]
		}
		lv.Trials, lv.PerPair = scored*len(pairs), perPair
		lv.Accuracy, lv.AccuracyLow, lv.AccuracyHigh = bounds(perPair, clusters, lv.Correct, lv.Trials, o,
			rngs.New(seed, path+"/bootstrap/"+DistanceName(k)))
		lv.Epsilon, lv.EpsilonLow, lv.EpsilonHigh = EpsilonOf(lv.Accuracy), EpsilonOf(lv.AccuracyLow), EpsilonOf(lv.AccuracyHigh)
		lv.Ceiling = EpsilonOf(stats.ClopperPearsonLower(lv.Trials, lv.Trials, o.Alpha))
		res.Levels = append(res.Levels, lv)
	}
	return res, nil
}

// play makes the releases of the game with one call of release and returns, per pair p,
// variants[p][0] = x and variants[p][1+j] = x′ at o.Distances[j], and rel[p][v][r], the r-th
// release of variants[p][v]. The call holds every pair's x, then its x′ at each distance, each
// o.Releases times in a row; with o.PositionWise an x′ at k ≠ Whole is sent as only its words at
// the positions where it differs from x (none when it does not), and its r-th release is x's
// r-th release with those positions taken from that shorter release.
func play(pairs []Pair, release Release, o Options) (variants [][][]string, rel [][][][]string, err error) {
	type part struct{ p, v int }
	var docs [][]string
	var parts []part
	variants = make([][][]string, len(pairs))
	changed := make([][][]int, len(pairs)) // changed[p][v]: positions x′ redraws (coupled only)
	for p, pr := range pairs {
		variants[p] = append(variants[p], pr.X)
		changed[p] = append(changed[p], nil)
		for _, k := range o.Distances {
			variants[p] = append(variants[p], pr.Neighbour(k))
			var pos []int
			if o.PositionWise && k != Whole {
				pos = pr.Order[:min(k, len(pr.Order))]
			}
			changed[p] = append(changed[p], pos)
		}
		for v, d := range variants[p] {
			send := d
			if v > 0 && o.PositionWise && o.Distances[v-1] != Whole {
				if len(changed[p][v]) == 0 {
					continue
				}
				send = make([]string, len(changed[p][v]))
				for i, at := range changed[p][v] {
					send[i] = d[at]
				}
			}
			for range o.Releases {
				docs = append(docs, send)
				parts = append(parts, part{p, v})
			}
		}
	}
	out, err := release(docs)
	if err != nil {
		return nil, nil, err
	}
	if len(out) != len(docs) {
		return nil, nil, fmt.Errorf("distinguish: %d releases for %d documents", len(out), len(docs))
	}
	rel = make([][][][]string, len(pairs))
	for p := range pairs {
		rel[p] = make([][][]string, len(variants[p]))
	}
	for i, pt := range parts {
		if o.PositionWise && len(out[i]) != len(docs[i]) {
			return nil, nil, fmt.Errorf("distinguish: a position-wise release of %d words for a document of %d", len(out[i]), len(docs[i]))
		}
		rel[pt.p][pt.v] = append(rel[pt.p][pt.v], out[i])
	}
	for p := range pairs {
		for v := 1; v < len(variants[p]); v++ {
			if !o.PositionWise || o.Distances[v-1] == Whole {
				continue
			}
			fresh := rel[p][v]
			rel[p][v] = make([][]string, o.Releases)
			for r := range o.Releases {
				xp := slices.Clone(rel[p][0][r])
				for i, at := range changed[p][v] {
					xp[at] = fresh[r][i]
				}
				rel[p][v][r] = xp
			}
		}
	}
	return variants, rel, nil
}

// answer is the share of a right answer for score s of a release whose truth is "x": 1 for
// s > 0, 0 for s < 0, a half for a tie (a fair guess).
func answer(s float64) float64 {
	switch {
	case s > 0:
		return 1
	case s < 0:
		return 0
	}
	return 0.5
}
