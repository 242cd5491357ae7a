package mechanisms

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"dptext/internal/text"
)

// PrivatizeText privatises the words of a text with m, keeping stopwords, punctuation and
// layout in place (text.RewriteWords; with the stopwords among the words for a mechanism that
// rewrites them, see StopwordRewriter), drawing from newRNG(). A mechanism that does not keep
// word positions (SynTF's sampled bag, dropped words) gets its output words joined by spaces
// instead, drawn from a fresh newRNG(), with inPlace false. words are the text's words.
func PrivatizeText(m Mechanism, newRNG func() *rand.Rand, s string) (out string, words []string, inPlace bool, err error) {
	rng := newRNG()
	var applyErr error
	rewrite := text.RewriteWords
	if RewritesStopwords(m) {
		rewrite = text.RewriteEveryWord
	}
	out, err = rewrite(s, func(w []string) []string {
		words = w
		var p []string
		p, applyErr = Privatize(m, rng, w)
		return p
	})
	if applyErr != nil {
		return "", nil, false, applyErr
	}
	if err == nil {
		return out, words, true, nil
	}
	p, err := Privatize(m, newRNG(), words)
	if err != nil {
		return "", nil, false, err
	}
	return strings.Join(p, " ") + "\n", words, false, nil
}

// StopwordRewriter is implemented by a mechanism that can rewrite function words as well
// (an ER-AE model trained on text with them): a released text then has its stopwords among
// the privatised words rather than kept.
type StopwordRewriter interface {
	RewritesStopwords() bool
}

// RewritesStopwords says whether m rewrites stopwords (StopwordRewriter) rather than keeping them.
func RewritesStopwords(m Mechanism) bool {
	r, ok := m.(StopwordRewriter)
	return ok && r.RewritesStopwords()
}

// Describe states g in words for a document of n words (what `dptext obfuscate` prints).
func (g Guarantee) Describe(n int) string {
	perWord := g.Epsilon / float64(max(n, 1))
	switch g.Kind {
	case KindMetric:
		switch {
		case math.IsInf(g.Epsilon, 1):
			return "no finite bound between documents that differ in a known word (the mechanism's candidates never include a word's farthest word, so its loss is infinite for some outputs)"
		case g.Metric == MetricCustomisedSets:
			return fmt.Sprintf("ε = %.4g per changed word within a customised set: multiplier at most e^{ε·D} = e^{%.4g·D} against any document of the same length differing in D positions, each within one set; "+
				"documents differing in a word of another set (or, for custext+, in a stopword) get NO protection (∞)", perWord, perWord)
		case g.Metric == MetricSensitivePositional:
			return fmt.Sprintf("positional over sensitive words only: multiplier at most e^{ε·Σᵢ d(xᵢ, x′ᵢ)} = e^{%.4g·d} against any document of the same length whose mean per-position word distance is d, all changed words sensitive; "+
				"non-sensitive words are released unchanged with probability 1 − p and are UNPROTECTED (∞)", g.Epsilon)
		case g.Metric == MetricPositional:
			return fmt.Sprintf("positional (words released in place): multiplier at most e^{ε·Σᵢ d(xᵢ, x′ᵢ)} = e^{%.4g·d} against any document of the same length whose mean per-position word distance is d", g.Epsilon)
		}
		return fmt.Sprintf("ε·N = %.4g per unit of %s (multiplier e^{%.4g·d} between two documents at %s distance d)", g.Epsilon, g.Metric, g.Epsilon, g.Metric)
	case KindPure:
		s := fmt.Sprintf("%.4g-differential privacy between any two documents of this length", g.Epsilon)
		keys := make([]string, 0, len(g.Bounds))
		for k := range g.Bounds {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			s += fmt.Sprintf("; %s = %.4g", k, g.Bounds[k])
		}
		return s
	}
	return "none (no formal privacy)"
}
