// Package configfile reads what every config file shares: errors that name file, line and key
// (Error), the positions of keys in TOML text (Lines), and a component's params table decoded
// once, strictly, into its typed options (Params).
package configfile

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// MaxCount bounds every count a config or a params table gives (authors, word counts, top_k,
// a component's integer options): far above any real experiment, it turns a typo such as
// 9999999999999 into an error instead of a run that exhausts memory.
const MaxCount = 1_000_000_000

// Error is an error in a config file, naming the file, line (when known) and key.
type Error struct {
	File string
	Line int
	Key  string
	Msg  string
}

// Error formats the error as FILE:LINE: KEY: MESSAGE.
func (e *Error) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc += fmt.Sprintf(":%d", e.Line)
	}
	if e.Key != "" {
		return fmt.Sprintf("%s: %s: %s", loc, e.Key, e.Msg)
	}
	return fmt.Sprintf("%s: %s", loc, e.Msg)
}

// PlaceError places a constructor's error in the component's params table p: at the
// line of the key the message names (constructors say "KEY = VALUE: want …") when the table
// sets that key, else at the table's header. Decoding errors already name their key and line.
func (p Params) PlaceError(id string, err error) error {
	var ce *Error
	if errors.As(err, &ce) {
		return err
	}
	set := map[string]string{} // leaf key → dotted key, for the keys the table sets
	var walk func(prefix string, v map[string]any)
	walk = func(prefix string, v map[string]any) {
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if sub, ok := v[k].(map[string]any); ok {
				walk(prefix+k+".", sub)
				continue
			}
			if _, dup := set[k]; !dup {
				set[k] = prefix + k
			}
		}
	}
	walk("", p.record)
	msg := err.Error()
	if !strings.HasPrefix(msg, id+": ") && !strings.HasPrefix(msg, p.Component+": ") {
		msg = id + ": " + msg
	}
	for _, m := range namedKeyRE.FindAllStringSubmatch(msg, -1) {
		if key, ok := set[m[1]]; ok {
			return p.err(key, "%s", msg)
		}
	}
	return p.err("", "%s", msg)
}

// namedKeyRE finds the "KEY = " by which a constructor's error names an option.
var namedKeyRE = regexp.MustCompile(`(?:^|[:,] )([a-z][a-z0-9_]*) = `)
