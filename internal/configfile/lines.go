package configfile

import (
	"regexp"
	"strconv"
	"strings"
)

// Lines locates keys in TOML text so that errors can name a line: BurntSushi/toml reports
// undecoded keys without positions. Paths look like "corpus", "mechanisms[1].params" (array
// tables are indexed from 0 in order of appearance) and "" for the top level.
type Lines map[string]map[string]int

var (
	headerRE = regexp.MustCompile(`^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$`)
	keyRE    = regexp.MustCompile(`^\s*("[^"]*"|[A-Za-z0-9_\-]+)\s*=`)
)

// Locate indexes the keys of TOML text src by table path.
func Locate(src string) Lines {
	kl := Lines{}
	counts := map[string]int{}
	current := map[string]string{} // array-table name → its indexed path
	path := ""
	for i, line := range strings.Split(src, "\n") {
		if m := headerRE.FindStringSubmatch(line); m != nil {
			name := strings.ReplaceAll(m[2], " ", "")
			indexed := indexPath(name, current)
			if m[1] == "[[" {
				indexed = name
				if i := strings.LastIndex(name, "."); i >= 0 {
					indexed = indexPath(name[:i], current) + name[i:]
				}
				idx := counts[indexed]
				counts[indexed]++
				indexed += "[" + strconv.Itoa(idx) + "]"
				current[name] = indexed
			}
			path = indexed
			if kl[path] == nil {
				kl[path] = map[string]int{}
			}
			if _, seen := kl[path][""]; !seen {
				kl[path][""] = i + 1 // the header's line, under the empty key
			}
			continue
		}
		if m := keyRE.FindStringSubmatch(line); m != nil {
			if kl[path] == nil {
				kl[path] = map[string]int{}
			}
			key := strings.Trim(m[1], `"`)
			if _, seen := kl[path][key]; !seen {
				kl[path][key] = i + 1
			}
		}
	}
	return kl
}

// indexPath rewrites a dotted table name so that its longest prefix naming an array table
// carries that table's current index: "mechanisms.params" → "mechanisms[1].params".
func indexPath(name string, current map[string]string) string {
	parts := strings.Split(name, ".")
	for n := len(parts); n > 0; n-- {
		if idx, ok := current[strings.Join(parts[:n], ".")]; ok {
			return strings.Join(append([]string{idx}, parts[n:]...), ".")
		}
	}
	return name
}

// Line returns the line of key in the table at path ("" for the table's header line), or 0 if
// unknown.
func (kl Lines) Line(path, key string) int { return kl[path][key] }

// Near returns the line of key in the table at path, else of a sub-table named key (as in
// [mechanisms.params]), else of the table's header: the best line for an error about key.
func (kl Lines) Near(path, key string) int {
	if l := kl.Line(path, key); l > 0 {
		return l
	}
	sub := key
	if path != "" {
		sub = path + "." + key
	}
	if l := kl.Line(sub, ""); l > 0 {
		return l
	}
	return kl.Line(path, "")
}

// Find returns the first line of key in any table whose unindexed path is table (for keys
// reported by BurntSushi/toml, which carry no array indices).
func (kl Lines) Find(table, key string) int {
	best := 0
	for path, keys := range kl {
		if StripIndices(path) != table {
			continue
		}
		if l, ok := keys[key]; ok && (best == 0 || l < best) {
			best = l
		}
	}
	return best
}

var indexRE = regexp.MustCompile(`\[\d+\]`)

// StripIndices removes the array indices of a table path ("mechanisms[1].params" →
// "mechanisms.params"), the form of the decoder's keys.
func StripIndices(path string) string { return indexRE.ReplaceAllString(path, "") }

// At returns the table path and key written on line, or "", "" when no key is.
func (kl Lines) At(line int) (path, key string) {
	for p, keys := range kl {
		for k, l := range keys {
			if l == line && k != "" {
				return p, k
			}
		}
	}
	return "", ""
}

// Has reports whether a table with the unindexed path table appears in the source.
func (kl Lines) Has(table string) bool {
	for path := range kl {
		if StripIndices(path) == table {
			return true
		}
	}
	return false
}
