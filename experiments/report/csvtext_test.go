package report

import "testing"

// Text cells from user data that a spreadsheet would run as a formula are neutralised; others,
// including names with those characters inside, are unchanged.
func TestCSVTextNeutralisesFormulas(t *testing.T) {
	for in, want := range map[string]string{
		"=HYPERLINK(\"x\")": "'=HYPERLINK(\"x\")", "+1": "'+1", "-2+3": "'-2+3", "@SUM(A1)": "'@SUM(A1)",
		"\tx": "'\tx", "ann": "ann", "a=b": "a=b", "": "", "o'neil": "o'neil",
	} {
		if got := CSVText(in); got != want {
			t.Errorf("CSVText(%q) = %q, want %q", in, got, want)
		}
	}
}
