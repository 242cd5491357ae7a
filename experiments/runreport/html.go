package runreport

import (
	"errors"
	"fmt"
	"html"
	"io/fs"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"dptext/experiments/report"
	"dptext/experiments/report/render"
	"dptext/experiments/runconfig"
	"dptext/experiments/rundir"
	"dptext/internal/filehash"
)

// HTMLFile is the one page of a run: its config, tables, verdicts, figures and provenance.
const HTMLFile = "report.html"

// htmlSections are the ids and headings of report.html's sections, in order; a section the run
// has nothing for (no verdict.md, no figure) says so rather than being left out.
var htmlSections = []struct{ id, heading string }{
	{"config", "Config"},
	{"figures", "Figures"},
	{"verdict", "Verdicts (verdict.md)"},
	{"tables", "Main table"},
	{"privacy", "Privacy and diagnostics"},
	{"provenance", "Provenance"},
}

// WriteHTML writes report.html into the run folder dir: the config's name, description and text,
// the main table and the privacy table (from rows, as table.md), verdict.md as found in the
// folder (its headings, paragraphs and tables), every PNG figure among outputs (linked
// relatively, each with its PDF), and the manifest's provenance: revision, Go version, inputs
// with their SHA-256, component versions, start and end, time per phase and the files of the
// run. The page needs no network and no JavaScript.
func WriteHTML(dir string, cfg *runconfig.Config, facts RunFacts, man *rundir.Manifest, rows []report.Row, outputs []string) error {
	main, privacy, err := render.HTMLTables(rows, layoutOf(cfg), caption(cfg, facts, filepath.Base(dir)))
	if err != nil {
		return err
	}
	verdict, err := verdictHTML(dir)
	if err != nil {
		return err
	}
	var b strings.Builder
	esc := html.EscapeString
	title := cfg.Name + " — run " + filepath.Base(dir)
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n<h1>%s</h1>\n<nav><ul>", esc(title), pageStyle, esc(title))
	for _, s := range htmlSections {
		fmt.Fprintf(&b, "<li><a href=\"#%s\">%s</a></li>", s.id, esc(s.heading))
	}
	b.WriteString("</ul></nav>\n")
	section := func(i int, body string) {
		s := htmlSections[i]
		fmt.Fprintf(&b, "<section id=\"%s\">\n<h2>%s</h2>\n%s</section>\n", s.id, esc(s.heading), body)
	}
	var c strings.Builder
	fmt.Fprintf(&c, "<dl><dt>name</dt><dd>%s</dd><dt>description</dt><dd>%s</dd><dt>config file</dt><dd><code>%s</code> (sha256 <code>%s</code>)</dd><dt>seed, repeats</dt><dd>%d, %d</dd></dl>\n",
		esc(cfg.Name), esc(orNone(strings.TrimSpace(cfg.Description))), esc(man.ConfigPath), esc(man.ConfigHash), man.Seed, man.Repeats)
	fmt.Fprintf(&c, "<details><summary>config text</summary><pre>%s</pre></details>\n", esc(man.Config))
	section(0, c.String())
	section(1, orParagraph(figuresHTML(outputs), "This run wrote no figure."))
	section(2, orParagraph(verdict, "This run has no verdict.md (its config has no [verdict] table)."))
	section(3, main)
	section(4, orParagraph(privacy, "This run has no privacy or diagnostic rows."))
	section(5, provenanceHTML(man, outputs))
	b.WriteString("</body>\n</html>\n")
	return rundir.WriteFileAtomic(filepath.Join(dir, HTMLFile), []byte(b.String()))
}

// layoutOf is the config's [report] layout with the utilities of its [verdict].
func layoutOf(cfg *runconfig.Config) render.Layout {
	layout := cfg.Report
	if cfg.Verdict != nil {
		layout.Utilities = cfg.Verdict.Utilities
	}
	return layout
}

const pageStyle = `
body{font-family:sans-serif;max-width:1400px;margin:1em auto;padding:0 1em;color:#111;line-height:1.4}
nav ul{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:1em}
section{border-top:1px solid #ccc;margin-top:1.5em}
table{border-collapse:collapse;font-size:0.85em;margin:0.8em 0}
caption{caption-side:top;text-align:left;font-size:0.95em;padding-bottom:0.4em}
p.caption{font-size:0.9em;max-width:70em}
th,td{border:1px solid #ccc;padding:0.15em 0.4em;white-space:nowrap}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.scroll{overflow-x:auto}
ul.figlist{columns:3;font-size:0.85em}
figure{margin:1em 0}
figure img{max-width:100%;height:auto;border:1px solid #eee}
dt{font-weight:bold}
pre{white-space:pre-wrap;font-size:0.8em;background:#f6f6f6;padding:0.5em}
`

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func orParagraph(body, empty string) string {
	if body == "" {
		return "<p>" + html.EscapeString(empty) + "</p>\n"
	}
	return body
}

