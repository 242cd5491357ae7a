package embeddings

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestZZMutations(t *testing.T) {
	g := winkGenerator{rng: rand.New(rand.NewPCG(9, 9))}
	agree, both := 0, 0
	for i := range 20000 {
		data := g.file(6, 1+g.rng.IntN(3))
		for range 1 + g.rng.IntN(3) {
			j := g.rng.IntN(len(data))
			switch g.rng.IntN(3) {
			case 0:
				alpha := "{}[]\",:\\u0123456789eE+-.tfn \xff\xc3"
				data[j] = alpha[g.rng.IntN(len(alpha))]
			case 1:
				data = append(data[:j:j], data[j+1:]...)
			case 2:
				data = append(data[:j:j], append([]byte{"{}[]\",:\\u01e+-."[g.rng.IntN(15)]}, data[j:]...)...)
			}
		}
		s, err := readWink(bufio.NewReader(bytes.NewReader(data)), "m.json", 0)
		s2, err2 := readWinkChunked(data, 0)
		if (err == nil) != (err2 == nil) {
			t.Fatalf("%d: chunked disagrees: %v vs %v", i, err, err2)
		}
		if err != nil && strings.ReplaceAll(err.Error(), "m.json", "chunked.json") != err2.Error() {
			t.Fatalf("%d: %v vs %v\n%q", i, err, err2, data[75:95])
		}
		jsonOK := json.Valid(data)
		if err == nil {
			both++
			if !jsonOK {
				t.Fatalf("%d: accepted invalid JSON %q", i, data)
			}
			if s.Len() != s2.Len() {
				t.Fatal("len")
			}
		} else if jsonOK {
			agree++
		}
	}
	t.Logf("accepted %d, rejected valid JSON (semantic errors) %d", both, agree)
}
