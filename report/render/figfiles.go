package render

import "strings"

// IsFigureFile reports whether name is a plot file Write may produce under layout: a PNG or PDF
// named `<metric>-<set>` for one of the layout's plot metrics, `frontier-<set>` when the layout
// draws the frontier, or `distinguish-<k>-<set>` (the calibration plots). A run removes only such
// files of an earlier run, never another picture that happens to lie in its folder.
func IsFigureFile(name string, layout Layout) bool {
	base, ok := strings.CutSuffix(name, ".png")
	if !ok {
		if base, ok = strings.CutSuffix(name, ".pdf"); !ok {
			return false
		}
	}
	prefixes := []string{calibrationFile}
	for _, m := range layout.PlotMetrics {
		prefixes = append(prefixes, safeName(m+"-"))
	}
	if layout.Frontier.Attack != "" {
		prefixes = append(prefixes, "frontier-")
	}
	for _, p := range prefixes {
		if strings.HasPrefix(base, p) && len(base) > len(p) {
			return true
		}
	}
	return false
}
