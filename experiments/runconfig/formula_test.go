package runconfig

import (
	"strings"
	"testing"

	"dptext/internal/fixtures"
)

// Set names and labels that would begin a formula in results.csv are refused at their line.
func TestFormulaLikeNamesAreRefused(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	for _, c := range []struct{ part, want string }{
		{"[[sets]]\nname = \"=1+1\"\nauthors = 4\n[[mechanisms]]\nname = \"none\"\n", "sets[0].name: \"=1+1\" begins with \"=\""},
		{"[[sets]]\nname = \"4\"\nauthors = 4\n[[mechanisms]]\nname = \"none\"\nlabel = \"@SUM(A1)\"\n", "mechanisms[0].label: \"@SUM(A1)\" begins with \"@\""},
		{"[[sets]]\nname = \"4\"\nauthors = 4\n[[mechanisms]]\nname = \"none\"\n[[report.columns]]\nscorer = \"sr-nn\"\nlabel = \"+x\"\n", "report.columns[0].label: \"+x\" begins with \"+\""},
	} {
		_, err := ParseConfig("f.toml", "name = \"f\"\n"+fixtures.Inputs(corpusPath, vecPath)+c.part+"[[scorers]]\nname = \"sr-nn\"\n")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}
