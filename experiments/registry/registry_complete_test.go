package registry

import (
	"fmt"
	"maps"
	"math"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"dptext/embeddings"
)

// mechanismLacks names what a mechanism registry entry still lacks (empty when complete).
func mechanismLacks(e MechanismEntry) []string {
	var lacks []string
	if e.Version == "" {
		lacks = append(lacks, "Version (bump it whenever the output changes)")
	}
	if e.Description == "" {
		lacks = append(lacks, "Description (shown by dptext list)")
	}
	if e.Releases != ReleaseTokens && e.Releases != ReleaseTermFrequencies {
		lacks = append(lacks, "Releases (ReleaseTokens or ReleaseTermFrequencies)")
	}
	if !(e.Cost > 0) || math.IsInf(e.Cost, 0) {
		lacks = append(lacks, "Cost (a positive cost of one cell relative to none = 1, for --shard)")
	}
	if e.UsesEpsilon && !(e.Epsilons.Min > 0 && e.Epsilons.Max >= e.Epsilons.Min) {
		lacks = append(lacks, "Epsilons (the range of ε it can represent, as UsesEpsilon is set)")
	}
	if e.Spec == nil {
		lacks = append(lacks, "Spec (a MechanismSpec with Defaults and Build)")
	}
	return lacks
}

// scorerLacks names what a scorer registry entry still lacks.
func scorerLacks(e ScorerEntry) []string {
	var lacks []string
	if e.Version == "" {
		lacks = append(lacks, "Version (bump it whenever the output changes)")
	}
	if e.Description == "" {
		lacks = append(lacks, "Description (shown by dptext list)")
	}
	switch e.Task {
	case TaskAuthor, TaskTopic:
		if e.Classifier == nil || e.Metric != nil {
			lacks = append(lacks, "Classifier (a ScorerSpec[Options, learn.Classifier], and no Metric, for task "+e.Task+")")
		}
	case TaskUtility:
		if e.Metric == nil || e.Classifier != nil {
			lacks = append(lacks, "Metric (a ScorerSpec[Options, PairMetric], and no Classifier, for task utility)")
		}
	default:
		lacks = append(lacks, "Task (TaskAuthor, TaskTopic or TaskUtility)")
	}
	return lacks
}

// formatLacks names what a corpus format entry still lacks.
func formatLacks(f CorpusFormat) []string {
	var lacks []string
	if f.Name == "" {
		lacks = append(lacks, "Name (the value of corpus.format)")
	}
	if f.Description == "" {
		lacks = append(lacks, "Description (shown by dptext list)")
	}
	if f.Read == nil {
		lacks = append(lacks, "Read (the reader returning corpus documents)")
	}
	if f.Caption == nil {
		lacks = append(lacks, "Caption (names the corpus in tables; PathCaption for a corpus read from a path)")
	}
	return lacks
}

