package bench

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"dptext/embeddings"
	"dptext/experiments/registry"
	"dptext/experiments/report"
	"dptext/internal/rngs"
	"dptext/internal/stats"
	"dptext/mechanisms"
	"dptext/mechanisms/nearest"
)

// MechanismsOptions are the settings of Mechanisms.
type MechanismsOptions struct {
	// Epsilon is the ε every mechanism is built at, unless EpsilonFor names it.
	Epsilon float64
	// EpsilonFor is the ε of the mechanisms built at another ε than Epsilon (name → ε).
	EpsilonFor map[string]float64
	// Names are the registered mechanisms to measure, in order.
	Names []string
	// Documents and Words are the documents of a round and the Zipf-drawn words of each.
	Documents, Words int
	// ReferenceWords is how many of a round's words the per-token reference releases (it is
	// slow; its speed is a rate, so a prefix of the documents measures it).
	ReferenceWords int
	// Rounds is the number of rounds (medians are printed).
	Rounds int
	// Vocabulary names the vocabulary in the header line.
	Vocabulary string
}

// Mechanisms measures, for every mechanism of o.Names built at its ε (o.EpsilonFor, else
// o.Epsilon) with its default params on env, the words per second it releases through the
// runner's path (mechanisms.PrivatizeBatch over o.Documents documents of o.Words words drawn by
// Zipf's law from the vocabulary, every document with its own generator), and the words per
// second of its per-token Reference on the first o.ReferenceWords of them, and writes each round
// and then the medians and their ratio. Every round builds the mechanism anew, so the batch path
// starts with empty row caches, as a run's first cell does; the build is timed apart. A
// mechanism that cannot be built at ε on env (ε out of its range, a model file it needs) is
// listed with the reason.
//
// The ratio has two factors, both printed: sharing, the tokens per distinct word of a round (a
// batch path computes one row per distinct word, the reference one per token, so sharing alone
// would give that ratio at equal cost per row), and the ratio divided by it, the batch path's
// speed per row against the reference's per token. The first depends on the workload only
// (documents × words, the repetitions of Zipf's law), the second on the implementation.
func Mechanisms(ctx context.Context, w io.Writer, env *registry.Env, o MechanismsOptions) error {
	store := env.Embeddings
	rng := rngs.New(1, "bench/mechanisms")
	docs := make([][]string, o.Documents)
	for i := range docs {
		for _, r := range nearest.ZipfRows(rng, store.Len(), o.Words) {
			docs[i] = append(docs[i], store.Word(r))
		}
	}
	refDocs := prefix(docs, o.ReferenceWords)
	tokens, distinct := countWords(docs), distinctWords(docs)
	sharing := float64(tokens) / float64(distinct)
	fmt.Fprintf(w, "mechanisms at ε = %g%s on %s (%d words × %d dimensions): %d documents of %d Zipf-drawn words (%d distinct words: %.2f tokens per distinct word), reference on the first %d words, %d round(s)\n",
		o.Epsilon, otherEpsilons(o.EpsilonFor), o.Vocabulary, store.Len(), store.Dim(), o.Documents, o.Words, distinct, sharing, countWords(refDocs), o.Rounds)
	var lines, skipped []string
	for _, name := range o.Names {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, why, err := benchMechanism(ctx, w, env, name, docs, refDocs, sharing, o)
		if err != nil {
			return err
		}
		if why != "" {
			skipped = append(skipped, fmt.Sprintf("%s not measured: %s", name, why))
			continue
		}
		lines = append(lines, line)
	}
	fmt.Fprintf(w, "medians (sharing: %.2f tokens per distinct word; per row: batch/reference ÷ sharing, the batch path's cost per distinct word against the reference's per token):\n", sharing)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "mechanism\tε\tbuild s\tbatch words/s\treference words/s\tbatch/reference\tper row\t")
	for _, l := range lines {
		fmt.Fprintln(tw, l)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range skipped {
		fmt.Fprintln(w, s)
	}
	return nil
}

