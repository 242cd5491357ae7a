package scrub

import (
	"slices"
	"strings"
	"testing"

	"dptext/mechanisms"
)

// In this corpus "Alice" is capitalised in mid-sentence three times and "Paris" twice; "Bob"
// only once in mid-sentence (his other mention starts a sentence), below min_name_count = 2.
var scrubCorpus = []string{
	"Yesterday I met Alice and Bob in Paris. We talked with Alice about the weather.",
	"The report from Paris was late. Bob said that Alice would call.",
}

func TestScrubLearnsGazetteer(t *testing.T) {
	s, err := NewScrub(scrubCorpus, DefaultScrubOptions())
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Names(); !slices.Equal(got, []string{"alice", "paris"}) {
		t.Fatalf("gazetteer %q, want [alice paris]", got)
	}
}

func TestScrubTokens(t *testing.T) {
	doc := []string{"alice", "visited", "paris", "1999", "times", "bob"}
	s, err := NewScrub(scrubCorpus, DefaultScrubOptions())
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Apply(nil, doc); !slices.Equal(got, []string{"[name]", "visited", "[name]", "[number]", "times", "bob"}) {
		t.Fatalf("replace: %q", got)
	}
	if d := s.Diagnose(doc, nil); d["scrubbed_names"] != 2 || d["scrubbed_numbers"] != 1 {
		t.Fatalf("diagnostics %v", d)
	}
	if g := s.Guarantee(doc); g.Kind != mechanisms.KindNone {
		t.Fatalf("guarantee %+v, want none", g)
	}
	opts := DefaultScrubOptions()
	opts.Action = ScrubRemove
	s, err = NewScrub(scrubCorpus, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Apply(nil, doc); !slices.Equal(got, []string{"visited", "times", "bob"}) {
		t.Fatalf("remove: %q", got)
	}
}

func TestNewScrubRejectsBadOptions(t *testing.T) {
	cases := []struct {
		modify func(*ScrubOptions)
		want   string
	}{
		{func(o *ScrubOptions) { o.Action = "mask" }, `action = "mask": want "replace" or "remove"`},
		{func(o *ScrubOptions) { o.Detect = []string{"phones"} }, `detect = "phones"`},
		{func(o *ScrubOptions) { o.MinNameCount = 0 }, "min_name_count = 0"},
		{func(o *ScrubOptions) { o.MinCapitalShare = 1.5 }, "min_capital_share = 1.5"},
	}
	for _, c := range cases {
		opts := DefaultScrubOptions()
		c.modify(&opts)
		if _, err := NewScrub(nil, opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
	}
}
