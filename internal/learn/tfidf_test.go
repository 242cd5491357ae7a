package learn

import (
	"math"
	"slices"
	"strings"
	"testing"
)

var tfidfDocs = [][]string{{"b", "a", "b"}, {"c", "b"}, {"c"}}

func TestTfidfHandComputed(t *testing.T) {
	tf, err := NewTfidf(TfidfOptions{MinDF: 1, Norm: "none"})
	if err != nil {
		t.Fatal(err)
	}
	if err := tf.Fit(tfidfDocs); err != nil {
		t.Fatal(err)
	}
	// n = 3; df(a) = 1, df(b) = 2, df(c) = 2; idf = ln((1+n)/(1+df)) + 1.
	idfA, idfB := math.Log(2)+1, math.Log(4.0/3)+1
	if tf.Len() != 3 || tf.Feature(0) != "a" || tf.Feature(1) != "b" || tf.Feature(2) != "c" {
		t.Fatalf("features not lexicographic: %d", tf.Len())
	}
	if math.Abs(tf.IDF(0)-idfA) > 1e-15 || math.Abs(tf.IDF(1)-idfB) > 1e-15 || tf.IDF(2) != tf.IDF(1) {
		t.Fatalf("idf %v %v %v", tf.IDF(0), tf.IDF(1), tf.IDF(2))
	}
	v := tf.Transform([]string{"b", "a", "b", "zzz"})
	wantVal := []float64{idfA, 2 * idfB}
	if !slices.Equal(v.Index, []int32{0, 1}) || !closeAll(v.Value, wantVal, 1e-15) {
		t.Fatalf("raw tf-idf %+v, want %v", v, wantVal)
	}

	tf, _ = NewTfidf(TfidfOptions{MinDF: 1, Norm: "l2", SublinearTF: true})
	_ = tf.Fit(tfidfDocs)
	v = tf.Transform([]string{"b", "a", "b"})
	a, b := idfA, (1+math.Log(2))*idfB
	norm := math.Hypot(a, b)
	if !closeAll(v.Value, []float64{a / norm, b / norm}, 1e-15) {
		t.Fatalf("sublinear l2 %v", v.Value)
	}
	if got := tf.Transform([]string{"unseen"}); got.Len() != 0 {
		t.Errorf("unknown-only document gave %+v", got)
	}
}

func TestTfidfFeatureSelection(t *testing.T) {
	cases := []struct {
		opts TfidfOptions
		want string
	}{
		{TfidfOptions{MinDF: 2, Norm: "l2"}, "b c"},
		// Total counts: b 3, c 2, a 1.
		{TfidfOptions{MinDF: 1, MaxFeatures: 1, Norm: "l2"}, "b"},
		{TfidfOptions{MinDF: 1, MaxFeatures: 2, Norm: "l2"}, "b c"},
	}
	for _, c := range cases {
		tf, err := NewTfidf(c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := tf.Fit(tfidfDocs); err != nil {
			t.Fatal(err)
		}
		var got []string
		for i := range tf.Len() {
			got = append(got, tf.Feature(i))
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%+v kept %v, want %s", c.opts, got, c.want)
		}
	}
	// Ties in total count go to the feature seen first: x and y both occur twice, y first.
	tf, _ := NewTfidf(TfidfOptions{MinDF: 1, MaxFeatures: 1, Norm: "none"})
	_ = tf.Fit([][]string{{"y", "x"}, {"x", "y"}})
	if tf.Feature(0) != "y" {
		t.Errorf("tie kept %q, want the first seen y", tf.Feature(0))
	}
	tf, _ = NewTfidf(TfidfOptions{MinDF: 5, Norm: "none"})
	if err := tf.Fit(tfidfDocs); err == nil || !strings.Contains(err.Error(), "min_df") {
		t.Errorf("empty vocabulary error = %v", err)
	}
}

func TestTfidfOptionErrors(t *testing.T) {
	bad := map[string]TfidfOptions{
		"min_df":       {MinDF: 0, Norm: "l2"},
		"max_features": {MinDF: 1, MaxFeatures: -1, Norm: "l2"},
		"norm":         {MinDF: 1, Norm: "l1"},
	}
	for key, o := range bad {
		if _, err := NewTfidf(o); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%s: error %v does not name the key", key, err)
		}
	}
	if _, err := NewTfidf(DefaultTfidfOptions()); err != nil {
		t.Errorf("defaults rejected: %v", err)
	}
}

func closeAll(got, want []float64, tol float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > tol {
			return false
		}
	}
	return true
}
