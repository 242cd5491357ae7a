package render

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// Labels with a '|', a line break, HTML or a backtick stay inside their cell: every line of
// the table has exactly one unescaped '|' per cell boundary, and the table has its 3 lines.
func TestMarkdownGridEscapesLabels(t *testing.T) {
	var b bytes.Buffer
	writeMarkdownGrid(&b, grid{header: []string{"mechanism", "8: a|b"}, rows: [][]string{{"x\ny", "<img src=x>`c`\\"}}})
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	bar := regexp.MustCompile(`(^|[^\\])(\\\\)*\|`)
	for _, l := range lines {
		if n := len(bar.FindAllString(l, -1)); n != 3 {
			t.Errorf("%d unescaped bars in %q, want 3", n, l)
		}
	}
	if !strings.Contains(b.String(), `\<img src=x>\`+"`c\\`"+`\\`) {
		t.Errorf("HTML, code and backslash not escaped:\n%s", b.String())
	}
}
