package attribution

import (
	"encoding/json"
	"flag"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dptext/attackers"
	"dptext/corpus"
	"dptext/corpus/synth"
	"dptext/experiments/registry"
	"dptext/internal/learn"
)

var pan19Collection = flag.String("pan19-collection", "", "write TestPAN19BaselineMatchesThePublishedScript's collection into this folder (to run the published script on it)")

// writeLayoutCollection writes synth.PAN2019() into dir and gives its texts layout, as real
// fan fiction has: two spaces after every full stop, and in every known00001.txt and
// unknown0000N1.txt a non-breaking space after every comma and a line break (CR LF) after
// every 10th full stop — runs of whitespace the baseline's vectorizer reads as one space,
// single whitespace characters it keeps.
func writeLayoutCollection(t *testing.T, dir string) {
	t.Helper()
	if err := synth.WritePAN(dir, synth.PAN2019()); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".txt") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		s := string(data)
		if strings.HasSuffix(path, "1.txt") {
			s = strings.ReplaceAll(s, ", ", ",\u00a0")
			parts := strings.Split(s, ". ")
			var b strings.Builder
			for i, p := range parts {
				b.WriteString(p)
				if i < len(parts)-1 {
					b.WriteString(".")
					if (i+1)%10 == 0 {
						b.WriteString("\r\n")
					} else {
						b.WriteString(" ")
					}
				}
			}
			s = b.String()
		}
		s = strings.ReplaceAll(s, ". ", ".  ")
		return os.WriteFile(path, []byte(s), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// readAnswers reads a PAN answers file into unknown text → predicted author.
func readAnswers(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var list []struct {
		File   string `json:"unknown-text"`
		Author string `json:"predicted-author"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string]string{}
	for _, a := range list {
		out[a.File] = a.Author
	}
	return out
}

// The pan19-baseline attacker reproduces PAN's published baseline. The reference is the
// unchanged pan19-cdaa-baseline-svm.py (pan-webis-de/pan-code, clef19/authorship-attribution)
// run under Debian 12's scikit-learn 1.2.1 (apt-get install python3-sklearn; numpy 1.24.2,
// scipy 1.10.1) on the synthetic PAN 2019-like collection synth.PAN2019() (7 problems, 9
// candidates × 7 known texts, 35 unknown texts each, 245 in all) given layout
// (writeLayoutCollection), by
//
//	go test ./experiments/attribution -run TestPAN19BaselineMatchesThePublishedScript -pan19-collection DIR
//	python3 experiments/attribution/testdata/pan19_reference.py pan19-cdaa-baseline-svm.py DIR OUT
//
// (the wrapper lists files in name order, as dptext does, and records the calibrated
// probabilities); OUT's answers-*.json and probabilities-*.json are committed in
// testdata/pan19-baseline-sklearn. This test rewrites the collection, answers it with
// `dptext attribute`'s code and compares. Measured: all 245 answers equal (the issue asks for
// ≥ 95 %), largest difference of a calibrated probability 3.8e-6 (libsvm stops at tolerance
// 1e-3 and scikit-learn's BFGS at gradient 1e-5, so the last digits differ; an answer would
// differ only where the top two probabilities, or their gap and the 0.1 margin, are that
// close). Deterministic: no false failures. Mutants, each run (answers equal, largest
// probability difference): gamma "auto" (1/features, the default of the 2019 scikit-learn the
// script was written for) 157 of 245, 0.26; 3 calibration folds (the pre-0.22 default) 215,
// 0.16; n-grams seen more than (not at least) 5 times 243, 0.019; runs of whitespace counted as
// written (no collapse) 244, 0.0087; the length of the collapsed text as divisor 245, 2.8e-4 —
// each fails here (bound 1e-4). The collapse itself is tested against Python's re in attackers
// (TestPAN19ReadsWhitespaceAsCountVectorizer).
func TestPAN19BaselineMatchesThePublishedScript(t *testing.T) {
	ref := filepath.Join("testdata", "pan19-baseline-sklearn")
	collection := filepath.Join(t.TempDir(), "pan19")
	if *pan19Collection != "" {
		collection = *pan19Collection
	}
	writeLayoutCollection(t, collection)
	out := t.TempDir()
	_, err := Attribute(AttributeOptions{Input: collection, Output: out, Seed: 1, NewAttacker: func() (learn.Classifier, error) {
		return buildClassifier(t, "pan19-baseline", "", &registry.Env{Workers: 1})
	}})
	if err != nil {
		t.Fatal(err)
	}
	problems, _, err := corpus.ReadPANProblems(collection, corpus.PANOptions{})
	if err != nil {
		t.Fatal(err)
	}
	equal, total, worst := 0, 0, 0.0
	for _, p := range problems {
		want := readAnswers(t, filepath.Join(ref, "answers-"+p.Name+".json"))
		got := readAnswers(t, filepath.Join(out, "answers-"+p.Name+".json"))
		for file, a := range want {
			total++
			if got[file] == a {
				equal++
			} else {
				t.Logf("%s/%s: dptext %q, the script %q", p.Name, file, got[file], a)
			}
		}
		// The calibrated probabilities, text by text.
		clf, err := attackers.NewPAN19(attackers.DefaultPAN19Options())
		if err != nil {
			t.Fatal(err)
		}
		var docs [][]string
		var labels []string
		for _, c := range p.Candidates {
			for _, k := range c.Known {
				docs, labels = append(docs, []string{k.Text}), append(labels, c.Name)
			}
		}
		if err := clf.Fit(nil, docs, labels); err != nil {
			t.Fatal(err)
		}
		var unknown [][]string
		for _, u := range p.Unknown {
			unknown = append(unknown, []string{u.Text})
		}
		probs, err := clf.Probabilities(unknown)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(ref, "probabilities-"+p.Name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var wantProbs [][]float64
		if err := json.Unmarshal(data, &wantProbs); err != nil {
			t.Fatal(err)
		}
		if len(wantProbs) != len(probs) {
			t.Fatalf("%s: %d texts with probabilities, the script %d", p.Name, len(probs), len(wantProbs))
		}
		for i := range probs {
			for k := range probs[i] {
				worst = max(worst, math.Abs(probs[i][k]-wantProbs[i][k]))
			}
		}
	}
	t.Logf("%d of %d answers equal to the script's; largest probability difference %.2g", equal, total, worst)
	if total != 245 || float64(equal) < 0.95*float64(total) {
		t.Errorf("%d of %d answers equal to the published script's: want ≥ 95 %% of 245", equal, total)
	}
	if worst > 1e-4 {
		t.Errorf("calibrated probabilities differ from the script's by up to %v: want ≤ 1e-4", worst)
	}
}
