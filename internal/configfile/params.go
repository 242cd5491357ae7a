package configfile

import (
	"encoding"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
)

// Document is a config file as its single TOML decoding left it: its key positions and the
// decoder's state, from which each component's params table is decoded.
type Document struct {
	File  string
	Lines Lines
	src   *paramSource
}

// NewDocument keeps the decoding md of the TOML text src of file.
func NewDocument(file, src string, md toml.MetaData) *Document {
	return &Document{File: file, Lines: Locate(src), src: &paramSource{md: md}}
}

// Params is the params table of component at path ("mechanisms[1]"), from table, the
// primitive the decoding left for it; the table as written is read into Record.
func (d *Document) Params(path, component string, table toml.Primitive) (Params, error) {
	p := Params{File: d.File, Table: path + ".params", Component: component, context: StripIndices(path) + ".params",
		table: table, src: d.src, lines: d.Lines}
	d.src.mu.Lock()
	defer d.src.mu.Unlock()
	if err := d.src.md.PrimitiveDecode(table, &p.record); err != nil {
		return Params{}, p.err("", "%v", err)
	}
	return p, nil
}

// Params is the `params` table of one component, as the config's single TOML decoding left it
// (a toml.Primitive): Decode fills the component's typed options from it directly. Decoding is
// strict: a key that the options struct does not have is an error listing the valid keys.
type Params struct {
	File, Table, Component string
	// context is the table's key in the decoded document ("mechanisms.params"; "" for a table
	// that is the whole document, as ParseParams makes), stripped from the decoder's messages.
	context string
	table   toml.Primitive
	src     *paramSource
	// record is the table as written (nil: no table), for the strictness and range checks
	// and the private-cache key; options are never decoded from it.
	record map[string]any
	lines  Lines
}

// paramSource is the decoding state of the document a Params came from: the decoder's
// metadata is not safe for concurrent use.
type paramSource struct {
	mu sync.Mutex
	md toml.MetaData
}

// ParseParams reads a params table given as the body of a TOML inline table
// (`order = "keep", oov = "drop"`: the parameter flags of a command); file names the source in
// errors ("command line").
func ParseParams(file, component, body string) (Params, error) {
	p := Params{File: file, Table: "params", Component: component, context: "params"}
	var doc struct {
		Params toml.Primitive `toml:"params"`
	}
	md, err := toml.Decode("params = {"+body+"}", &doc)
	if err != nil {
		msg := err.Error()
		var pe toml.ParseError
		if errors.As(err, &pe) {
			msg = pe.Message
		}
		return Params{}, &Error{File: file, Key: "params", Msg: fmt.Sprintf("%q: %s (want key = value, …, values in TOML)", body, msg)}
	}
	p.table, p.src = doc.Params, &paramSource{md: md}
	if err := p.src.md.PrimitiveDecode(p.table, &p.record); err != nil {
		return Params{}, &Error{File: file, Key: "params", Msg: err.Error()}
	}
	return p, nil
}

// Record is the table as written (nil: no table): the record that keys cached results; options
// are never decoded from it.
func (p Params) Record() map[string]any { return p.record }

// Decode decodes the parameters into opts, a pointer to an options struct with toml tags whose
// fields hold the defaults.
func (p Params) Decode(opts any) error {
	if len(p.record) == 0 {
		return nil
	}
	if key, v, ok := hugeInteger("", p.record); ok {
		return p.err(key, "%d: at most %d in absolute value (a count this large cannot run)", v, MaxCount)
	}
	p.src.mu.Lock()
	err := p.src.md.PrimitiveDecode(p.table, opts)
	p.src.mu.Unlock()
	if err != nil {
		key, msg := "", err.Error()
		var pe toml.ParseError
		if errors.As(err, &pe) {
			key, msg = pe.LastKey, pe.Message
		} else if m := lastKeyRE.FindStringSubmatch(msg); m != nil {
			// "toml: line 3 (last key "mechanisms.params.k"): …": the line is the key's in
			// some table of that name (array tables share one); keep the key, find the line.
			key, msg = m[1], msg[len(m[0]):]
		}
		if p.context != "" {
			key = strings.TrimPrefix(strings.TrimPrefix(key, p.context), ".")
		}
		return p.err(key, "%s", strings.TrimPrefix(msg, "toml: "))
	}
	if unknown := unknownKeys("", p.record, reflect.TypeOf(opts)); len(unknown) > 0 {
		slices.Sort(unknown)
		return p.err(unknown[0], "unknown parameter %q of %s; valid: %s", unknown[0], p.Component, strings.Join(TOMLKeys(opts), ", "))
	}
	return nil
}