// benchMechanism runs the rounds of one mechanism and returns its line of the medians' table,
// or why it was not measured.
func benchMechanism(ctx context.Context, w io.Writer, env *registry.Env, name string, docs, refDocs [][]string, sharing float64, o MechanismsOptions) (line, why string, err error) {
	entry, ok := registry.Mechanisms[name]
	if !ok {
		return "", "", fmt.Errorf("unknown mechanism %q; valid: %v", name, registry.MechanismNames())
	}
	eps := report.EpsilonOf(o.Epsilon)
	if e, ok := o.EpsilonFor[name]; ok {
		eps = report.EpsilonOf(e)
	}
	shown := fmt.Sprintf("%g", eps.Value())
	if !entry.UsesEpsilon {
		eps, shown = report.Epsilon{}, "–"
	}
	mo, err := registry.DecodeMechanism(name, eps, "")
	if err != nil {
		return "", err.Error(), nil
	}
	if needs := mo.Needs(); needs.RawTexts || needs.LanguageModel || needs.TrainingCorpus && env.Corpus == nil {
		return "", "needs a training corpus or raw texts", nil
	}
	var builds, batch, ref []float64
	for round := range o.Rounds {
		if err := ctx.Err(); err != nil {
			return "", "", err
		}
		start := time.Now()
		m, err := mo.Build(env, eps.Value())
		if err != nil {
			return "", err.Error(), nil
		}
		builds = append(builds, time.Since(start).Seconds())
		gens := generators(len(docs), name, round, "batch")
		start = time.Now()
		out, err := mechanisms.PrivatizeBatch(m, gens, docs)
		if err != nil {
			return "", "", fmt.Errorf("%s: %w", name, err)
		}
		batch = append(batch, float64(countWords(out))/time.Since(start).Seconds())
		msg := fmt.Sprintf("%s round %d: build %.2fs, batch %.0f words/s", name, round+1, builds[round], batch[round])
		// The reference gets a mechanism of its own, so that no row the batch path cached
		// serves it.
		if fresh, err := mo.Build(env, eps.Value()); err != nil {
			return "", "", fmt.Errorf("%s: %w", name, err)
		} else if r, ok := referenceOf(fresh, env.Embeddings, entry.Releases == registry.ReleaseTermFrequencies); ok {
			gens := generators(len(refDocs), name, round, "reference")
			start = time.Now()
			n := 0
			for i, d := range refDocs {
				n += len(r.Apply(gens[i], d))
			}
			ref = append(ref, float64(n)/time.Since(start).Seconds())
			msg += fmt.Sprintf(", reference %.0f words/s", ref[round])
		}
		fmt.Fprintln(w, msg)
	}
	line = fmt.Sprintf("%s\t%s\t%.2f\t%.0f\t", name, shown, stats.Median(builds), stats.Median(batch))
	if len(ref) == 0 {
		return line + "no reference\t–\t–\t", "", nil
	}
	ratio := stats.Median(batch) / stats.Median(ref)
	return line + fmt.Sprintf("%.0f\t%.1f×\t%.1f×\t", stats.Median(ref), ratio, ratio/sharing), "", nil
}

// referencer releases a document token by token (Reference, GumbelReference).
type referencer interface {
	Apply(rng *rand.Rand, doc []string) []string
}

// referenceOf is m's per-token reference, false when it has none.
func referenceOf(m mechanisms.Mechanism, store *embeddings.Store, termFrequencies bool) (referencer, bool) {
	if g, ok := m.(gumbelParams); ok {
		return &GumbelReference{params: g, store: store}, true
	}
	return NewReference(m, store, termFrequencies)
}

// generators are the streams of the documents of one round of one path.
func generators(n int, name string, round int, path string) []*rand.Rand {
	gens := make([]*rand.Rand, n)
	for i := range gens {
		gens[i] = rngs.New(1, fmt.Sprintf("bench/mechanisms/%s/%s/round=%d/doc=%d", name, path, round, i))
	}
	return gens
}

// prefix returns the first documents of docs holding n words (the last cut short).
func prefix(docs [][]string, n int) [][]string {
	var out [][]string
	for _, d := range docs {
		if n <= 0 {
			break
		}
		d = d[:min(len(d), n)]
		out = append(out, d)
		n -= len(d)
	}
	return out
}

// distinctWords is the number of distinct words of docs.
func distinctWords(docs [][]string) int {
	seen := map[string]bool{}
	for _, d := range docs {
		for _, w := range d {
			seen[w] = true
		}
	}
	return len(seen)
}

// otherEpsilons describes the mechanisms built at another ε, for the header line: "" when none.
func otherEpsilons(epsilonFor map[string]float64) string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(epsilonFor)) {
		parts = append(parts, fmt.Sprintf("%s at %g", name, epsilonFor[name]))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func countWords(docs [][]string) int {
	n := 0
	for _, d := range docs {
		n += len(d)
	}
	return n
}
