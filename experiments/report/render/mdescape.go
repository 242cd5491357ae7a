package render

import "strings"

// markdownCell escapes what would break a Markdown table or inject markup from a label (set
// names and labels come from the config, which may hold anything): a backslash, '|' (a cell
// boundary), '<' (HTML) and '`' (code) are backslash-escaped, and line breaks (which end the
// row) become spaces.
var markdownCell = strings.NewReplacer(`\`, `\\`, "|", `\|`, "<", `\<`, "`", "\\`", "\r\n", " ", "\n", " ", "\r", " ")

// escapeGrid returns g with every header and cell escaped by markdownCell.
func escapeGrid(g grid) grid {
	out := grid{header: make([]string, len(g.header)), rows: make([][]string, len(g.rows))}
	for i, h := range g.header {
		out.header[i] = markdownCell.Replace(h)
	}
	for i, r := range g.rows {
		out.rows[i] = make([]string, len(r))
		for j, c := range r {
			out.rows[i][j] = markdownCell.Replace(c)
		}
	}
	return out
}
