package corpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// ReadJSONL reads one document per line: a JSON object with string fields "author" and "text"
// (both required, not blank), "topic" (optional, may be empty) and "id" (optional; defaults to
// "<file name>:<line>"). Any other field goes to Meta, strings as they are and other values as
// their JSON text. Blank lines are skipped and counted. Invalid JSON, invalid UTF-8, a missing or
// non-string field, a blank author or text, and a repeated id are errors naming file:line.
func ReadJSONL(path string) ([]Document, Skipped, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("corpus: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	skipped := Skipped{}
	var docs []Document
	seen := map[string]int{}
	for lineNo := 1; ; lineNo++ {
		line, err := r.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return nil, nil, fmt.Errorf("corpus: %s:%d: %w", path, lineNo, err)
		}
		if len(line) == 0 && err == io.EOF {
			break
		}
		where := fmt.Sprintf("%s:%d", path, lineNo)
		if len(bytes.TrimSpace(line)) == 0 {
			skipped.add("blank line")
		} else {
			doc, derr := parseJSONLine(where, line)
			if derr != nil {
				return nil, nil, derr
			}
			if doc.ID == "" {
				doc.ID = fmt.Sprintf("%s:%d", filepath.Base(path), lineNo)
			}
			if first, dup := seen[doc.ID]; dup {
				return nil, nil, fmt.Errorf("corpus: %s: id %q already used on line %d", where, doc.ID, first)
			}
			seen[doc.ID] = lineNo
			docs = append(docs, doc)
		}
		if err == io.EOF {
			break
		}
	}
	return docs, skipped, nil
}

func parseJSONLine(where string, line []byte) (Document, error) {
	if !utf8.Valid(line) {
		return Document{}, fmt.Errorf("corpus: %s: line is not valid UTF-8", where)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		return Document{}, fmt.Errorf("corpus: %s: invalid JSON object: %v", where, err)
	}
	var doc Document
	for key, target := range map[string]*string{"id": &doc.ID, "author": &doc.Author, "topic": &doc.Topic, "text": &doc.Text} {
		raw, ok := fields[key]
		if !ok {
			continue
		}
		if err := json.Unmarshal(raw, target); err != nil {
			return Document{}, fmt.Errorf("corpus: %s: field %q is %s, want a string", where, key, raw)
		}
		delete(fields, key)
	}
	if strings.TrimSpace(doc.Author) == "" {
		return Document{}, fmt.Errorf(`corpus: %s: "author" is missing or empty`, where)
	}
	if strings.TrimSpace(doc.Text) == "" {
		return Document{}, fmt.Errorf(`corpus: %s: "text" is missing or empty`, where)
	}
	if len(fields) > 0 {
		doc.Meta = make(map[string]string, len(fields))
		for key, raw := range fields {
			var s string
			if json.Unmarshal(raw, &s) == nil {
				doc.Meta[key] = s
			} else {
				doc.Meta[key] = string(raw)
			}
		}
	}
	return doc, nil
}
