package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"dptext/experiments/registry"
	"dptext/experiments/runconfig"
)

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = runMain(context.Background(), args, &o, &e)
	return code, o.String(), e.String()
}

func TestHelpListsEveryCommand(t *testing.T) {
	code, out, _ := run(t, "help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for name := range commands {
		if !strings.Contains(out, "  "+name+" ") {
			t.Errorf("help lacks %q", name)
		}
	}
	if code, _, errOut := run(t, "frobnicate"); code != 2 || !strings.Contains(errOut, `unknown command "frobnicate"`) {
		t.Errorf("unknown command: exit %d, %q", code, errOut)
	}
}

func TestListShowsEveryRegisteredName(t *testing.T) {
	_, out, _ := run(t, "list")
	for _, n := range append(registry.MechanismNames(), registry.ScorerNames()...) {
		if !strings.Contains(out, " "+n+" ") {
			t.Errorf("list lacks %q", n)
		}
	}
}

func TestCheckReportsEveryBadConfigAndExitsNonZero(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.toml")
	bad := filepath.Join(dir, "bad.toml")
	cfg := "name = \"x\"\n[[sets]]\nname = \"a\"\nauthors = 2\n[[mechanisms]]\nname = \"none\"\n[[scorers]]\nname = \"sr-nn\"\n"
	os.WriteFile(good, []byte(cfg), 0o644)
	os.WriteFile(bad, []byte(strings.Replace(cfg, "authors", "authers", 1)), 0o644)
	code, out, errOut := run(t, "check", good, bad)
	if code != 1 || !strings.Contains(out, "good.toml: ok") || !strings.Contains(errOut, "bad.toml:4: sets.authers: unknown key") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if code, _, errOut := run(t, "run"); code != 2 || !strings.Contains(errOut, "usage: dptext run") {
		t.Errorf("run without config: exit %d, %q", code, errOut)
	}
	if code, _, errOut := run(t, "run", good, "--jobs", "0"); code != 2 || !strings.Contains(errOut, "--jobs 0") {
		t.Errorf("--jobs 0: exit %d, %q", code, errOut)
	}
}

