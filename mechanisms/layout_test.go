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

// crossFamilyImports returns "family imports path" for every import (of imports: family
// directory → import paths of its files) of one mechanism family by another. Families may
// import this package and mechanisms/internal/...; the root cannot import a family at all
// (that would be an import cycle, which the compiler refuses).
func crossFamilyImports(imports map[string][]string) []string {
	var bad []string
	for family, paths := range imports {
		for _, p := range paths {
			rest, ok := strings.CutPrefix(p, "dptext/mechanisms/")
			if ok && !strings.HasPrefix(rest, "internal/") && rest != family {
				bad = append(bad, family+" imports "+p)
			}
		}
	}
	slices.Sort(bad)
	return bad
}

// TestFamiliesImportNoOtherFamily: every family package under mechanisms/ (tests included)
// imports the contracts and no other family, so a family can be read, changed and tested
// alone. The mutant, a metricdp test importing expmech (as one did before the split), is caught.
func TestFamiliesImportNoOtherFamily(t *testing.T) {
	if bad := crossFamilyImports(map[string][]string{"metricdp": {"dptext/mechanisms", "dptext/mechanisms/expmech"}}); len(bad) != 1 {
		t.Fatalf("mutant not caught: %v", bad)
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string][]string{}
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "internal" || e.Name() == "testdata" {
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
	if len(imports) < 4 {
		t.Fatalf("found %d families with imports, want metricdp, expmech, syntf and scrub: %v", len(imports), imports)
	}
	if bad := crossFamilyImports(imports); len(bad) > 0 {
		t.Errorf("families import each other: %s", strings.Join(bad, "; "))
	}
}
