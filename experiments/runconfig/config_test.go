package runconfig

import (
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"dptext/experiments/registry"
	"dptext/experiments/report"
)

const validConfig = `name = "t"
seed = 1

[corpus]
format = "sotu"

[[sets]]
name = "4"
authors = 4

[[mechanisms]]
name = "none"

[[mechanisms]]
name = "expmech"
epsilons = [30, 10]
[mechanisms.params]
rating = "embedding"

[[scorers]]
name = "sr-nn"
`

func TestValidConfigParses(t *testing.T) {
	cfg, err := ParseConfig("ok.toml", validConfig)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckComponents(cfg); err != nil {
		t.Fatal(err)
	}
	if got := Describe(cfg); !strings.Contains(got, "3 cells") {
		t.Errorf("Describe = %q", got)
	}
	// Without [report] columns, every scorer becomes a column.
	if len(cfg.Report.Columns) != 1 || cfg.Report.Columns[0].Scorer != "sr-nn" || cfg.Report.Columns[0].Task != registry.TaskAuthor {
		t.Errorf("default columns %+v", cfg.Report.Columns)
	}
}

// Each bad config must give an error naming the file, the line and the key, and saying what
// would be valid.
func TestBadConfigsNameFileLineAndKey(t *testing.T) {
	cases := []struct {
		name, old, new string
		want           []string
	}{
		{"misspelt key", "seed = 1", "sed = 1", []string{"bad.toml:2:", "sed", "unknown key", "seed"}},
		{"misspelt table key", `format = "sotu"`, `fromat = "sotu"`, []string{"bad.toml:5:", "corpus.fromat", "format"}},
		{"unknown mechanism", `name = "expmech"`, `name = "emdd"`, []string{"bad.toml:15:", "mechanisms[1].name", `unknown mechanism "emdd"`, "none"}},
		{"zero epsilon", "epsilons = [30, 10]", "epsilons = [30, 0]", []string{"bad.toml:16:", "epsilons", "finite number > 0"}},
		{"nan epsilon", "epsilons = [30, 10]", "epsilons = [nan, 10]", []string{"bad.toml:16:", "NaN", "finite number > 0"}},
		{"negative epsilon", "epsilons = [30, 10]", "epsilons = [-1]", []string{"bad.toml:16:", "finite number > 0"}},
		{"string epsilon", "epsilons = [30, 10]", `epsilons = ["a", 10]`, []string{"bad.toml:16:", "mechanisms[1].epsilons", `"a" (a string): want a number`}},
		{"epsilon for none", `name = "none"`, "name = \"none\"\nepsilons = [1]", []string{"bad.toml:13:", "takes no ε"}},
		{"unknown parameter", `rating = "embedding"`, `ratting = "embedding"`, []string{"bad.toml:18:", "mechanisms[1].params.ratting", "unknown parameter", "rating"}},
		{"unknown nested parameter", `rating = "embedding"`, "rating = \"embedding\"\n[mechanisms.params.language_model]\nordr = 3", []string{"mechanisms[1].params.language_model", `"language_model.ordr"`, "unknown parameter"}},
		{"bad parameter value", `rating = "embedding"`, `rating = "embeddings"`, []string{"mechanisms[1].params", "embeddings", "context"}},
		{"bad parameter type", `rating = "embedding"`, `rating = 3`, []string{"bad.toml:18:", "mechanisms[1].params.rating"}},
		{"missing corpus path", `format = "sotu"`, `format = "jsonl"`, []string{"corpus.path", "missing"}},
		// Mutant: no path check for a dataset format — check said ok and run read the default
		// SOTU corpus under a config naming /dev/zero (or any other file) as its corpus.
		{"path with the sotu dataset", `format = "sotu"`, "format = \"sotu\"\npath = \"my-sotu.jsonl\"", []string{"bad.toml:6:", "corpus.path", `format "sotu" reads the sotu dataset`, `"dir"`}},
		// Mutant: no kind check after filehash.CheckInput — check said ok to each, run refused.
		{"jsonl corpus at a folder", `format = "sotu"`, "format = \"jsonl\"\npath = \".\"", []string{"bad.toml:6:", "corpus.path", `is a folder: format "jsonl" reads a file`}},
		{"dir corpus at a file", `format = "sotu"`, "format = \"dir\"\npath = \"config.go\"", []string{"bad.toml:6:", "corpus.path", `is a file: format "dir" reads a folder`}},
		{"pan corpus at a file", `format = "sotu"`, "format = \"pan\"\npath = \"config.go\"", []string{"bad.toml:6:", "corpus.path", `is a file: format "pan" reads a folder`}},
		{"vectors at a folder", `format = "sotu"`, "format = \"sotu\"\n[embeddings]\nformat = \"text\"\npath = \".\"", []string{"bad.toml:8:", "embeddings.path", "is a folder: want a vector file"}},
		{"corpus path not there", `format = "sotu"`, "format = \"jsonl\"\npath = \"nowhere.jsonl\"", []string{"bad.toml:6:", "corpus.path", "nowhere.jsonl"}},
		{"malformed toml", `name = "4"`, `name = "4`, []string{"bad.toml:8:"}},
		{"too few authors", "authors = 4", "authors = 1", []string{"bad.toml:9:", "sets[0].authors", "at least 2"}},
		{"unknown scorer", `name = "sr-nn"`, `name = "koppel"`, []string{"bad.toml:21:", "unknown scorer", "sr-nn"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(validConfig, c.old, c.new, 1)
			if src == validConfig {
				t.Fatalf("replacement %q not found", c.old)
			}
			cfg, err := ParseConfig("bad.toml", src)
			if err == nil {
				err = CheckComponents(cfg)
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if n := strings.Count(err.Error(), "\n"); n > 20 {
				t.Errorf("error is %d lines long", n)
			}
		})
	}
}

// Two components' params tables share one key path (mechanisms.params), so a key one
// component decodes must still be refused in another whose options lack it: here none takes
// order and expmech does not. The mutant is the decoder's own strictness check, which keys by
// that shared path: decoding none's table marks "mechanisms.params.order" decoded for both.
func TestParamsStrictnessIsPerComponent(t *testing.T) {
	src := strings.Replace(validConfig, "[[mechanisms]]\nname = \"none\"\n", "[[mechanisms]]\nname = \"none\"\n[mechanisms.params]\norder = \"bag\"\n", 1)
	src = strings.Replace(src, `rating = "embedding"`, "rating = \"embedding\"\norder = \"bag\"", 1)
	_, err := ParseConfig("bad.toml", src)
	if err == nil || !strings.Contains(err.Error(), `bad.toml:21: mechanisms[1].params.order: unknown parameter "order" of expmech`) {
		t.Fatalf("got %v, want expmech's order refused at line 21", err)
	}
	// The mutant: BurntSushi/toml's Undecoded after decoding both tables finds nothing left.
	var doc struct {
		Mechanisms []struct {
			Params toml.Primitive `toml:"params"`
		} `toml:"mechanisms"`
	}
	md, err := toml.Decode(src, &doc)
	if err != nil {
		t.Fatal(err)
	}
	var none struct {
		Order string `toml:"order"`
	}
	var exp struct {
		Rating string `toml:"rating"`
	}
	if err := md.PrimitiveDecode(doc.Mechanisms[0].Params, &none); err != nil {
		t.Fatal(err)
	}
	if err := md.PrimitiveDecode(doc.Mechanisms[1].Params, &exp); err != nil {
		t.Fatal(err)
	}
	for _, k := range md.Undecoded() {
		if k.String() == "mechanisms.params.order" {
			t.Fatalf("the decoder's Undecoded reports %v: the shared key path no longer hides it, unknownKeys may be unneeded", k)
		}
	}
}

// Command-line params are the body of a TOML inline table: values are typed as in a config,
// dotted keys reach nested tables, and bad text or an unknown key names what is valid.
func TestParseParamsFromTheCommandLine(t *testing.T) {
	o, err := registry.DecodeMechanism("expmech", report.EpsilonOf(5), `rating = "context", language_model.order = 2`)
	if err != nil || !o.Needs().LanguageModel {
		t.Fatalf("got %v, %v; want a context rating with a language model", o, err)
	}
	for body, want := range map[string]string{
		`rating = `:                  `command line: params: "rating = ": `,
		`ratting = "embedding"`:      `command line: params.ratting: unknown parameter "ratting" of expmech; valid: `,
		`language_model.ordr = 2`:    `command line: params.language_model.ordr: unknown parameter`,
		`candidates = "many"`:        `command line: params.candidates: `,
		`candidates = 9999999999999`: `command line: params.candidates: 9999999999999: at most`,
		`rating = "a", rating = "b"`: `command line: params: `,
	} {
		if _, err := registry.DecodeMechanism("expmech", report.EpsilonOf(5), body); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: got %v, want %q…", body, err, want)
		}
	}
}
