package corpus

import (
	"strings"
	"testing"
)

// panReuseWriters is the true writer of every named text of testdata/pan19-reuse (see its
// README): candidates by problem, and the open-set texts whose writer is a candidate elsewhere.
var panReuseWriters = map[string]string{
	"problem00001/candidate00001": "W1", "problem00001/candidate00002": "W2", "problem00001/candidate00003": "W3",
	"problem00002/candidate00001": "W6", "problem00002/candidate00002": "W1", "problem00002/candidate00003": "W4",
	"problem00003/candidate00001": "W2", "problem00003/candidate00002": "W5", "problem00003/candidate00003": "W7",
}

// writerOf is the true writer of a document of testdata/pan19-reuse, "" for an open-set text
// whose writer is known nowhere else.
func writerOf(d Document) string {
	switch d.ID {
	case "problem00001/unknown/unknown00005.txt":
		return "W5"
	case "problem00002/unknown/unknown00004.txt":
		return "W7"
	case "problem00003/unknown/unknown00004.txt":
		return "W3"
	}
	p := d.Meta["problem"]
	if d.Meta["role"] == "known" {
		return panReuseWriters[p+"/"+strings.Split(d.ID, "/")[1]]
	}
	return map[string]string{ // unknown texts with a candidate as true author
		"problem00001/unknown/unknown00001.txt": "W1", "problem00001/unknown/unknown00002.txt": "W2",
		"problem00001/unknown/unknown00003.txt": "W3", "problem00001/unknown/unknown00006.txt": "W1",
		"problem00002/unknown/unknown00001.txt": "W6", "problem00002/unknown/unknown00002.txt": "W1",
		"problem00002/unknown/unknown00003.txt": "W4", "problem00002/unknown/unknown00005.txt": "W6",
		"problem00003/unknown/unknown00001.txt": "W2", "problem00003/unknown/unknown00002.txt": "W5",
		"problem00003/unknown/unknown00003.txt": "W7",
	}[d.ID]
}

// TestReadPANMergesReusedWriters reads a collection whose writers recur across problems under
// other candidate names (byte-identical texts) and checks that two named documents have the
// same Author exactly when they have the same writer, that open-set texts by nobody known stay
// open-set, and that every merge is recorded. Without the merge (the reader before issue 25)
// W1, W2, W5 and W7 have two authors each and the test fails.
func TestReadPANMergesReusedWriters(t *testing.T) {
	docs, skipped, err := ReadPAN("testdata/pan19-reuse", PANOptions{})
	if err != nil {
		t.Fatal(err)
	}
	authorOf := map[string]string{} // writer → Author
	writerOfAuthor := map[string]string{}
	for _, d := range docs {
		w := writerOf(d)
		if w == "" {
			if !OpenSetAuthor(d.Author) {
				t.Errorf("%s: open-set text by a writer known nowhere else got author %q", d.ID, d.Author)
			}
			continue
		}
		if OpenSetAuthor(d.Author) {
			t.Errorf("%s: writer %s is a candidate elsewhere, but the text stayed open-set", d.ID, w)
			continue
		}
		if a, ok := authorOf[w]; ok && a != d.Author {
			t.Errorf("writer %s appears as two authors: %q and %q (%s)", w, a, d.Author, d.ID)
		}
		if o, ok := writerOfAuthor[d.Author]; ok && o != w {
			t.Errorf("author %q holds two writers: %s and %s (%s)", d.Author, o, w, d.ID)
		}
		authorOf[w], writerOfAuthor[d.Author] = d.Author, w
	}
	if len(authorOf) != 7 {
		t.Errorf("%d named writers, want 7: %v", len(authorOf), authorOf)
	}
	// The name kept is the one read first.
	for w, want := range map[string]string{"W1": "problem00001/candidate00001", "W2": "problem00001/candidate00002",
		"W5": "problem00003/candidate00002", "W7": "problem00003/candidate00003"} {
		if authorOf[w] != want {
			t.Errorf("writer %s is %q, want %q", w, authorOf[w], want)
		}
	}
	var merges []string
	for reason := range skipped {
		if strings.Contains(reason, "merged as") || strings.Contains(reason, "open-set text") {
			merges = append(merges, reason)
		}
	}
	// W1's three shared texts and W2's one merge two pairs of authors (one record each); three
	// open-set texts are found to be a candidate's.
	if len(merges) != 5 || skipped[reasonDuplicate] != 7 {
		t.Errorf("recorded %d merges and %d duplicates, want 5 and 7: %v", len(merges), skipped[reasonDuplicate], skipped)
	}
}

// TestFinishMergesChains merges three authors linked by two shared texts into the first, and
// leaves an open-set placeholder shared by two texts unmerged.
func TestFinishMergesChains(t *testing.T) {
	docs := []Document{
		{ID: "1", Author: "a", Text: "x"}, {ID: "2", Author: "b", Text: "y"}, {ID: "3", Author: "c", Text: "z"},
		{ID: "4", Author: "c", Text: "y"}, {ID: "5", Author: "b", Text: "x"},
		{ID: "6", Author: "p/<UNK>", Text: "u"}, {ID: "7", Author: "p/<UNK>", Text: "v"}, {ID: "8", Author: "d", Text: "v"},
	}
	skipped := Skipped{}
	out := finish(docs, skipped)
	got := map[string]string{}
	for _, d := range out {
		got[d.ID] = d.Author
	}
	want := map[string]string{"1": "a", "2": "a", "3": "a", "6": "p/<UNK>", "7": "d"}
	if len(got) != len(want) {
		t.Fatalf("kept %v, want %v", got, want)
	}
	for id, a := range want {
		if got[id] != a {
			t.Errorf("document %s: author %q, want %q (all: %v)", id, got[id], a, got)
		}
	}
}
