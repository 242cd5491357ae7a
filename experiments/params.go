package experiments

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// Params is the `params` table of one component in a config. Decoding is strict: a key that the
// component's options struct does not have is an error listing the valid keys.
type Params struct {
	File, Table, Component string
	Values                 map[string]any
	lines                  keyLines
}

// Decode decodes the parameters into opts, a pointer to an options struct with toml tags whose
// fields hold the defaults.
func (p Params) Decode(opts any) error { return p.decodeInto(opts) }

func (p Params) decodeInto(opts any) error {
	if len(p.Values) == 0 {
		return nil
	}
	if key, v, ok := hugeInteger("", p.Values); ok {
		return p.err(key, "%d: at most %d in absolute value (a count this large cannot run)", v, MaxCount)
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(p.Values); err != nil {
		return p.err("", "cannot re-encode parameters: %v", err)
	}
	md, err := toml.Decode(buf.String(), opts)
	if err != nil {
		var pe toml.ParseError
		msg := err.Error()
		if errors.As(err, &pe) {
			msg = pe.Message
		}
		key := ""
		// The message names a position in the re-encoded text ("toml: line 1 (last key
		// "a.b"): …"), which means nothing to the user: keep the key, drop the rest.
		if m := lastKeyRE.FindStringSubmatch(msg); m != nil {
			key, msg = m[1], msg[len(m[0]):]
		} else {
			for k := range p.Values {
				if strings.Contains(msg, "'"+k+"'") || strings.Contains(msg, `"`+k+`"`) {
					key = k
				}
			}
		}
		return p.err(key, "%s", strings.TrimPrefix(msg, "toml: "))
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		sort.Strings(keys)
		return p.err(keys[0], "unknown parameter %q of %s; valid: %s", keys[0], p.Component, strings.Join(tomlKeys(opts), ", "))
	}
	return nil
}

var lastKeyRE = regexp.MustCompile(`^(?:toml: )?line \d+ \(last key "([^"]+)"\): `)

// err places an error at key (dotted for nested tables, "" for the table itself): the line of
// the key, else of its sub-table's header, else of the params table's header.
// hugeInteger finds an integer parameter (nested tables and arrays included) beyond ±MaxCount,
// returning its dotted key.
func hugeInteger(prefix string, v any) (string, int64, bool) {
	switch x := v.(type) {
	case int64:
		if x > MaxCount || x < -MaxCount {
			return prefix, x, true
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			key := k
			if prefix != "" {
				key = prefix + "." + k
			}
			if kk, n, ok := hugeInteger(key, x[k]); ok {
				return kk, n, true
			}
		}
	case []any:
		for _, e := range x {
			if kk, n, ok := hugeInteger(prefix, e); ok {
				return kk, n, true
			}
		}
	case []map[string]any:
		for _, e := range x {
			if kk, n, ok := hugeInteger(prefix, e); ok {
				return kk, n, true
			}
		}
	}
	return "", 0, false
}

func (p Params) err(key, format string, args ...any) error {
	name, line := p.Table, 0
	if key != "" {
		name += "." + key
		parts := strings.Split(key, ".")
		table := strings.Join(append([]string{p.Table}, parts[:len(parts)-1]...), ".")
		line = p.lines.line(table, parts[len(parts)-1])
		for n := len(parts) - 1; line == 0 && n >= 1; n-- {
			line = p.lines.line(strings.Join(append([]string{p.Table}, parts[:n]...), "."), "")
		}
		if line == 0 {
			line = p.lines.line(p.Table, parts[0])
		}
	}
	if line == 0 {
		line = p.lines.line(p.Table, "")
	}
	if line == 0 {
		// No params table: the component's own table ("mechanisms[1]").
		line = p.lines.near(strings.TrimSuffix(p.Table, ".params"), "params")
	}
	return &ConfigError{File: p.File, Line: line, Key: name, Msg: fmt.Sprintf(format, args...)}
}

// tomlKeys lists the toml keys of the struct v points to, in field order.
func tomlKeys(v any) []string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			keys = append(keys, tomlKeys(reflect.New(f.Type).Interface())...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		tag := strings.Split(f.Tag.Get("toml"), ",")[0]
		switch tag {
		case "-":
			continue
		case "":
			tag = f.Name
		}
		keys = append(keys, tag)
	}
	return keys
}
