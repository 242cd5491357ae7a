package main

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// floorTable reads the "Floors" table of ARCHITECTURE.md: package path → floor number (the
// first number of the row), every package named in backquotes in the row's packages cell.
func floorTable(doc string) map[string]int {
	floors := map[string]int{}
	code := regexp.MustCompile("`([^`]+)`")
	row := regexp.MustCompile(`^\| (\d+) [^|]*\| ([^|]*)\|`)
	for _, line := range strings.Split(doc, "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		for _, c := range code.FindAllStringSubmatch(m[2], -1) {
			floors[c[1]] = n
		}
	}
	return floors
}

// layoutProblems compares the module's packages (path below the module → the dptext packages
// its non-test files import) with the floor table: every package must be in the table, and
// none may import a package of a higher floor.
func layoutProblems(floors map[string]int, imports map[string][]string) []string {
	var bad []string
	for _, pkg := range slices.Sorted(maps.Keys(imports)) {
		f, ok := floors[pkg]
		if !ok {
			bad = append(bad, fmt.Sprintf("package %s is not in ARCHITECTURE.md's Floors table: add `%s` to the packages cell of the floor below everything that imports it and above everything it imports, and say in the row's last cell what it holds", pkg, pkg))
			continue
		}
		for _, imp := range imports[pkg] {
			if g, ok := floors[imp]; ok && g > f {
				bad = append(bad, fmt.Sprintf("package %s (floor %d) imports %s (floor %d): a package imports only from its floor or below; move the shared code down or the importer up", pkg, f, imp, g))
			}
		}
	}
	return bad
}

// moduleImports walks the module at root: every folder with non-test Go files is a package
// (its path below root), mapped to the module packages those files import.
func moduleImports(root, module string) (map[string][]string, error) {
	imports := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		if _, ok := imports[pkg]; !ok {
			imports[pkg] = nil
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if rest, ok := strings.CutPrefix(p, module+"/"); ok && !slices.Contains(imports[pkg], rest) {
				imports[pkg] = append(imports[pkg], rest)
			}
		}
		return nil
	})
	return imports, err
}

// TestPackagesKeepTheirFloors: every package of the module is named in ARCHITECTURE.md's
// Floors table, and no package imports one of a higher floor, so the map a newcomer reads is
// the house. Deterministic; the mutants — a table without `mechanisms/nearest`, and
// `internal/text` (floor 0) importing `experiments/report` (floor 1) — each add the one
// message naming them.
func TestPackagesKeepTheirFloors(t *testing.T) {
	doc, err := os.ReadFile("../../ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	floors := floorTable(string(doc))
	imports, err := moduleImports("../..", "dptext")
	if err != nil {
		t.Fatal(err)
	}
	if len(floors) < 20 || len(imports) < 20 {
		t.Fatalf("read %d packages from the Floors table and %d from the module; want at least 20 of each (has the table's layout changed?)", len(floors), len(imports))
	}
	base := layoutProblems(floors, imports)
	for _, p := range base {
		t.Error(p)
	}
	noNearest := maps.Clone(floors)
	delete(noNearest, "mechanisms/nearest")
	if got := slices.DeleteFunc(layoutProblems(noNearest, imports), func(p string) bool { return slices.Contains(base, p) }); len(got) != 1 || !strings.Contains(got[0], "package mechanisms/nearest is not in") {
		t.Errorf("mutant table without nearest: new messages %q, want one naming nearest", got)
	}
	upward := maps.Clone(imports)
	upward["internal/text"] = append(slices.Clone(imports["internal/text"]), "experiments/report")
	if got := slices.DeleteFunc(layoutProblems(floors, upward), func(p string) bool { return slices.Contains(base, p) }); len(got) != 1 || !strings.Contains(got[0], "package internal/text (floor 0) imports experiments/report (floor 1)") {
		t.Errorf("mutant internal/text importing experiments/report: new messages %q, want one naming both", got)
	}
}
