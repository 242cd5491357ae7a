package main

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"unicode"
)

// maxREADMELines is the length a newcomer reads in five minutes (issue 39): what dptext is for,
// the two commands, Table 1, the map of configs and commands, and links to docs/.
const maxREADMELines = 200

// mdLink is an inline Markdown link or image: its target up to the closing parenthesis.
var mdLink = regexp.MustCompile(`\]\(([^()\s]+)\)`)

// docPages lists README.md and every docs/*.md of the repository rooted at root.
func docPages(root fs.FS) ([]string, error) {
	pages, err := fs.Glob(root, "docs/*.md")
	if err != nil {
		return nil, err
	}
	return append([]string{"README.md"}, pages...), nil
}

// outsideFences returns the lines of a Markdown text with those of ``` fences (and the
// fences) blanked, so that line i+1 of the text is element i.
func outsideFences(text string) []string {
	out := strings.Split(text, "\n")
	fenced := false
	for i, line := range out {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			out[i] = ""
		} else if fenced {
			out[i] = ""
		}
	}
	return out
}

// githubAnchor is the anchor GitHub gives a heading: lower case, every character that is not
// a letter, a digit, a space, '-' or '_' dropped, each space turned into '-'.
func githubAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the anchors of a Markdown text's headings, a repeated one numbered -1, -2, …
// as GitHub does.
func anchors(text string) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	for _, line := range outsideFences(text) {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimLeft(line, "#")
		if !strings.HasPrefix(title, " ") {
			continue
		}
		a := githubAnchor(title)
		if n := seen[a]; n > 0 {
			out[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// docLinkProblems checks every relative link of README.md and docs/*.md in root: its file
// exists (inside root), and its #anchor, if any, is a heading of the page it points to. Each
// problem names the page, the line and the link.
func docLinkProblems(root fs.FS) []string {
	pages, err := docPages(root)
	if err != nil {
		return []string{err.Error()}
	}
	var problems []string
	for _, page := range pages {
		data, err := fs.ReadFile(root, page)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		for i, line := range outsideFences(string(data)) {
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, anchor, _ := strings.Cut(target, "#")
				where := fmt.Sprintf("%s line %d: link %q", page, i+1, target)
				resolved := page
				if file != "" {
					resolved = path.Join(path.Dir(page), file)
					if !fs.ValidPath(resolved) {
						problems = append(problems, where+" points outside the repository")
						continue
					}
					if _, err := fs.Stat(root, resolved); err != nil {
						problems = append(problems, fmt.Sprintf("%s: no file %s", where, resolved))
						continue
					}
				}
				if anchor == "" {
					continue
				}
				if !strings.HasSuffix(resolved, ".md") {
					problems = append(problems, fmt.Sprintf("%s: an anchor into %s, which is no Markdown page", where, resolved))
					continue
				}
				text, err := fs.ReadFile(root, resolved)
				if err != nil {
					problems = append(problems, fmt.Sprintf("%s: %v", where, err))
					continue
				}
				if !anchors(string(text))[anchor] {
					problems = append(problems, fmt.Sprintf("%s: %s has no heading with anchor #%s", where, resolved, anchor))
				}
			}
		}
	}
	return problems
}

// docIndexProblems: README.md is at most maxREADMELines lines, links every docs/*.md page,
// names every configs/*.toml in its "## The configs" section, and every page starts with a
// "# " title.
func docIndexProblems(root fs.FS) []string {
	pages, err := docPages(root)
	if err != nil {
		return []string{err.Error()}
	}
	readme, err := fs.ReadFile(root, "README.md")
	if err != nil {
		return []string{err.Error()}
	}
	var problems []string
	if n := strings.Count(string(readme), "\n"); n > maxREADMELines {
		problems = append(problems, fmt.Sprintf("README.md has %d lines, more than %d: move the details into a page of docs/ and link it", n, maxREADMELines))
	}
	configs, err := fs.Glob(root, "configs/*.toml")
	if err != nil {
		return []string{err.Error()}
	}
	_, configMap, _ := strings.Cut(string(readme), "\n## The configs\n")
	configMap, _, _ = strings.Cut(configMap, "\n## ")
	for _, c := range configs {
		if !strings.Contains(configMap, "| `"+c+"` |") {
			problems = append(problems, fmt.Sprintf("README.md's \"## The configs\" table has no row for %s: add \"| `%s` | what it runs |\"", c, c))
		}
	}
	var linked []string
	for _, m := range mdLink.FindAllStringSubmatch(string(readme), -1) {
		file, _, _ := strings.Cut(m[1], "#")
		linked = append(linked, file)
	}
	for _, page := range pages[1:] {
		if !slices.Contains(linked, page) {
			problems = append(problems, fmt.Sprintf("README.md does not link %s: add it to the Documentation table with one line on what it covers", page))
		}
		text, err := fs.ReadFile(root, page)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		if !strings.HasPrefix(string(text), "# ") {
			problems = append(problems, fmt.Sprintf("%s does not start with a \"# \" title", page))
		}
	}
	return problems
}

// TestDocsLinksResolve: every relative link of README.md and docs/*.md points to a file of the
// repository and, with #anchor, to a heading of that page (GitHub's anchor rule). The mutants
// of a small repository that passes — a link to a missing page, an anchor no heading has, an
// anchor that keeps the heading's colon, a link out of the repository — each fail.
func TestDocsLinksResolve(t *testing.T) {
	for _, p := range docLinkProblems(os.DirFS("../..")) {
		t.Error(p)
	}
	good := fstest.MapFS{
		"README.md": {Data: []byte("# x\n\n[a](docs/a.md) [b](docs/a.md#empirical-ε-the-distinguishing-game) [c](#x) [d](go.mod) [e](https://example.org/#nothing)\n\n```\n[f](nowhere.md)\n```\n")},
		"docs/a.md": {Data: []byte("# A\n\n## Empirical ε: the distinguishing game\n\n[r](../README.md#x) [s](#a) [t](b.md#notes-1)\n")},
		"docs/b.md": {Data: []byte("# B\n\n## Notes\n\n## Notes\n")},
		"go.mod":    {Data: []byte("module x\n")},
	}
	if got := docLinkProblems(good); len(got) > 0 {
		t.Fatalf("the good repository fails: %q", got)
	}
	for _, m := range []struct{ name, file, from, to, want string }{
		{"missing page", "README.md", "[a](docs/a.md)", "[a](docs/c.md)", "no file docs/c.md"},
		{"unknown anchor", "docs/a.md", "[s](#a)", "[s](#b)", "docs/a.md has no heading with anchor #b"},
		{"colon kept", "README.md", "#empirical-ε-the", "#empirical-ε:-the", "no heading with anchor #empirical-ε:-the"},
		{"second heading unnumbered", "docs/a.md", "#notes-1", "#notes-2", "docs/b.md has no heading with anchor #notes-2"},
		{"outside", "docs/a.md", "../README.md#x", "../../README.md", "points outside the repository"},
	} {
		text := string(good[m.file].Data)
		if !strings.Contains(text, m.from) {
			t.Fatalf("mutant %s: %s has no %q", m.name, m.file, m.from)
		}
		if got := docLinkProblems(with(good, m.file, strings.Replace(text, m.from, m.to, 1))); len(got) != 1 || !strings.Contains(got[0], m.want) {
			t.Errorf("mutant %s: problems %q, want one containing %q", m.name, got, m.want)
		}
	}
}

// TestREADMEIsShortAndLinksEveryDocsPage: README.md stays at most maxREADMELines lines and
// links every page of docs/, each of which has a title, and has a row for every configs/*.toml.
// Mutants: a README one line too long, a docs page the README does not link, a page without a
// title, a config without a row.
func TestREADMEIsShortAndLinksEveryDocsPage(t *testing.T) {
	for _, p := range docIndexProblems(os.DirFS("../..")) {
		t.Error(p)
	}
	readme := "# x\n\n[a](docs/a.md#a)\n\n## The configs\n\n| `configs/t.toml` | x |\n" + strings.Repeat("\n", maxREADMELines-7)
	good := fstest.MapFS{"README.md": {Data: []byte(readme)}, "docs/a.md": {Data: []byte("# A\n")}, "configs/t.toml": {}}
	if got := docIndexProblems(good); len(got) > 0 {
		t.Fatalf("the good repository fails: %q", got)
	}
	for _, m := range []struct {
		name string
		fs   fstest.MapFS
		want string
	}{
		{"too long", with(good, "README.md", readme+"\n"), fmt.Sprintf("README.md has %d lines", maxREADMELines+1)},
		{"page not linked", with(good, "docs/b.md", "# B\n"), "does not link docs/b.md"},
		{"no title", with(good, "docs/a.md", "A\n"), `docs/a.md does not start with a "# " title`},
		{"config without a row", with(good, "configs/u.toml", ""), "has no row for configs/u.toml"},
	} {
		if got := docIndexProblems(m.fs); len(got) != 1 || !strings.Contains(got[0], m.want) {
			t.Errorf("mutant %s: problems %q, want one containing %q", m.name, got, m.want)
		}
	}
}

// with returns a copy of m in which file holds text.
func with(m fstest.MapFS, file, text string) fstest.MapFS {
	out := fstest.MapFS{}
	for k, v := range m {
		out[k] = v
	}
	out[file] = &fstest.MapFile{Data: []byte(text)}
	return out
}
