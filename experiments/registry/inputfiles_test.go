package registry

import (
	"reflect"
	"strings"
	"testing"

	"dptext/internal/configfile"
)

// pathLikeKey says whether a params key names an input file or folder (a *_cache_dir holds
// results derived from the other inputs, checked on reading, not an input).
func pathLikeKey(key string) bool {
	if strings.HasSuffix(key, "_cache_dir") {
		return false
	}
	return key == "model" || strings.HasSuffix(key, "_dir") || strings.HasSuffix(key, "_path") || strings.HasSuffix(key, "_file")
}

// TestMechanismFilesAreDeclared guards the fingerprint: every string option of a registered
// mechanism or scorer that names a file or folder (model, *_dir, *_path, *_file) must be
// declared by the entry's Files, or a run would reuse results after that file changed. Each
// such key is set alone, then with every boolean option switched on (options that only read
// the file when a switch is on, as SynTF's lemmatize); one of the two must list the key.
func TestMechanismFilesAreDeclared(t *testing.T) {
	checked := 0
	for name, e := range Mechanisms {
		checked += checkFilesDeclared(t, "mechanism", name, e.Spec.defaults(), func(p configfile.Params) ([]InputFile, error) {
			o, err := e.Decode(p)
			if err != nil {
				return nil, err
			}
			return o.Files(), nil
		})
	}
	for name, e := range Scorers {
		checked += checkFilesDeclared(t, "scorer", name, e.defaults(), func(p configfile.Params) ([]InputFile, error) {
			o, err := e.Decode(p)
			if err != nil {
				return nil, err
			}
			return o.Files(), nil
		})
	}
	if checked < 2 {
		t.Fatalf("checked %d path options; want at least erae's and ae-dp's model and syntf's wordnet_dir", checked)
	}
}

// checkFilesDeclared checks the path options of one entry (see TestMechanismFilesAreDeclared)
// and returns how many it checked.
func checkFilesDeclared(t *testing.T, kind, name string, defaults any, files func(configfile.Params) ([]InputFile, error)) int {
	t.Helper()
	var paths, switches []string
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				walk(v.Field(i))
				continue
			}
			key, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
			switch {
			case key == "" || key == "-":
			case f.Type.Kind() == reflect.String && pathLikeKey(key):
				paths = append(paths, key)
			case f.Type.Kind() == reflect.Bool:
				switches = append(switches, key)
			}
		}
	}
	walk(reflect.ValueOf(defaults).Elem())
	for _, key := range paths {
		declared := false
		for _, withSwitches := range []bool{false, true} {
			values := []string{key + ` = "some/file"`}
			if withSwitches {
				for _, s := range switches {
					values = append(values, s+" = true")
				}
			}
			fs, err := files(testParams(t, name, strings.Join(values, ", ")))
			if err != nil {
				continue
			}
			for _, f := range fs {
				if f.Key == key && f.Path == "some/file" {
					declared = true
				}
			}
		}
		if !declared {
			t.Errorf("%s %s: option %q names a file but the registry entry's Files does not declare it: return {Key: %q, Role: \"…\", Path: the option's value} from its Spec's Files func (see InputFile), so the file enters the run's fingerprint", kind, name, key, key)
		}
	}
	return len(paths)
}