// TestRegistryEntriesComplete checks every registered mechanism, scorer and corpus format for
// the facts the rest of the code reads from its entry, naming what a new entry still lacks.
// The mutants (an empty entry of each kind, a zero Cost) show each check can fail.
func TestRegistryEntriesComplete(t *testing.T) {
	for name, e := range Mechanisms {
		if lacks := mechanismLacks(e); len(lacks) > 0 {
			t.Errorf("mechanism %q lacks in its Mechanisms entry: %s", name, strings.Join(lacks, "; "))
		}
	}
	for name, e := range Scorers {
		if lacks := scorerLacks(e); len(lacks) > 0 {
			t.Errorf("scorer %q lacks in its Scorers entry: %s", name, strings.Join(lacks, "; "))
		}
	}
	seen := map[string]bool{}
	for i, f := range CorpusFormats {
		if lacks := formatLacks(f); len(lacks) > 0 {
			t.Errorf("corpus format %d (%q) lacks in its CorpusFormats entry: %s", i, f.Name, strings.Join(lacks, "; "))
		}
		if seen[f.Name] {
			t.Errorf("corpus format %q is listed twice in CorpusFormats", f.Name)
		}
		seen[f.Name] = true
	}
	// Mutants: each check must fail on an entry missing what it checks.
	if len(mechanismLacks(MechanismEntry{})) != 5 || len(scorerLacks(ScorerEntry{})) != 3 || len(formatLacks(CorpusFormat{})) != 4 {
		t.Errorf("an empty entry should lack every fact: mechanism %q, scorer %q, format %q",
			mechanismLacks(MechanismEntry{}), scorerLacks(ScorerEntry{}), formatLacks(CorpusFormat{}))
	}
	noCost := Mechanisms["emd"]
	noCost.Cost = 0
	if lacks := mechanismLacks(noCost); len(lacks) != 1 || !strings.HasPrefix(lacks[0], "Cost") {
		t.Errorf("emd with Cost 0: lacks %q, want Cost alone", lacks)
	}
	noRange := Mechanisms["emd"]
	noRange.Epsilons.Min = 0
	if lacks := mechanismLacks(noRange); len(lacks) != 1 || !strings.HasPrefix(lacks[0], "Epsilons") {
		t.Errorf("emd with no ε range: lacks %q, want Epsilons alone", lacks)
	}
	wrongKind := Scorers["cosine"]
	wrongKind.Task = TaskAuthor
	if lacks := scorerLacks(wrongKind); len(lacks) != 1 || !strings.HasPrefix(lacks[0], "Classifier") {
		t.Errorf("cosine as an attacker: lacks %q, want Classifier alone", lacks)
	}
}

// TestBaselineIsTheIdentityInOrder pins the baseline role (the reference of the relative_*
// rows) to the registry: none with its defaults (order = "keep") is the baseline, none with
// order = "bag" and every other mechanism with its defaults are not.
func TestBaselineIsTheIdentityInOrder(t *testing.T) {
	for name, e := range Mechanisms {
		for _, values := range []string{"", `order = "bag"`} {
			if values != "" && name != "none" {
				continue
			}
			o, err := e.Decode(testParams(t, name, values))
			if err != nil {
				t.Fatalf("%s %v: %v", name, values, err)
			}
			want := name == "none" && values == ""
			if o.Baseline() != want {
				t.Errorf("mechanism %s with params %v: Baseline() = %v, want %v", name, values, o.Baseline(), want)
			}
		}
	}
}

// readmeComponentsLacks compares the "## Components" section of readme with the registry and
// says, per name, what to add or remove: a mechanism needs a row of the section's table (its
// first cell naming it in backquotes), an attacker, topic classifier or utility measure its
// name in backquotes in the sentence of its kind.
func readmeComponentsLacks(readme string) []string {
	i := strings.Index(readme, "\n## Components\n")
	if i < 0 {
		return []string{`docs/commands.md has no "## Components" section: add it, with the mechanism table and the sentences "Attackers:", "Topic classifiers:" and "Utility measures:"`}
	}
	section, _, _ := strings.Cut(readme[i+len("\n## Components\n"):], "\n## ")
	code := regexp.MustCompile("`([^`]+)`")
	var tableNames []string
	var prose strings.Builder
	for _, line := range strings.Split(section, "\n") {
		if first, ok := strings.CutPrefix(line, "| `"); ok {
			cell, _, _ := strings.Cut("`"+first, " |")
			for _, m := range code.FindAllStringSubmatch(cell, -1) {
				tableNames = append(tableNames, m[1])
			}
		} else if !strings.HasPrefix(line, "|") {
			prose.WriteString(line + " ")
		}
	}
	var lacks []string
	for _, name := range MechanismNames() {
		if !slices.Contains(tableNames, name) {
			lacks = append(lacks, fmt.Sprintf("mechanism %q has no row in the Components table of docs/commands.md: add \"| `%s` | what it does, with the paper and section | its guarantee |\"", name, name))
		}
	}
	for _, name := range tableNames {
		if _, ok := Mechanisms[name]; !ok {
			lacks = append(lacks, fmt.Sprintf("the Components table of docs/commands.md names %q, which is not in registry.Mechanisms: remove it or fix its spelling", name))
		}
	}
	kinds := map[string]string{TaskAuthor: "Attackers:", TaskTopic: "Topic classifiers:", TaskUtility: "Utility measures:"}
	nouns := map[string]string{TaskAuthor: "attacker", TaskTopic: "topic classifier", TaskUtility: "utility measure"}
	text := prose.String()
	for _, name := range slices.Sorted(maps.Keys(Scorers)) {
		task := Scorers[name].Task
		start := strings.Index(text, kinds[task])
		if start < 0 {
			lacks = append(lacks, fmt.Sprintf("the Components section of docs/commands.md has no sentence starting %q: add one naming %s %q in backquotes", kinds[task], nouns[task], name))
			continue
		}
		part := text[start:]
		for _, other := range kinds {
			if j := strings.Index(part[1:], other); j >= 0 {
				part = part[:j+1]
			}
		}
		if !strings.Contains(part, "`"+name+"`") {
			lacks = append(lacks, fmt.Sprintf("%s %q is not named in the Components sentence of docs/commands.md %q: add `%s` there, with a few words on what it does", nouns[task], name, kinds[task]+" …", name))
		}
	}
	return lacks
}

