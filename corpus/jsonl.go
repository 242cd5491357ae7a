package corpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"dptext/internal/filehash"
)

// JSONLOptions configure ReadJSONL.
type JSONLOptions struct {
	// RequireTopic makes a line without a non-blank "topic" an error (the protocols that score
	// topic classification need every document's topic).
	RequireTopic bool
	// Files, when not nil, records the bytes read for the corpus's fingerprint (see
	// filehash.Recorder).
	Files *filehash.Recorder
}

// ReadJSONL reads one document per line: a JSON object with string fields "author" and "text"
// (both required, not blank), "topic" (optional unless opts.RequireTopic) and "id" (optional;
// defaults to "<file name>:<line>"). Any other field goes to Meta, strings as they are and other
// values as their JSON text. A byte-order mark at the start of the file is ignored; blank lines
// are skipped and counted. Invalid JSON, a key given twice in one object, invalid UTF-8, a
// missing or non-string field, a blank author or text, and a repeated id are errors naming
// file:line; so are an empty file and a file holding one JSON array instead of lines. Authors
// are trimmed of surrounding spaces and byte-identical texts dropped (see Skipped). The file
// must be a regular file of at most MaxCorpusBytes, and each line at most MaxDocumentBytes.
func ReadJSONL(path string, opts JSONLOptions) ([]Document, Skipped, error) {
	f, err := opts.Files.Open(path, MaxCorpusBytes, corpusLimitWhat)
	if err != nil {
		return nil, nil, fmt.Errorf("corpus: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	skipped := Skipped{}
	var docs []Document
	seen := map[string]int{}
	for lineNo := 1; ; lineNo++ {
		line, err := readLine(r)
		if errors.Is(err, errLongLine) {
			return nil, nil, fmt.Errorf("corpus: %s:%d: the line is longer than %s, the limit for one document (one line of JSON Lines)", path, lineNo, filehash.Bytes(MaxDocumentBytes))
		}
		if err != nil && err != io.EOF {
			return nil, nil, fmt.Errorf("corpus: %s:%d: %w", path, lineNo, err)
		}
		if len(line) == 0 && err == io.EOF {
			break
		}
		if lineNo == 1 {
			line = bytes.TrimPrefix(line, []byte("\ufeff"))
		}
		where := fmt.Sprintf("%s:%d", path, lineNo)
		if trimmed := bytes.TrimSpace(line); len(trimmed) == 0 {
			skipped.add("blank line")
		} else {
			if trimmed[0] == '[' && len(docs) == 0 {
				return nil, nil, fmt.Errorf("corpus: %s: the file starts with a JSON array: want JSON Lines, one document object per line ({\"author\": …, \"text\": …})", where)
			}
			doc, derr := parseJSONLine(where, line)
			if derr != nil {
				return nil, nil, derr
			}
			if opts.RequireTopic && strings.TrimSpace(doc.Topic) == "" {
				return nil, nil, fmt.Errorf(`corpus: %s: "topic" is missing or empty: the protocol needs every document's topic`, where)
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
	if len(docs) == 0 {
		if skipped.Total() == 0 {
			return nil, nil, fmt.Errorf("corpus: %s: the file is empty: want one JSON object per line", path)
		}
		return nil, nil, fmt.Errorf("corpus: %s: no documents, only blank lines: want one JSON object per line", path)
	}
	if err := f.Finish(); err != nil {
		return nil, nil, fmt.Errorf("corpus: %w", err)
	}
	docs = finish(docs, skipped)
	return docs, skipped, nil
}

// errLongLine is readLine's error for a line longer than MaxDocumentBytes.
var errLongLine = errors.New("line too long")

// readLine reads up to and including the next newline, as bufio.Reader.ReadBytes does, but
// fails with errLongLine once the line exceeds MaxDocumentBytes (a file without newlines is
// not read into memory whole).
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		part, err := r.ReadSlice('\n')
		if len(line)+len(part) > MaxDocumentBytes {
			return nil, errLongLine
		}
		line = append(line, part...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}

// decodeObject reads one JSON object into its fields, refusing a key given twice (encoding/json
// would keep the last value silently) and anything after the object.
func decodeObject(line []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("want an object {…}, got %s", describeToken(tok))
	}
	fields := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		if _, dup := fields[key]; dup {
			return nil, fmt.Errorf("key %q appears twice", key)
		}
		fields[key] = raw
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("unexpected data after the object")
	}
	return fields, nil
}

func describeToken(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '[' {
			return "an array"
		}
		return string(v)
	case string:
		return "a string"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%v", tok)
}

func parseJSONLine(where string, line []byte) (Document, error) {
	if !utf8.Valid(line) {
		return Document{}, fmt.Errorf("corpus: %s: line is not valid UTF-8", where)
	}
	fields, err := decodeObject(line)
	if err != nil {
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
