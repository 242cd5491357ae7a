package corpus

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ReadDir reads ROOT/<topic>/<author>/<doc>.txt, one document per file, in lexical path order.
// The ID is the path relative to root with forward slashes; Meta["file"] is the file name.
// Files elsewhere in the tree or without the .txt extension are skipped and counted; an empty
// or non-UTF-8 text is an error naming the file.
func ReadDir(root string) ([]Document, Skipped, error) {
	skipped := Skipped{}
	var docs []Document
	var textErr error
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		parts := strings.Split(filepath.ToSlash(rel), "/")
		switch {
		case len(parts) != 3:
			skipped.add("file not at <topic>/<author>/<doc>.txt")
			return nil
		case !strings.HasSuffix(parts[2], ".txt"):
			skipped.add("file without .txt extension")
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if textErr = checkText(path, string(data)); textErr != nil {
			return fs.SkipAll
		}
		docs = append(docs, Document{
			ID: filepath.ToSlash(rel), Topic: parts[0], Author: parts[1], Text: string(data),
			Meta: map[string]string{"file": parts[2]},
		})
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("corpus: %w", err)
	}
	if textErr != nil {
		return nil, nil, textErr
	}
	if len(docs) == 0 {
		return nil, nil, fmt.Errorf("corpus: %s: no <topic>/<author>/<doc>.txt files (%s)", root, skipped)
	}
	return docs, skipped, nil
}
