package corpus

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"dptext/internal/filehash"
)

// DirOptions configure ReadDir.
type DirOptions struct {
	// Files, when not nil, records the bytes read for the corpus's fingerprint (see
	// filehash.Recorder).
	Files *filehash.Recorder
}

// ReadDir reads ROOT/<topic>/<author>/<doc>.txt, one document per file, in lexical path order.
// Symbolic links to folders and files are followed; a link back to a folder on its own path
// (a loop) is skipped and counted. The ID is the path relative to root with forward slashes;
// Meta["file"] is the file name. Files elsewhere in the tree or without the .txt extension are
// skipped and counted; an empty or non-UTF-8 text is an error naming the file. Authors are
// trimmed of surrounding spaces and byte-identical texts dropped (see Skipped). Each file may
// hold at most MaxDocumentBytes.
func ReadDir(root string, opts DirOptions) ([]Document, Skipped, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, nil, fmt.Errorf("corpus: %w", err)
	}
	if !info.IsDir() {
		return nil, nil, fmt.Errorf("corpus: %s: not a folder: format \"dir\" reads ROOT/<topic>/<author>/<doc>.txt", root)
	}
	w := &dirWalker{root: root, skipped: Skipped{}, files: opts.Files}
	if err := w.walk(root, nil, nil); err != nil {
		return nil, nil, err
	}
	if len(w.docs) == 0 {
		return nil, nil, fmt.Errorf("corpus: %s: no <topic>/<author>/<doc>.txt files (%s)", root, w.skipped)
	}
	return finish(w.docs, w.skipped), w.skipped, nil
}

type dirWalker struct {
	root    string
	skipped Skipped
	docs    []Document
	files   *filehash.Recorder
}

// walk reads folder dir, whose path below the root is rel and whose real paths (symbolic links
// resolved) of itself and its ancestors are stack.
func (w *dirWalker) walk(dir string, rel, stack []string) error {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	if abs, err := filepath.Abs(real); err == nil {
		real = abs
	}
	if slices.Contains(stack, real) {
		w.skipped.add("symbolic link to a folder on its own path (a loop; not followed)")
		return nil
	}
	stack = append(stack, real)
	entries, err := w.files.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	for _, e := range entries { // sorted by name
		path := filepath.Join(dir, e.Name())
		parts := append(slices.Clip(rel), e.Name())
		info, err := os.Stat(path) // follows symbolic links
		if err != nil {
			if e.Type()&os.ModeSymlink != 0 {
				w.skipped.add("broken symbolic link")
				continue
			}
			return fmt.Errorf("corpus: %w", err)
		}
		if info.IsDir() {
			if err := w.walk(path, parts, stack); err != nil {
				return err
			}
			continue
		}
		switch {
		case len(parts) != 3:
			w.skipped.add("file not at <topic>/<author>/<doc>.txt")
			continue
		case !strings.HasSuffix(parts[2], ".txt"):
			w.skipped.add("file without .txt extension")
			continue
		case !info.Mode().IsRegular():
			w.skipped.add("not a regular file")
			continue
		}
		data, err := w.files.ReadFile(path, MaxDocumentBytes, documentLimitWhat)
		if err != nil {
			return fmt.Errorf("corpus: %w", err)
		}
		if err := checkText(path, string(data)); err != nil {
			return err
		}
		if strings.TrimSpace(parts[1]) == "" {
			return fmt.Errorf("corpus: %s: the author folder %q is a blank name: want the author's name", path, parts[1])
		}
		w.docs = append(w.docs, Document{
			ID: strings.Join(parts, "/"), Topic: parts[0], Author: parts[1], Text: string(data),
			Meta: map[string]string{"file": parts[2]},
		})
	}
	return nil
}