// vectorsFile writes a small text-format embedding file for the words of a sample text.
func vectorsFile(t *testing.T, words []string) string {
	t.Helper()
	var b strings.Builder
	for i, w := range words {
		fmt.Fprintf(&b, "%s %d %d %d\n", w, i%3, (i/3)%3, i%2)
	}
	p := filepath.Join(t.TempDir(), "v.txt")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestObfuscateKeepsLayoutAndIsSeeded(t *testing.T) {
	vec := vectorsFile(t, strings.Fields("sailor harbour ship storm captain anchor wave rope deck mast"))
	in := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(in, []byte("The Captain saw the STORM, and the ship's mast broke!\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"obfuscate", "--mechanism", "emd", "--epsilon", "0.5", "--seed", "3", "--embeddings", vec, "--format", "text", in}
	code, out1, errOut := run(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	_, out2, _ := run(t, args...)
	if out1 != out2 {
		t.Fatalf("same seed, different output:\n%s\n%s", out1, out2)
	}
	if !strings.HasPrefix(out1, "The ") || !strings.Contains(out1, " saw the ") || !strings.HasSuffix(out1, "!\n") {
		t.Errorf("stopwords and punctuation not kept: %q", out1)
	}
	if !strings.Contains(errOut, "guarantee: positional (words released in place)") || !strings.Contains(errOut, "NOT private") {
		t.Errorf("no guarantee on stderr: %q", errOut)
	}
	// The guarantee texts name what is not protected: CusText's multiplier is e^{ε·D} with
	// cross-set pairs unprotected, SanText+'s non-sensitive words are released unprotected,
	// truncated-gumbel has no finite bound.
	for mech, want := range map[string]string{
		"custext":          "e^{0.5·D}",
		"santext+":         "non-sensitive words are released unchanged with probability 1 − p and are UNPROTECTED",
		"truncated-gumbel": "no finite bound",
	} {
		eps := "0.5"
		if mech == "truncated-gumbel" {
			eps = "1000"
		}
		args := []string{"obfuscate", "--mechanism", mech, "--epsilon", eps, "--seed", "3", "--embeddings", vec, "--format", "text", in}
		if mech == "custext" {
			args = append(args, "--param", "k=3") // 10 words: sets of 3
		}
		code, _, errOut := run(t, args...)
		if code != 0 || !strings.Contains(errOut, want) || (mech == "custext" && !strings.Contains(errOut, "NO protection")) {
			t.Errorf("%s: exit %d, want %q in %q", mech, code, want, errOut)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.txt")
	os.WriteFile(bad, []byte("bad \xff"), 0o644)
	if code, _, errOut := run(t, "obfuscate", "--epsilon", "1", "--embeddings", vec, bad); code != 1 || !strings.Contains(errOut, "bad.txt: not valid UTF-8") {
		t.Errorf("invalid UTF-8: exit %d, %q", code, errOut)
	}
	if code, _, errOut := run(t, "obfuscate", "--embeddings", vec, in); code != 1 || !strings.Contains(errOut, "needs --epsilon") {
		t.Errorf("missing ε: exit %d, %q", code, errOut)
	}
}

// TestObfuscateReleaseSeed: without --seed every run draws a fresh seed (two runs differ; the
// chance that 12 words at ε = 0.5 over 12 words come out equal twice is below 1e-6), with no
// warning; out-of-vocabulary words passed through are named; absurd ε are refused.
func TestObfuscateReleaseSeed(t *testing.T) {
	vec := vectorsFile(t, strings.Fields("sailor harbour ship storm captain anchor wave rope deck mast sea boat"))
	in := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(in, []byte("sailor harbour ship storm captain anchor wave rope deck mast sea boat snape\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"obfuscate", "--mechanism", "emd", "--epsilon", "0.5", "--embeddings", vec, "--format", "text", in}
	code, out1, errOut := run(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	_, out2, _ := run(t, args...)
	if out1 == out2 {
		t.Errorf("two runs without --seed gave the same output %q", out1)
	}
	if strings.Contains(errOut, "NOT private") {
		t.Errorf("warning without --seed: %q", errOut)
	}
	if !strings.Contains(errOut, "1 word(s) passed through UNPROTECTED") || !strings.Contains(errOut, ": snape;") {
		t.Errorf("no warning naming the out-of-vocabulary word: %q", errOut)
	}
	for _, c := range []struct{ args []string }{
		{[]string{"obfuscate", "--mechanism", "emd", "--epsilon", "1e-40", "--embeddings", vec, "--format", "text", in}},
		{[]string{"calibrate", "--epsilons", "1e-40", "--embeddings", vec, "--format", "text"}},
	} {
		code, _, errOut := run(t, c.args...)
		if code == 0 || !strings.Contains(errOut, "[0.001, 1e+12]") || !strings.Contains(errOut, "--epsilon") {
			t.Errorf("%v: exit %d, %q; want an error naming the flag and the range", c.args, code, errOut)
		}
	}
}

// `dptext list emd` shows the release order.
func TestListEMDShowsOrder(t *testing.T) {
	if code, out, _ := run(t, "list", "emd"); code != 0 || !strings.Contains(out, `order = "bag"`) {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// `dptext list NAME` prints a params table that a config accepts as it is.
func TestListNamePrintsDecodableDefaults(t *testing.T) {
	code, out, errOut := run(t, "list", "expmech")
	if code != 0 || !strings.Contains(out, `rating = "embedding"`) || !strings.Contains(out, "[mechanisms.params.language_model]") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	body := strings.SplitN(out, "\n", 2)[1]
	cfg := "name = \"x\"\n[[sets]]\nname = \"a\"\nauthors = 2\n[[mechanisms]]\nname = \"expmech\"\nepsilons = [1]\n[mechanisms.params]\n" +
		body + "[[scorers]]\nname = \"sr-nn\"\n"
	if _, err := runconfig.ParseConfig("x.toml", cfg); err != nil {
		t.Fatalf("the printed defaults do not decode: %v\n%s", err, cfg)
	}
	if code, _, errOut := run(t, "list", "nonesuch"); code != 1 || !strings.Contains(errOut, "unknown component") {
		t.Errorf("unknown name: exit %d, %q", code, errOut)
	}
}

// `dptext audit` exits 0 when no bound exceeds the claim and 1 naming the pair when one does.
func TestAuditExitCodes(t *testing.T) {
	vec := vectorsFile(t, strings.Fields("sailor harbour ship storm captain anchor wave rope deck mast sea boat"))
	base := []string{"audit", "--mechanism", "expmech", "--epsilon", "2", "--samples", "200", "--embeddings", vec, "--format", "text"}
	if code, out, errOut := run(t, base...); code != 0 || !strings.Contains(out, "audited ε lower confidence bound") {
		t.Fatalf("own claim: exit %d\n%s%s", code, out, errOut)
	}
	code, _, errOut := run(t, append(base, "--claim", "0.01")...)
	if code != 1 || !strings.Contains(errOut, "exceed the claim ε = 0.01") || !strings.Contains(errOut, "] vs [") {
		t.Errorf("claim 0.01: exit %d, %q", code, errOut)
	}
	if code, _, errOut := run(t, "audit", "--mechanism", "emd", "--epsilon", "1e-9", "--embeddings", vec, "--format", "text"); code != 1 || !strings.Contains(errOut, "[0.001, 1e+12]") {
		t.Errorf("ε = 1e-9: exit %d, %q", code, errOut)
	}
	// The cases: the identity at a finite claim, a noise-free CMP and EMD with noise 100
	// times too small fail at default settings; CMP passes its own claim, its noise tested.
	for _, c := range []struct {
		args []string
		want int
		text string
	}{
		{[]string{"--mechanism", "none", "--claim", "10"}, 1, "exact log-ratio +Inf"},
		{[]string{"--mechanism", "cmp", "--epsilon", "1000000", "--claim", "5"}, 1, "noise radius"},
		{[]string{"--mechanism", "emd", "--epsilon", "1000", "--claim", "10"}, 1, "noise radius"},
		{[]string{"--mechanism", "cmp", "--epsilon", "10"}, 0, ""},
	} {
		code, out, errOut := run(t, append(append([]string{"audit"}, c.args...), "--samples", "500", "--embeddings", vec, "--format", "text")...)
		if code != c.want || !strings.Contains(errOut, c.text) || !strings.Contains(out, "ceiling") {
			t.Errorf("%v: exit %d, want %d with %q\n%s%s", c.args, code, c.want, c.text, out, errOut)
		}
	}
	// A claim of ∞ is stated first, and nothing is audited (exit 0); --claim tests a number.
	tg := []string{"audit", "--mechanism", "truncated-gumbel", "--epsilon", "60", "--samples", "500", "--embeddings", vec, "--format", "text"}
	code, out, errOut := run(t, tg...)
	if first, _, _ := strings.Cut(out, "\n"); code != 0 || !strings.Contains(first, "no bound between different words") || strings.Contains(first, "60 per") {
		t.Errorf("truncated-gumbel: exit %d, first line %q\n%s", code, first, errOut)
	}
	if code, out, errOut := run(t, append(tg, "--claim", "1")...); code != 1 || !strings.Contains(out, "claim 1 per differing word") {
		t.Errorf("truncated-gumbel --claim 1: exit %d\n%s%s", code, out, errOut)
	}
}

// TestPrivacyNamesTheMechanismsWithATable: the mechanisms `dptext privacy` accepts come from
// the registry (MechanismEntry.PrivacyTable); one without a table is a usage error naming
// those with one.
func TestPrivacyNamesTheMechanismsWithATable(t *testing.T) {
	code, _, errOut := run(t, "privacy", "--mechanism", "emd")
	if code != 2 || !strings.Contains(errOut, "those that have: syntf") {
		t.Fatalf("privacy --mechanism emd: exit %d, stderr %q; want 2 naming syntf", code, errOut)
	}
}

// TestSynopsisIsGeneratedFromTheFlags: the usage line lists the positional arguments, then
// every flag in name order, a required one (its help says "(required)") without brackets,
// the value name from the help's `quoted` word or the flag's type; and `dptext run -h` prints
// the line generated from run's flag set.
func TestSynopsisIsGeneratedFromTheFlags(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.Bool("force", false, "overwrite")
	fs.String("out", "", "run `DIR` (required)")
	fs.Int("jobs", 2, "cells at once")
	if got, want := synopsis("CONFIG", fs), "CONFIG [--force] [--jobs INT] --out DIR"; got != want {
		t.Errorf("synopsis = %q, want %q", got, want)
	}
	if got := synopsis("CONFIG", nil); got != "CONFIG" {
		t.Errorf("synopsis without flags = %q, want CONFIG", got)
	}
	_, _, errOut := run(t, "run", "-h")
	if !strings.HasPrefix(errOut, "usage: dptext run CONFIG [--force] [--jobs INT] [--out DIR] [--shard K/N]") {
		t.Errorf("run -h: %q", errOut)
	}
}

// commandsTableLacks says what the "## Commands" table of a Markdown page (named file) lacks:
// a row for every command of the commands table, and none for a command that does not exist.
func commandsTableLacks(file, text string) []string {
	_, section, ok := strings.Cut(text, "\n## Commands\n")
	if !ok {
		return []string{file + " has no \"## Commands\" section"}
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var lacks []string
	rows := map[string]bool{}
	for _, line := range strings.Split(section, "\n") {
		if rest, ok := strings.CutPrefix(line, "| `dptext "); ok {
			name, _, _ := strings.Cut(strings.TrimSuffix(strings.Fields(rest)[0], "`"), "`")
			rows[name] = true
			if _, known := commands[name]; !known {
				lacks = append(lacks, fmt.Sprintf("%s Commands: a row for %q, which is no command", file, name))
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(commands)) {
		if !rows[name] {
			lacks = append(lacks, fmt.Sprintf("%s Commands: no row for `dptext %s`", file, name))
		}
	}
	return lacks
}

// TestREADMECommandsListEveryCommand: the Commands tables of README.md (one line each) and of
// docs/commands.md (the typical calls) have a row for every command of the commands table, and
// none for a command that does not exist. Mutants of docs/commands.md — without the audit
// row, with a row for an unknown command — each fail.
func TestREADMECommandsListEveryCommand(t *testing.T) {
	for _, file := range []string{"README.md", "docs/commands.md"} {
		data, err := os.ReadFile("../../" + file)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range commandsTableLacks(file, string(data)) {
			t.Error(l)
		}
		if file != "docs/commands.md" {
			continue
		}
		good := string(data)
		i := strings.Index(good, "\n| `dptext audit ")
		if i < 0 {
			t.Fatal("docs/commands.md has no row for `dptext audit`")
		}
		rowEnd := i + 1 + strings.Index(good[i+1:], "\n")
		for _, m := range []struct{ name, text, want string }{
			{"no audit row", good[:i] + good[rowEnd:], "no row for `dptext audit`"},
			{"unknown command", good[:i] + "\n| `dptext bogus X` | x |" + good[i:], `a row for "bogus", which is no command`},
		} {
			if got := commandsTableLacks(file, m.text); len(got) != 1 || !strings.Contains(got[0], m.want) {
				t.Errorf("mutant %s: messages %q, want one containing %q", m.name, got, m.want)
			}
		}
	}
}

// `dptext audit --all`: without --config every registry mechanism with an ε its default
// options build is audited and listed (exit 0 on a correct registry; erae and ae-dp, which need
// a model, are named as not audited); with --config its mechanisms at each ε, a mechanism that
// cannot be built failing the command (exit 1); one mechanism's flags are refused.
func TestAuditAll(t *testing.T) {
	vec := vectorsFile(t, strings.Fields("sailor harbour ship storm captain anchor wave rope deck mast sea boat"))
	code, out, errOut := run(t, "audit", "--all", "--samples", "200", "--embeddings", vec, "--format", "text")
	if code != 0 {
		t.Fatalf("registry: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"\nemd ", "\nvickrey ", "\nexpmech ", "\ntruncated-gumbel   1000 ", "not audited", "erae: model is empty"} {
		if !strings.Contains(out, want) {
			t.Errorf("registry: no %q in\n%s", want, out)
		}
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.toml")
	body := "name = \"t\"\nseed = 4\n[embeddings]\npath = " + strconv.Quote(vec) + "\nformat = \"text\"\n[[sets]]\nname = \"s\"\nauthors = 2\n" +
		"[[mechanisms]]\nname = \"none\"\n[[mechanisms]]\nname = \"expmech\"\nepsilons = [2, 3]\n[[scorers]]\nname = \"nb\"\n[audit]\nsamples = 200\nalpha = 0.01\npairs = 1\n"
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = run(t, "audit", "--all", "--config", cfg)
	if code != 0 || strings.Count(out, "\nexpmech ") != 2 || strings.Contains(out, "\nnone ") || !strings.Contains(out, "K = 200, family-wise α = 0.01 per audit, seed 4") {
		t.Errorf("config: exit %d\n%s%s", code, out, errOut)
	}
	body += "[[mechanisms]]\nname = \"erae\"\nepsilons = [1]\n"
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = run(t, "audit", "--all", "--config", cfg, "--samples", "100")
	if code != 1 || !strings.Contains(out, "K = 100") || !strings.Contains(out, "ERROR: erae") || !strings.Contains(errOut, "1 of 3 audits failed") {
		t.Errorf("config with an unbuildable erae: exit %d\n%s%s", code, out, errOut)
	}
	for _, args := range [][]string{{"--mechanism", "emd"}, {"--claim", "1"}, {"--config", cfg, "--top-k", "10"}} {
		if code, _, errOut := run(t, append([]string{"audit", "--all"}, args...)...); code != 2 || !strings.Contains(errOut, "not with") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
}