// TestREADMEComponentsMatchRegistry keeps the "Components" section of docs/commands.md (moved
// there from the README by issue 39) generated in
// effect: its mechanism table lists exactly the registered mechanisms, and every registered
// attacker, topic classifier and utility measure is named in the sentence of its kind. Each
// message says what to add or remove. The mutants of a README generated from the registry
// (registryREADME) — without the scrub row, without chrf in its sentence, with a row for an
// unregistered mechanism — show each check can fail.
func TestREADMEComponentsMatchRegistry(t *testing.T) {
	data, err := os.ReadFile("../../docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	for _, l := range readmeComponentsLacks(readme) {
		t.Error(l)
	}
	// Mutants of a README generated from the registry, which must itself pass.
	good := registryREADME()
	if lacks := readmeComponentsLacks(good); len(lacks) > 0 {
		t.Fatalf("the README generated from the registry fails: %q", lacks)
	}
	for _, m := range []struct {
		name, readme, want string
	}{{"no scrub row", strings.Replace(good, "| `scrub` | x | x |\n", "", 1), `mechanism "scrub" has no row`},
		{"chrf unnamed", strings.Replace(good, "`chrf`", "chrf", 1), `utility measure "chrf" is not named`},
		{"unregistered row", strings.Replace(good, "|---|\n", "|---|\n| `bogus` | x | x |\n", 1), `names "bogus", which is not in registry.Mechanisms`}} {
		if got := readmeComponentsLacks(m.readme); len(got) != 1 || !strings.Contains(got[0], m.want) {
			t.Errorf("mutant %s: messages %q, want one containing %q", m.name, got, m.want)
		}
	}
}

// registryREADME is the smallest README both README checks accept, generated from the
// registries: a Components table row per mechanism, a sentence per scorer kind, and the
// format lines of "Bring your own corpus and embeddings".
func registryREADME() string {
	var b strings.Builder
	b.WriteString("# dptext\n\n## Components\n\n| name | what | guarantee |\n|---|---|---|\n")
	for _, name := range MechanismNames() {
		fmt.Fprintf(&b, "| `%s` | x | x |\n", name)
	}
	for _, k := range []struct{ task, sentence string }{{TaskAuthor, "Attackers:"}, {TaskTopic, "Topic classifiers:"}, {TaskUtility, "Utility measures:"}} {
		b.WriteString("\n" + k.sentence)
		for _, name := range slices.Sorted(maps.Keys(Scorers)) {
			if Scorers[name].Task == k.task {
				fmt.Fprintf(&b, " `%s`", name)
			}
		}
		b.WriteString(".")
	}
	b.WriteString("\n\n## Bring your own corpus and embeddings\n\n```toml\n[corpus]\nformat = ")
	b.WriteString(strings.ReplaceAll(QuoteList(CorpusFormatNames()), " or ", ", "))
	b.WriteString("\n\n[embeddings]\nformat = ")
	b.WriteString(strings.ReplaceAll(QuoteList(embeddings.FormatNames()), " or ", ", "))
	b.WriteString("\n```\n")
	return b.String()
}

