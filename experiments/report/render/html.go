package render

import (
	"fmt"
	"html"
	"strings"

	"dptext/experiments/report"
)

// HTMLTables renders the main table and the privacy and diagnostics table of a run as HTML
// fragments (a caption and a table each; privacy is empty when the run has no such rows), the
// same cells as table.md. The layout is validated and checked against the rows as by Write.
func HTMLTables(rows []report.Row, layout Layout, caption Caption) (main, privacy string, err error) {
	if err := layout.Validate(); err != nil {
		return "", "", err
	}
	s, err := report.Aggregate(rows, layout.scorerOrder(), layout.Level)
	if err != nil {
		return "", "", err
	}
	if err := layout.checkData(s); err != nil {
		return "", "", err
	}
	t := buildTables(s, layout)
	main = htmlGrid(t.mainGrid(), "Table 1. "+t.mainCaption(caption))
	if len(t.privacy.columns) > 0 {
		privacy = htmlGrid(t.privacyGrid(), "Table 2. "+t.privacyCaption())
	}
	return main, privacy, nil
}

// htmlGrid writes g as an HTML table with its caption, every text escaped; the columns after
// mechanism and ε are numbers, right-aligned.
func htmlGrid(g grid, caption string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<p class=\"caption\">%s</p>\n<div class=\"scroll\"><table>\n<thead><tr>", html.EscapeString(caption))
	for i, h := range g.header {
		fmt.Fprintf(&b, "<th%s>%s</th>", numClass(i), html.EscapeString(h))
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, r := range g.rows {
		b.WriteString("<tr>")
		for i, c := range r {
			fmt.Fprintf(&b, "<td%s>%s</td>", numClass(i), html.EscapeString(c))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody></table></div>\n")
	return b.String()
}

func numClass(col int) string {
	if col < 2 {
		return ""
	}
	return ` class="num"`
}
