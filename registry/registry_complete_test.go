package registry

import (
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
		lacks = append(lacks, "Caption (names the corpus in tables; pathCaption for a path)")
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

// TestREADMEComponentsMatchRegistry keeps the README's "Components" section generated in
// effect: its mechanism table lists exactly the registered mechanisms, and every registered
// attacker, topic classifier and utility measure is named in the sentence of its kind.
func TestREADMEComponentsMatchRegistry(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section, ok := strings.CutPrefix(string(data)[strings.Index(string(data), "\n## Components\n")+1:], "## Components\n")
	if !ok {
		t.Fatal("README.md has no \"## Components\" section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
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
	slices.Sort(tableNames)
	if want := MechanismNames(); !slices.Equal(tableNames, want) {
		t.Errorf("README Components: mechanism table lists %q, the registry %q", tableNames, want)
	}
	kinds := map[string]string{TaskAuthor: "Attackers:", TaskTopic: "Topic classifiers:", TaskUtility: "Utility measures:"}
	text := prose.String()
	for name, e := range Scorers {
		start := strings.Index(text, kinds[e.Task])
		if start < 0 {
			t.Fatalf("README Components: no sentence %q", kinds[e.Task])
		}
		part := text[start:]
		for _, other := range kinds {
			if i := strings.Index(part[1:], other); i >= 0 {
				part = part[:i+1]
			}
		}
		if !strings.Contains(part, "`"+name+"`") {
			t.Errorf("README Components: %s %q is not named after %q", ScorerKind(e.Task), name, kinds[e.Task])
		}
	}
}

// TestREADMEFormatsMatchRegistry: the format lines of the README's "Bring your own corpus and
// embeddings" example name exactly the registered corpus formats (CorpusFormats) and
// embeddings formats (embeddings.Formats, and "auto").
func TestREADMEFormatsMatchRegistry(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var corpusWant, embWant []string
	for _, f := range CorpusFormats {
		corpusWant = append(corpusWant, f.Name)
	}
	for _, f := range embeddings.Formats {
		embWant = append(embWant, f.Name)
	}
	embWant = append(embWant, "auto")
	quoted := regexp.MustCompile(`"([^"]+)"`)
	section := string(data)[strings.Index(string(data), "## Bring your own corpus and embeddings"):]
	for _, c := range []struct {
		table string
		want  []string
	}{{"[corpus]", corpusWant}, {"[embeddings]", embWant}} {
		_, rest, ok := strings.Cut(section, "\n"+c.table+"\nformat = ")
		if !ok {
			t.Fatalf("README: no %s table with a format line in \"Bring your own corpus and embeddings\"", c.table)
		}
		line, _, _ := strings.Cut(rest, "\n")
		var got []string
		for _, m := range quoted.FindAllStringSubmatch(line, -1) {
			if !strings.Contains(m[1], " ") {
				got = append(got, m[1])
			}
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(c.want))
		if !slices.Equal(got, want) {
			t.Errorf("README %s format line names %q; the registry has %q", c.table, got, want)
		}
	}
}
