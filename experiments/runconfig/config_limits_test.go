package runconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A config is bounded before the TOML parser sees it: a device such as /dev/zero, a file above
// maxConfigBytes and inline tables nested beyond maxConfigNesting are refused with the file
// (and line) named; every shipped config, and brackets inside strings and comments, pass.
func TestConfigSizeAndNestingAreBoundedBeforeParsing(t *testing.T) {
	shipped, _ := filepath.Glob("../../configs/*.toml")
	if len(shipped) == 0 {
		t.Fatal("no shipped configs found")
	}
	for _, f := range shipped {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkConfigShape(f, string(src)); err != nil {
			t.Errorf("shipped config refused: %v", err)
		}
	}
	if _, err := LoadConfig("/dev/zero"); err == nil || !strings.Contains(err.Error(), "/dev/zero: not a regular file") {
		t.Errorf("/dev/zero: %v", err)
	}
	big := filepath.Join(t.TempDir(), "big.toml")
	if err := os.WriteFile(big, []byte("name = \"x\"\n"+strings.Repeat("# padding\n", maxConfigBytes/10+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(big); err == nil || !strings.Contains(err.Error(), "at most 1048576 bytes") {
		t.Errorf("big config: %v", err)
	}
	deep := "name = \"x\"\n\nx = " + strings.Repeat("{a = ", 10000) + "1" + strings.Repeat("}", 10000) + "\n"
	if _, err := ParseConfig("deep.toml", deep); err == nil || !strings.Contains(err.Error(), "deep.toml:3: arrays and inline tables nest deeper than 16") {
		t.Errorf("10,000 nested inline tables: %v", err)
	}
	ok := "name = \"x\" # [[[[[[[[[[[[[[[[[[[[\ndescription = \"\"\"\n{{{{{{{{{{{{{{{{{{{{{{\n\"\"\"\nlabel = '[[[[[[[[[[[[[[[[[[[[[['\n"
	if err := checkConfigShape("ok.toml", ok); err != nil {
		t.Errorf("brackets in strings and comments counted: %v", err)
	}
}

// A [report] metric name no run writes is refused by the validation `check` and `run` share,
// at its key's line, with the valid names (metric = "bogus" showed "–" in every column;
// privacy_metrics = ["bogus"] silently dropped the privacy table); the shipped configs' names
// pass (TestConfigSizeAndNestingAreBoundedBeforeParsing's loop and `dptext check configs/*`).
// The mutant: without checkReportMetrics every case parses.
func TestReportMetricTyposAreRefused(t *testing.T) {
	base := "name = \"x\"\n[[sets]]\nname = \"a\"\nauthors = 2\n[[mechanisms]]\nname = \"emd\"\nepsilons = [10]\n[[scorers]]\nname = \"sr-nn\"\n[[scorers]]\nname = \"koppel11\"\n[report]\n"
	for _, c := range []struct{ report, want string }{
		{"metric = \"bogus\"\n", `x.toml:13: report.metric: "bogus" is not a scorer metric dptext writes; valid: correct, total, accuracy,`},
		{"privacy_metrics = [\"epsilon_doc\", \"bogus\"]\n", `x.toml:13: report.privacy_metrics: "bogus" is not (privacy_metrics[1]) a privacy or diagnostic metric dptext writes; valid: epsilon_doc,`},
		{"plot_metrics = [\"acuracy\"]\n", `x.toml:13: report.plot_metrics: "acuracy" is not (plot_metrics[0]) a metric dptext writes`},
		{"metric = \"accuracy\"\n[[report.columns]]\nscorer = \"sr-nn\"\nlabel = \"S\"\ntask = \"author\"\nmetric = \"macro-f1\"\n", `x.toml:18: report.columns[0].metric: "macro-f1" is not a scorer metric`},
		{"[report.frontier]\nattack = \"sr-nn\"\nutility = \"koppel11\"\nattack_metric = \"acc\"\n", `x.toml:16: report.frontier.attack_metric: "acc" is not a scorer metric`},
	} {
		_, err := ParseConfig("x.toml", base+c.report)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("[report]\n%s→ %v\nwant %q", c.report, err, c.want)
		}
	}
	for _, good := range []string{"metric = \"relative_macro_f1\"\n", "privacy_metrics = [\"ell_n\", \"unchanged_share\"]\nplot_metrics = [\"accuracy\", \"epsilon_doc\"]\n"} {
		if _, err := ParseConfig("x.toml", base+good); err != nil {
			t.Errorf("[report]\n%s→ %v", good, err)
		}
	}
}

// TestShippedConfigsValidate: every config of configs/ loads and validates as `dptext check`
// reads it — a [report] metric list that names rows another table of the config adds (the
// distinguish_eps_<k> rows of [distinguish]) must be accepted. The mutant: checking
// privacy_metrics against report.PrivacyMetrics alone refuses configs/mechanisms.toml.
func TestShippedConfigsValidate(t *testing.T) {
	shipped, _ := filepath.Glob("../../configs/*.toml")
	for _, f := range shipped {
		if _, err := LoadConfig(f); err != nil {
			t.Errorf("shipped config refused: %v", err)
		}
	}
}

// TestDistinguishRowsAreValidPrivacyMetrics: with [distinguish], privacy_metrics may name the
// rows of its distances, and only those (k = 7 is not a distance of the table).
func TestDistinguishRowsAreValidPrivacyMetrics(t *testing.T) {
	base := "name = \"x\"\n[[sets]]\nname = \"a\"\nauthors = 2\n[[mechanisms]]\nname = \"emd\"\nepsilons = [10]\n[[scorers]]\nname = \"sr-nn\"\n"
	for _, c := range []struct {
		extra string
		ok    bool
	}{
		{"[distinguish]\ndistances = [1, 5]\n[report]\nprivacy_metrics = [\"distinguish_eps_k5_lcb\", \"distinguish_accuracy_k1\"]\n", true},
		{"[distinguish]\ndistances = [1, 5]\n[report]\nprivacy_metrics = [\"distinguish_eps_k7_lcb\"]\n", false},
		{"[report]\nprivacy_metrics = [\"distinguish_eps_k5_lcb\"]\n", false},
	} {
		_, err := ParseConfig("x.toml", base+c.extra)
		if (err == nil) != c.ok {
			t.Errorf("%q: error %v, want ok = %v", c.extra, err, c.ok)
		}
	}
}
