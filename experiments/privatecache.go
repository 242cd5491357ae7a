package experiments

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"dptext/report"
)

// privateCache keeps privatised documents under a key that covers everything they depend on,
// so that a config differing only in its scorers (hence a new run directory) reuses them
// instead of running its mechanisms again. Files are gzipped JSON, written atomically.
type privateCache struct{ dir string }

// key hashes what the private documents of c depend on: the mechanism (name, registry
// version, parameters, ε), the seed and the unit's path, the inputs (corpus and embeddings
// hashes, vocabulary, protocol, sets — which fix the split and the training corpus some
// mechanisms learn from) and the documents themselves.
func (r *runner) privateKey(c cell, what string, docs [][]string) string {
	mc := r.cfg.Mechanisms[c.mech]
	params, _ := json.Marshal(mc.Params) // map keys are sorted
	h := sha256.New()
	fmt.Fprintf(h, "dptext-private-v1\x00%s\x00%s\x00%s\x00%s\x00%d\x00%s/%s\x00",
		mc.Name, Mechanisms[mc.Name].Version, params, report.FormatEpsilon(c.eps), r.cfg.Seed, r.cellPath(c), what)
	for _, in := range r.in.inputs {
		fmt.Fprintf(h, "%s=%s\x00", in.Role, in.SHA256)
	}
	fmt.Fprintf(h, "%+v\x00%+v\x00%+v\x00", r.cfg.Embeddings, r.cfg.Protocol, r.cfg.Sets)
	for _, d := range docs {
		for _, w := range d {
			io.WriteString(h, w)
			h.Write([]byte{0})
		}
		h.Write([]byte{1})
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (pc *privateCache) path(key string) string {
	return filepath.Join(pc.dir, key[:2], key+".json.gz")
}

// load returns the cached documents of key, if a readable entry exists.
func (pc *privateCache) load(key string, n int) ([][]string, bool) {
	f, err := os.Open(pc.path(key))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, false
	}
	var docs [][]string
	if err := json.NewDecoder(zr).Decode(&docs); err != nil || len(docs) != n {
		return nil, false
	}
	return docs, true
}

func (pc *privateCache) store(key string, docs [][]string) error {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(docs); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return writeFileAtomic(pc.path(key), buf.Bytes())
}