// readmeFormatsLacks compares the format lines of the [corpus] and [embeddings] tables in the
// "Bring your own corpus and embeddings" example of docs/corpora.md with CorpusFormats and
// embeddings.Formats (and "auto"), saying what to add or remove.
func readmeFormatsLacks(readme string) []string {
	const title = "## Bring your own corpus and embeddings"
	i := strings.Index(readme, title)
	if i < 0 {
		return []string{fmt.Sprintf("docs/corpora.md has no section %q: add it, with an example [corpus] and [embeddings] table whose format lines name every format", title)}
	}
	section := readme[i:]
	var corpusWant, embWant []string
	for _, f := range CorpusFormats {
		corpusWant = append(corpusWant, f.Name)
	}
	for _, f := range embeddings.Formats {
		embWant = append(embWant, f.Name)
	}
	embWant = append(embWant, "auto")
	quoted := regexp.MustCompile(`"([^"]+)"`)
	var lacks []string
	for _, c := range []struct {
		table, registry string
		want            []string
	}{{"[corpus]", "registry.CorpusFormats", corpusWant}, {"[embeddings]", "embeddings.Formats", embWant}} {
		_, rest, ok := strings.Cut(section, "\n"+c.table+"\nformat = ")
		if !ok {
			lacks = append(lacks, fmt.Sprintf("docs/corpora.md %q: no %s table with a format line: add one naming %s", title, c.table, QuoteList(c.want)))
			continue
		}
		line, _, _ := strings.Cut(rest, "\n")
		var got []string
		for _, m := range quoted.FindAllStringSubmatch(line, -1) {
			if !strings.Contains(m[1], " ") {
				got = append(got, m[1])
			}
		}
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				lacks = append(lacks, fmt.Sprintf("docs/corpora.md %q: the %s format line lacks %q: add it to the line's comment, and a bullet below the example saying what the format reads", title, c.table, w))
			}
		}
		for _, g := range got {
			if !slices.Contains(c.want, g) {
				lacks = append(lacks, fmt.Sprintf("docs/corpora.md %q: the %s format line names %q, which is not in %s: remove it or fix its spelling", title, c.table, g, c.registry))
			}
		}
	}
	return lacks
}

// TestREADMEFormatsMatchRegistry: the format lines of the "Bring your own corpus and
// embeddings" example (docs/corpora.md, moved there from the README by issue 39) name exactly the registered corpus formats (CorpusFormats) and
// embeddings formats (embeddings.Formats, and "auto"). The mutants of registryREADME — its corpus line
// without "pan", its embeddings line with an unregistered format — show both directions fail.
func TestREADMEFormatsMatchRegistry(t *testing.T) {
	data, err := os.ReadFile("../../docs/corpora.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	for _, l := range readmeFormatsLacks(readme) {
		t.Error(l)
	}
	good := registryREADME()
	if lacks := readmeFormatsLacks(good); len(lacks) > 0 {
		t.Fatalf("the README generated from the registry fails: %q", lacks)
	}
	for _, m := range []struct {
		name, readme, want string
	}{{"no pan", strings.Replace(good, `"pan"`, "", 1), `[corpus] format line lacks "pan"`},
		{"unregistered format", strings.Replace(good, `"auto"`, `"bogus", "auto"`, 1), `names "bogus", which is not in embeddings.Formats`}} {
		if got := readmeFormatsLacks(m.readme); len(got) != 1 || !strings.Contains(got[0], m.want) {
			t.Errorf("mutant %s: messages %q, want one containing %q", m.name, got, m.want)
		}
	}
}
