package corpus

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// readersWithoutFinish returns the exported readers of a parsed package — functions whose
// results are ([]Document, Skipped, error) — whose bodies never call finish, which every
// reader must end in (trimmed authors, byte-identical duplicates dropped, one identity per
// writer).
func readersWithoutFinish(files []*ast.File) []string {
	var bad []string
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !fn.Name.IsExported() || fn.Body == nil || !returnsDocuments(fn.Type) {
				continue
			}
			calls := false
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "finish" {
						calls = true
					}
				}
				return !calls
			})
			if !calls {
				bad = append(bad, fn.Name.Name)
			}
		}
	}
	slices.Sort(bad)
	return bad
}

// returnsDocuments reports whether a function type's results are ([]Document, Skipped, error).
func returnsDocuments(t *ast.FuncType) bool {
	if t.Results == nil {
		return false
	}
	var types []string
	for _, r := range t.Results.List {
		s := typeString(r.Type)
		for range max(1, len(r.Names)) {
			types = append(types, s)
		}
	}
	return slices.Equal(types, []string{"[]Document", "Skipped", "error"})
}

func typeString(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.ArrayType:
		if x.Len == nil {
			return "[]" + typeString(x.Elt)
		}
	}
	return "?"
}

// TestEveryReaderEndsInFinish: each exported reader of the package (results ([]Document,
// Skipped, error)) calls finish, so a new corpus format cannot skip what every reader does
// last. It reads the package's source: a deterministic check that fails on the mutant, a
// reader returning its documents without finish, and passes on the same reader with it.
func TestEveryReaderEndsInFinish(t *testing.T) {
	parse := func(name, src string) *ast.File {
		f, err := parser.ParseFile(token.NewFileSet(), name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	const mutant = "package corpus\nfunc ReadToy(path string) ([]Document, Skipped, error) { return nil, Skipped{}, nil }\n"
	if bad := readersWithoutFinish([]*ast.File{parse("toy.go", mutant)}); !slices.Equal(bad, []string{"ReadToy"}) {
		t.Errorf("mutant: a reader without finish is reported as %q, want [ReadToy]", bad)
	}
	fixed := strings.Replace(mutant, "return nil,", "return finish(nil, nil),", 1)
	if bad := readersWithoutFinish([]*ast.File{parse("toy.go", fixed)}); len(bad) != 0 {
		t.Errorf("a reader calling finish is reported as lacking it: %q", bad)
	}
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	readers := 0
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		src, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		f := parse(n, string(src))
		files = append(files, f)
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.IsExported() && returnsDocuments(fn.Type) {
				readers++
			}
		}
	}
	if readers < 4 {
		t.Fatalf("found %d readers returning ([]Document, Skipped, error); want at least the 4 of sotu, jsonl, dir and pan", readers)
	}
	for _, name := range readersWithoutFinish(files) {
		t.Errorf("reader %s returns documents without calling finish(docs, skipped): end it with `return finish(docs, skipped), skipped, nil` (see corpus.go)", name)
	}
}