// figureOrder puts the frontier on the empirical axis first, then the other frontiers, the
// metrics against ε, and the calibrations.
func figureOrder(name string) int {
	switch {
	case strings.HasPrefix(name, "frontier-empirical-"):
		return 0
	case strings.HasPrefix(name, "frontier-"):
		return 1
	case strings.HasPrefix(name, "distinguish-"):
		return 3
	}
	return 2
}

// figureDistance orders the figures of the distinguishing game by their distance: k1, k5, k25,
// then whole documents ("doc"); other figures are 0.
func figureDistance(name string) int {
	for _, prefix := range []string{"frontier-empirical-", "distinguish-"} {
		if rest, ok := strings.CutPrefix(name, prefix); ok {
			k, _, _ := strings.Cut(rest, "-")
			if n, err := strconv.Atoi(strings.TrimPrefix(k, "k")); err == nil && strings.HasPrefix(k, "k") {
				return n
			}
			return 1 << 30
		}
	}
	return 0
}

// figuresHTML shows every PNG of outputs, linked to its PDF when that is an output too.
func figuresHTML(outputs []string) string {
	var pngs []string
	for _, o := range outputs {
		if strings.HasSuffix(o, ".png") && !strings.Contains(o, "/") {
			pngs = append(pngs, o)
		}
	}
	slices.SortStableFunc(pngs, func(a, b string) int {
		if d := figureOrder(a) - figureOrder(b); d != 0 {
			return d
		}
		if d := figureDistance(a) - figureDistance(b); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	var b strings.Builder
	b.WriteString("<ul class=\"figlist\">")
	for _, p := range pngs {
		fmt.Fprintf(&b, "<li><a href=\"#%s\">%s</a></li>", html.EscapeString(p), html.EscapeString(strings.TrimSuffix(p, ".png")))
	}
	b.WriteString("</ul>\n")
	for _, p := range pngs {
		name := html.EscapeString(p)
		pdf := strings.TrimSuffix(p, ".png") + ".pdf"
		link := ""
		if slices.Contains(outputs, pdf) {
			link = fmt.Sprintf(" (<a href=\"%s\">PDF</a>)", html.EscapeString(pdf))
		}
		fmt.Fprintf(&b, "<figure id=\"%s\"><img src=\"%s\" alt=\"%s\"><figcaption><a href=\"%s\">%s</a>%s</figcaption></figure>\n", name, name, name, name, name, link)
	}
	return b.String()
}

// provenanceHTML lists what the run was computed from and with, and the files it wrote.
func provenanceHTML(m *rundir.Manifest, outputs []string) string {
	esc := html.EscapeString
	var b strings.Builder
	finished := "(this page was written as the run completed)"
	if m.Finished != nil {
		finished = m.Finished.UTC().Format(time.RFC3339)
	}
	fmt.Fprintf(&b, "<dl><dt>revision</dt><dd><code>%s</code></dd><dt>Go, platform</dt><dd>%s, %s</dd><dt>started, finished</dt><dd>%s, %s</dd><dt>cells, rows, jobs</dt><dd>%d, %d, %d</dd></dl>\n",
		esc(orNone(m.Revision)), esc(m.GoVersion), esc(m.Platform), esc(m.Started.UTC().Format(time.RFC3339)), esc(finished), m.Cells, m.Rows, m.Jobs)
	b.WriteString("<table><caption>Inputs, with the SHA-256 of the bytes read.</caption><thead><tr><th>role</th><th>path</th><th>sha256</th><th class=\"num\">bytes</th></tr></thead><tbody>\n")
	for _, in := range m.Inputs {
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td><td><code>%s</code></td><td class=\"num\">%d</td></tr>\n", esc(in.Role), esc(in.Path), esc(in.SHA256), in.Bytes)
	}
	b.WriteString("</tbody></table>\n")
	if len(m.PhaseSeconds) > 0 {
		b.WriteString("<table><caption>Time per phase, summed over workers, in the invocation that computed the cells (not in resumed ones).</caption><thead><tr><th>phase</th><th class=\"num\">seconds</th></tr></thead><tbody>\n")
		for _, p := range slices.Sorted(maps.Keys(m.PhaseSeconds)) {
			fmt.Fprintf(&b, "<tr><td>%s</td><td class=\"num\">%s</td></tr>\n", esc(p), strconv.FormatFloat(m.PhaseSeconds[p], 'f', 1, 64))
		}
		b.WriteString("</tbody></table>\n")
	}
	b.WriteString("<table><caption>Component versions.</caption><thead><tr><th>component</th><th>version</th></tr></thead><tbody>\n")
	for _, k := range slices.Sorted(maps.Keys(m.Components)) {
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td></tr>\n", esc(k), esc(m.Components[k]))
	}
	b.WriteString("</tbody></table>\n<p>Files of the run: ")
	files := slices.Clone(outputs)
	files = append(files, "manifest.json")
	slices.Sort(files)
	for i, f := range slices.Compact(files) {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "<a href=\"%s\">%s</a>", esc(f), esc(f))
	}
	b.WriteString(".</p>\n")
	return b.String()
}

