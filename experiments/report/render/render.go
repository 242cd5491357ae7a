package render

import (
	"bytes"
	"dptext/experiments/report"
	"encoding/csv"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// grid is a table of printed cells; the first two columns are mechanism and ε.
type grid struct {
	header []string
	rows   [][]string
}

func (t tables) mainGrid() grid {
	g := grid{header: []string{"mechanism", "ε"}}
	for _, set := range t.sets {
		for _, col := range t.layout.Columns {
			g.header = append(g.header, set+": "+col.Label)
		}
	}
	for i, r := range t.rows {
		line := []string{r.Mechanism, epsilonText(r.Epsilon)}
		for _, e := range t.main[i] {
			line = append(line, formatEntry(e))
		}
		g.rows = append(g.rows, line)
	}
	line := []string{"chance", "–"}
	for _, e := range t.chance {
		line = append(line, formatEntry(e))
	}
	g.rows = append(g.rows, line)
	return g
}

func (t tables) privacyGrid() grid {
	g := grid{header: []string{"mechanism", "ε"}}
	for _, c := range t.privacy.columns {
		g.header = append(g.header, c.Set+": "+metricLabel(c.Metric))
	}
	for i, r := range t.privacy.rows {
		line := []string{r.Mechanism, epsilonText(r.Epsilon)}
		for _, e := range t.privacy.cells[i] {
			line = append(line, formatEntry(e))
		}
		g.rows = append(g.rows, line)
	}
	return g
}

// markdown renders t as table.md: a heading, the main table with its caption, and the privacy
// and diagnostics table when the run has such rows.
func (t tables) markdown(caption Caption) []byte {
	var b bytes.Buffer
	if caption.Title != "" {
		fmt.Fprintf(&b, "# %s\n\n", caption.Title)
	}
	fmt.Fprintf(&b, "**Table 1.** %s\n\n", t.mainCaption(caption))
	writeMarkdownGrid(&b, t.mainGrid())
	if len(t.privacy.columns) > 0 {
		fmt.Fprintf(&b, "\n**Table 2.** %s\n\n", t.privacyCaption())
		writeMarkdownGrid(&b, t.privacyGrid())
	}
	return b.Bytes()
}

func (t tables) mainCaption(caption Caption) string {
	var parts []string
	metric := t.layout.Metric
	parts = append(parts, fmt.Sprintf("Metric %q per set and column, mean over %s%s.", metric,
		repeatsText(t.summary.MaxRepeats()), t.intervalText()))
	var cols []string
	for _, c := range t.layout.Columns {
		s := fmt.Sprintf("%s = %s (%s", c.Label, c.Scorer, c.Task)
		if c.Metric != "" && c.Metric != metric {
			s += ", metric " + strconv.Quote(c.Metric)
		}
		cols = append(cols, s+")")
	}
	parts = append(parts, "Columns: "+strings.Join(cols, ", ")+".")
	if len(t.layout.References) > 0 {
		parts = append(parts, t.referenceText())
	}
	parts = append(parts, "Chance: a uniform guess, 1/authors (author columns) or 1/topics (topic columns), times the evaluation documents for counts.")
	if s := t.openSetText(); s != "" {
		parts = append(parts, s)
	}
	if s := t.asWrittenText(); s != "" {
		parts = append(parts, s)
	}
	if t.hasNone() {
		parts = append(parts, chanceText(t.atChance))
	}
	for _, set := range t.sets {
		parts = append(parts, t.setText(set))
	}
	parts = append(parts, caption.Notes...)
	return strings.Join(parts, " ")
}

// referenceText says where the published numbers are printed and where they are left out
// because the published set had another number of authors than ours.
func (t tables) referenceText() string {
	var left []string
	seen := map[string]bool{}
	for _, r := range t.layout.References {
		authors, ok := t.summary.Fact(r.Set, "authors")
		if r.Authors == 0 || (ok && float64(r.Authors) == authors) {
			continue
		}
		key := fmt.Sprintf("%s/%d", r.Set, r.Authors)
		if seen[key] {
			continue
		}
		seen[key] = true
		ours := "an unknown number of"
		if ok {
			ours = formatValue("authors", authors)
		}
		left = append(left, fmt.Sprintf("set %s (%s authors here, %d in the publication)", r.Set, ours, r.Authors))
	}
	if len(left) == 0 {
		return "Published numbers in parentheses."
	}
	return "Published numbers in parentheses, only beside sets of as many authors as the published set; left out for " + strings.Join(left, ", ") + ", whose numbers do not compare."
}

// hasNone reports whether the table has the mechanism-none row the at-chance check reads.
func (t tables) hasNone() bool {
	for _, r := range t.rows {
		if r.Mechanism == "none" && !r.Epsilon.Set() {
			return true
		}
	}
	return false
}

func repeatsText(n int) string {
	if n == 1 {
		return "1 repeat"
	}
	return fmt.Sprintf("%d repeats", n)
}

func (t tables) intervalText() string {
	level := strconv.FormatFloat(100*t.summary.Level, 'g', -1, 64) + " %"
	if t.layout.Interval == "wilson" {
		return fmt.Sprintf(" with the %s Wilson score interval of the proportion pooled over repeats (counts: scaled by the mean total)", level)
	}
	return fmt.Sprintf(" ± half-width of the %s Student t interval of the mean over repeats (none for one repeat)", level)
}

// setText describes a set from its facts, e.g. "Set 20: 20 authors, 2 topics, N = 420 words."
func (t tables) setText(set string) string {
	facts := []struct{ metric, format string }{
		{"authors", "%s authors"}, {"topics", "%s topics"}, {"n_words", "N = %s words"},
		{"eval_docs", "%s evaluation documents"}, {"topic_train_docs", "%s topic training documents"},
		{"topic_validation_accuracy", "topic validation accuracy %s"},
	}
	var parts []string
	for _, f := range facts {
		if v, ok := t.summary.Fact(set, f.metric); ok {
			text := fmt.Sprintf(f.format, formatValue(f.metric, v))
			if v == 1 { // "1 topic", not "1 topics"
				text = strings.Replace(strings.Replace(text, "documents", "document", 1), "authors", "author", 1)
				text = strings.Replace(text, "topics", "topic", 1)
			}
			parts = append(parts, text)
		}
	}
	if len(parts) == 0 {
		return fmt.Sprintf("Set %s.", set)
	}
	return fmt.Sprintf("Set %s: %s.", set, strings.Join(parts, ", "))
}

func (t tables) privacyCaption() string {
	level := strconv.FormatFloat(100*t.summary.Level, 'g', -1, 64) + " %"
	descriptions := map[string]string{
		"epsilon_doc":                   "per-document ε (ε·N for emd, ε·l for expmech, the tightest bound for syntf)",
		"emd_mean":                      "mean Earth Mover's distance of the evaluation pairs",
		"log_multiplier_mean":           "mean log-multiplier bound ε·D between two evaluation snippets, over the pairs whose bound is finite only (D = N·E, E the Earth Mover's distance of the bags, for emd with order bag; D = Σᵢ d(xᵢ, x′ᵢ) for order keep)",
		"log_multiplier_infinite_share": "share of evaluation pairs with no finite bound (different out-of-vocabulary words passed through unchanged, or, with oov = drop, different numbers of them dropped: the released lengths differ; for custext, words of different output sets at a position, or a changed stopword under custext+; for santext+, a changed non-sensitive word, released unprotected; for truncated-gumbel, any changed word)",
		"eps_n":                         "SynTF's basic bound",
		"eps_ln_eta_n":                  "SynTF's improved bound",
		"ell_n":                         "SynTF's tight bound",
		"audited_eps_lcb":               "lower confidence bound on the privacy loss per claim unit measured by dptext audit from the mechanism's own outputs (per word for token samplers, per unit of word distance for metric mechanisms such as emd): compare it with the nominal ε, never with ε_doc; a value below ε means the mechanism was not shown to lose more than it claims, not that it loses exactly that",
		"audited_eps_ceiling":           "the largest value the audit's tests could have shown per claim unit at their sample size (∞ where a test is exact): an audited ε close to it says nothing about the mechanism, and a claimed ε above it could not have been refuted",
		"unchanged_share":               "share of words left unchanged",
		"mean_cosine":                   "mean cosine of input and output word vectors",
		"original_mass":                 "mean probability the trained generator (erae, ae-dp) gives the original word, before the exponential mechanism",
		"top5_similarity":               "mean plain cosine (configured vectors, the paper's Eq. 9) of the trained generator's 5 most probable words to the original word, over words in its vocabulary; unrelated words score what all vectors share, not 0",
		"top5_similarity_centered":      "the same with the vocabulary's mean vector subtracted first: about 0 for unrelated words",
		"released_top5_share":           "share of positions whose released word is one of the trained generator's 5 most probable words there",
		"oov_tokens":                    "tokens outside the mechanism's vocabulary (for erae and ae-dp, the model's)",
	}
	var parts []string
	seen := map[string]bool{}
	for _, c := range t.privacy.columns {
		d, ok := descriptions[c.Metric]
		if !ok {
			d, ok = distinguishDescription(c.Metric)
		}
		if ok && !seen[c.Metric] {
			seen[c.Metric] = true
			parts = append(parts, metricLabel(c.Metric)+": "+d)
		}
	}
	text := fmt.Sprintf("Privacy guarantees (scorer %q) and mechanism diagnostics (scorer %q) per set, mean over repeats ± half-width of the %s Student t interval.",
		report.PrivacyScorer, report.MechanismScorer, level)
	if len(parts) > 0 {
		text += " " + strings.Join(parts, "; ") + "."
	}
	return text
}

func writeMarkdownGrid(b *bytes.Buffer, g grid) {
	g = escapeGrid(g)
	widths := make([]int, len(g.header))
	for i, h := range g.header {
		widths[i] = utf8.RuneCountInString(h)
	}
	for _, r := range g.rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	line := func(cells []string) {
		b.WriteString("|")
		for i, c := range cells {
			fmt.Fprintf(b, " %s%s |", c, strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)))
		}
		b.WriteString("\n")
	}
	line(g.header)
	b.WriteString("|")
	for i, w := range widths {
		if i < 2 {
			fmt.Fprintf(b, " %s |", strings.Repeat("-", w))
		} else {
			fmt.Fprintf(b, " %s: |", strings.Repeat("-", w-1))
		}
	}
	b.WriteString("\n")
	for _, r := range g.rows {
		line(r)
	}
}

