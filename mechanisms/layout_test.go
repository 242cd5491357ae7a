package mechanisms

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// supportPackages are the folders under mechanisms/ that are not mechanism families: what the
// families and the commands use around them. nearest: the nearest-word decoders of
// noise-then-decode (metricdp, expmech's CusText); audit: the ε audits of any mechanism;
// calibrate: the per-ε word statistics of `dptext calibrate` (over metricdp); distinguish: the
// empirical document-level ε of the distinguishing game; internal: code the families share
// (rowcache, twostage); testdata: test inputs (none yet). Any other folder is a family (one package per
// family of mechanisms: metricdp, expmech, syntf, scrub, erae).
var supportPackages = []string{"audit", "calibrate", "distinguish", "internal", "nearest", "testdata"}

// crossFamilyImports returns "family imports path" for every import (of imports: family
// directory → import paths of its files) of one mechanism family by another. Families may
// import this package, mechanisms/internal/... and the support packages; the root cannot
// import a family at all (that would be an import cycle, which the compiler refuses).
func crossFamilyImports(imports map[string][]string) []string {
	var bad []string
	for family, paths := range imports {
		for _, p := range paths {
			rest, ok := strings.CutPrefix(p, "dptext/mechanisms/")
			if !ok || rest == family {
				continue
			}
			if top, _, _ := strings.Cut(rest, "/"); !slices.Contains(supportPackages, top) {
				bad = append(bad, family+" imports "+p)
			}
		}
	}
	slices.Sort(bad)
	return bad
}

// TestFamiliesImportNoOtherFamily: every family package under mechanisms/ (tests included)
// imports the contracts, the shared internal code and the support packages, and no other
// family, so a family can be read, changed and tested alone. The mutants — a metricdp test
// importing expmech (as one did before the split), erae importing expmech (as it did for the
// two-stage sampler before mechanisms/internal/twostage) — are caught; imports of nearest and
// mechanisms/internal/rowcache are not.
func TestFamiliesImportNoOtherFamily(t *testing.T) {
	mutants := map[string][]string{
		"metricdp": {"dptext/mechanisms", "dptext/mechanisms/nearest", "dptext/mechanisms/expmech"},
		"erae":     {"dptext/mechanisms/internal/twostage", "dptext/mechanisms/expmech"},
		"expmech":  {"dptext/mechanisms/internal/rowcache", "dptext/mechanisms/nearest"},
	}
	if bad := crossFamilyImports(mutants); !slices.Equal(bad, []string{"erae imports dptext/mechanisms/expmech", "metricdp imports dptext/mechanisms/expmech"}) {
		t.Fatalf("mutants: got %q, want the two imports of expmech", bad)
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range supportPackages {
		if s == "testdata" {
			continue // none today; a family's test inputs would go here
		}
		if info, err := os.Stat(s); err != nil || !info.IsDir() {
			t.Errorf("support package %s is not a folder of mechanisms/ (%v): remove it from supportPackages", s, err)
		}
	}
	imports := map[string][]string{}
	for _, e := range entries {
		if !e.IsDir() || slices.Contains(supportPackages, e.Name()) {
			continue
		}
		files, err := filepath.Glob(filepath.Join(e.Name(), "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("family %s: no Go files (%v)", e.Name(), err)
		}
		for _, f := range files {
			af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, im := range af.Imports {
				p, _ := strconv.Unquote(im.Path.Value)
				imports[e.Name()] = append(imports[e.Name()], p)
			}
		}
	}
	if len(imports) < 5 {
		t.Fatalf("found %d families with imports, want metricdp, expmech, syntf, scrub and erae: %v", len(imports), imports)
	}
	if bad := crossFamilyImports(imports); len(bad) > 0 {
		t.Errorf("families import each other: %s", strings.Join(bad, "; "))
	}
}