// verdictHTML renders the folder's verdict.md (empty without one).
func verdictHTML(dir string) (string, error) {
	data, err := filehash.ReadRegular(filepath.Join(dir, "verdict.md"), filehash.MaxStateBytes, "a run's verdict.md")
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return markdownHTML(string(data)), nil
}

var (
	headingLine = regexp.MustCompile(`^(#{1,6})\s+(.*)$`)
	ruleLine    = regexp.MustCompile(`^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$`)
)

// markdownHTML renders the Markdown dptext writes (verdict.md, table.md): headings (one level
// below the page's sections), paragraphs, "- " lists, pipe tables, **bold** and `code`; any other markup
// stays as text. Every text is escaped.
func markdownHTML(md string) string {
	var b strings.Builder
	lines := strings.Split(md, "\n")
	var para []string
	flush := func() {
		if len(para) > 0 {
			fmt.Fprintf(&b, "<p>%s</p>\n", inlineHTML(strings.Join(para, " ")))
			para = nil
		}
	}
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " \r")
		switch {
		case strings.TrimSpace(line) == "":
			flush()
		case headingLine.MatchString(line):
			flush()
			m := headingLine.FindStringSubmatch(line)
			level := min(len(m[1])+1, 6)
			fmt.Fprintf(&b, "<h%d>%s</h%d>\n", level, inlineHTML(m[2]), level)
		case strings.HasPrefix(line, "- "):
			flush()
			b.WriteString("<ul>\n")
			for ; i < len(lines) && strings.HasPrefix(lines[i], "- "); i++ {
				fmt.Fprintf(&b, "<li>%s</li>\n", inlineHTML(strings.TrimSpace(strings.TrimPrefix(lines[i], "- "))))
			}
			i--
			b.WriteString("</ul>\n")
		case strings.HasPrefix(line, "|"):
			flush()
			var block []string
			for ; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "|"); i++ {
				block = append(block, strings.TrimSpace(lines[i]))
			}
			i--
			b.WriteString(tableHTML(block))
		default:
			para = append(para, line)
		}
	}
	flush()
	return b.String()
}

// tableHTML renders a pipe table: its first line is the header when a rule line follows.
func tableHTML(block []string) string {
	var b strings.Builder
	b.WriteString("<div class=\"scroll\"><table>\n")
	for i, line := range block {
		if ruleLine.MatchString(line) {
			continue
		}
		tag := "td"
		if i == 0 && len(block) > 1 && ruleLine.MatchString(block[1]) {
			tag = "th"
		}
		b.WriteString("<tr>")
		for _, cell := range splitRow(line) {
			fmt.Fprintf(&b, "<%s>%s</%s>", tag, inlineHTML(cell), tag)
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table></div>\n")
	return b.String()
}

// splitRow splits a pipe-table row at its unescaped bars; a backslash escapes the next
// character ("\|" is a bar inside a cell).
func splitRow(line string) []string {
	line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line):
			cur.WriteByte(line[i+1]) // render's markdownCell escapes \\, |, < and ` so
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(line[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

var (
	boldSpan = regexp.MustCompile(`\*\*([^*]+)\*\*`)
	codeSpan = regexp.MustCompile("`([^`]+)`")
)

// inlineHTML escapes s and renders its **bold** and `code` spans.
func inlineHTML(s string) string {
	s = html.EscapeString(s)
	s = boldSpan.ReplaceAllString(s, "<strong>$1</strong>")
	return codeSpan.ReplaceAllString(s, "<code>$1</code>")
}