// csvHeader is the header of table.csv: one line per printed cell.
var csvHeader = []string{"table", "set", "mechanism", "epsilon", "label", "scorer", "metric", "n", "mean", "sd", "low", "high", "interval", "reference"}

// csv renders every printed cell of t machine-readably, numbers at full precision and empty
// when absent.
func (t tables) csv() ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.Write(csvHeader); err != nil {
		return nil, err
	}
	var all []entry
	for _, line := range t.main {
		all = append(all, line...)
	}
	all = append(all, t.chance...)
	for _, line := range t.privacy.cells {
		all = append(all, line...)
	}
	num := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	for _, e := range all {
		ref := ""
		if e.HasReference {
			ref = num(e.Reference)
		}
		n := ""
		if e.Present && e.Table != "chance" {
			n = strconv.Itoa(e.N)
		}
		if err := w.Write([]string{e.Table, e.Set, e.Mechanism, e.Epsilon.String(), e.Label, e.Scorer, e.Metric,
			n, num(e.Mean), num(e.SD), num(e.Low), num(e.High), e.Interval, ref}); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return b.Bytes(), w.Error()
}

// tex renders the main table as a LaTeX tabular (booktabs), one column group per set.
func (t tables) tex(caption Caption) []byte {
	var b bytes.Buffer
	ncol := len(t.layout.Columns)
	fmt.Fprintf(&b, "%% %s\n", texEscape(t.mainCaption(caption)))
	fmt.Fprintf(&b, "\\begin{tabular}{ll%s}\n\\toprule\n", strings.Repeat("r", ncol*len(t.sets)))
	b.WriteString(" & ")
	for _, set := range t.sets {
		fmt.Fprintf(&b, " & \\multicolumn{%d}{c}{%s}", ncol, texEscape(set))
	}
	b.WriteString(" \\\\\n")
	for i := range t.sets {
		fmt.Fprintf(&b, "\\cmidrule(lr){%d-%d}", 3+i*ncol, 2+(i+1)*ncol)
	}
	b.WriteString("\n")
	g := t.mainGrid()
	header := []string{"mechanism", "$\\varepsilon$"}
	for range t.sets {
		for _, c := range t.layout.Columns {
			header = append(header, texEscape(c.Label))
		}
	}
	fmt.Fprintf(&b, "%s \\\\\n\\midrule\n", strings.Join(header, " & "))
	for i, r := range g.rows {
		if i == len(g.rows)-1 {
			b.WriteString("\\midrule\n")
		}
		cells := make([]string, len(r))
		for j, c := range r {
			cells[j] = texEscape(c)
		}
		fmt.Fprintf(&b, "%s \\\\\n", strings.Join(cells, " & "))
	}
	b.WriteString("\\bottomrule\n\\end{tabular}\n")
	return b.Bytes()
}

// texEscape escapes LaTeX specials and writes the few non-ASCII symbols the tables use as math.
func texEscape(s string) string {
	r := strings.NewReplacer(`\`, `\textbackslash{}`, "&", `\&`, "%", `\%`, "$", `\$`, "#", `\#`, "_", `\_`,
		"{", `\{`, "}", `\}`, "~", `\textasciitilde{}`, "^", `\textasciicircum{}`,
		"±", `$\pm$`, "–", `--`, "ε", `$\varepsilon$`, "·", `$\cdot$`, "ℓ", `$\ell$`, "η", `$\eta$`)
	return r.Replace(s)
}