var lastKeyRE = regexp.MustCompile(`^(?:toml: )?(?:line \d+ )?\(last key "([^"]+)"\): `)

var (
	tomlUnmarshaler = reflect.TypeFor[toml.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// unknownKeys lists the dotted keys of v (a decoded TOML value, under prefix) that decoding
// into a value of type t leaves unused: the decoder's own strictness check (Undecoded) cannot
// tell apart the params tables of two components, which share one key path.
// Keys match fields as the decoder matches them: the toml tag or the field name, exactly or
// else ignoring case, through embedded structs.
func unknownKeys(prefix string, v any, t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(tomlUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		return nil
	}
	var out []string
	switch x := v.(type) {
	case map[string]any:
		switch t.Kind() {
		case reflect.Struct:
			fields := tomlFields(t)
			for k, sub := range x {
				key := JoinKey(prefix, k)
				ft, ok := fields[k]
				if !ok {
					for name, f := range fields {
						if strings.EqualFold(name, k) {
							ft, ok = f, true
						}
					}
				}
				if !ok {
					out = append(out, key)
					continue
				}
				out = append(out, unknownKeys(key, sub, ft)...)
			}
		case reflect.Map:
			for k, sub := range x {
				out = append(out, unknownKeys(JoinKey(prefix, k), sub, t.Elem())...)
			}
		}
	case []map[string]any:
		if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			for _, e := range x {
				out = append(out, unknownKeys(prefix, e, t.Elem())...)
			}
		}
	case []any:
		if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			for _, e := range x {
				out = append(out, unknownKeys(prefix, e, t.Elem())...)
			}
		}
	}
	return out
}

// JoinKey is the dotted key k under prefix ("" for the top level).
func JoinKey(prefix, k string) string {
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}

// tomlFields maps the toml keys of struct type t (embedded structs without a tag flattened)
// to their field types.
func tomlFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := strings.Split(f.Tag.Get("toml"), ",")[0]
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		ft := f.Type
		if ft.Name() == "" && ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && tag == "" && ft.Kind() == reflect.Struct {
			for k, sub := range tomlFields(ft) {
				if _, shadowed := out[k]; !shadowed {
					out[k] = sub
				}
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		out[tag] = ft
	}
	return out
}

// hugeInteger finds an integer parameter (nested tables and arrays included) beyond ±MaxCount,
// returning its dotted key.
func hugeInteger(prefix string, v any) (string, int64, bool) {
	switch x := v.(type) {
	case int64:
		if x > MaxCount || x < -MaxCount {
			return prefix, x, true
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if kk, n, ok := hugeInteger(JoinKey(prefix, k), x[k]); ok {
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

// err places an error at key (dotted for nested tables, "" for the table itself): the line of
// the key, else of its sub-table's header, else of the params table's header.
func (p Params) err(key, format string, args ...any) error {
	name, line := p.Table, 0
	if key != "" {
		name += "." + key
		parts := strings.Split(key, ".")
		table := strings.Join(append([]string{p.Table}, parts[:len(parts)-1]...), ".")
		line = p.lines.Line(table, parts[len(parts)-1])
		for n := len(parts) - 1; line == 0 && n >= 1; n-- {
			line = p.lines.Line(strings.Join(append([]string{p.Table}, parts[:n]...), "."), "")
		}
		if line == 0 {
			line = p.lines.Line(p.Table, parts[0])
		}
	}
	if line == 0 {
		line = p.lines.Line(p.Table, "")
	}
	if line == 0 {
		// No params table: the component's own table ("mechanisms[1]").
		line = p.lines.Near(strings.TrimSuffix(p.Table, ".params"), "params")
	}
	return &Error{File: p.File, Line: line, Key: name, Msg: fmt.Sprintf(format, args...)}
}

// TOMLKeys lists the toml keys of the struct v points to, in field order.
func TOMLKeys(v any) []string {
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
			keys = append(keys, TOMLKeys(reflect.New(f.Type).Interface())...)
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
