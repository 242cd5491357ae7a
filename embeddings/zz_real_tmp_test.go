package embeddings

import (
	"os"
	"testing"
	"time"
)

func TestZZRealTiming(t *testing.T) {
	path := os.Getenv("WINK_REAL")
	if path == "" {
		t.Skip()
	}
	start := time.Now()
	s, err := Load(path, FormatWink, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d words dim %d in %v", s.Len(), s.Dim(), time.Since(start))
	if out := os.Getenv("WINK_OUT"); out != "" {
		if err := WriteCache(out, s); err != nil {
			t.Fatal(err)
		}
	}
}
