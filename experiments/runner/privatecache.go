package runner

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"dptext/experiments/registry"
	"dptext/experiments/rundir"
	"dptext/internal/filehash"
)

// privateCache keeps privatised documents under a key that covers everything they depend on,
// so that a config differing only in its scorers (hence a new run directory) reuses them
// instead of running its mechanisms again. Files are gzipped JSON, written atomically, after a
// first line holding the SHA-256 of the key and the uncompressed JSON; every read verifies it,
// and an entry that fails is logged and recomputed.
type privateCache struct {
	dir  string
	logf func(string, ...any)
}

// key hashes what the private documents of c depend on: the mechanism (name, registry
// version, behaviour fingerprint, parameters, ε), the seed and the unit's path, the inputs (corpus and embeddings
// hashes, vocabulary, protocol, sets — which fix the split and the training corpus some
// mechanisms learn from) and the documents themselves.
func (r *runner) privateKey(c cell, what string, docs [][]string) string {
	mc := r.cfg.Mechanisms[c.mech]
	params, _ := json.Marshal(mc.ParamsRecord()) // the table as written; map keys are sorted
	h := sha256.New()
	fmt.Fprintf(h, "dptext-private-v3\x00%s\x00%s\x00%s\x00%s\x00%s\x00%d\x00%s/%s\x00",
		mc.Name, registry.Mechanisms[mc.Name].Version, r.behaviour["mechanism/"+mc.ID()], params, c.eps, r.cfg.Seed, r.cellPath(c), what)
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

// privateMagic starts the checksum line of a cache entry.
const privateMagic = "dptext-private-v2 sha256 "

// entrySum hashes the key with the uncompressed content, so that an entry copied under
// another key fails too.
func entrySum(key string, content []byte) string {
	h := sha256.New()
	io.WriteString(h, key)
	h.Write([]byte{0})
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// load returns the cached documents of key, if a verified entry exists. An entry that exists
// but fails verification is logged (and overwritten by the caller's store).
func (pc *privateCache) load(key string, n int) ([][]string, bool) {
	data, err := filehash.ReadRegular(pc.path(key), filehash.MaxStateBytes, "a private cache entry")
	if err != nil {
		return nil, false
	}
	docs, err := decodeEntry(key, data, n)
	if err != nil {
		if pc.logf != nil {
			pc.logf("private cache: entry %s is damaged (%v); recomputing it", pc.path(key), err)
		}
		return nil, false
	}
	return docs, true
}

func decodeEntry(key string, data []byte, n int) ([][]string, error) {
	line, payload, ok := bytes.Cut(data, []byte("\n"))
	if !ok || !bytes.HasPrefix(line, []byte(privateMagic)) {
		return nil, fmt.Errorf("no checksum line")
	}
	zr, err := gzip.NewReader(bytes.NewReader(payload))
	if err != nil {
		return nil, err
	}
	content, err := io.ReadAll(io.LimitReader(zr, filehash.MaxStateBytes+1))
	if err != nil {
		return nil, err
	}
	if len(content) > filehash.MaxStateBytes {
		return nil, fmt.Errorf("decompresses to more than %s", filehash.Bytes(filehash.MaxStateBytes))
	}
	if string(line[len(privateMagic):]) != entrySum(key, content) {
		return nil, fmt.Errorf("checksum mismatch")
	}
	var docs [][]string
	if err := json.Unmarshal(content, &docs); err != nil {
		return nil, err
	}
	if len(docs) != n {
		return nil, fmt.Errorf("%d documents, want %d", len(docs), n)
	}
	return docs, nil
}

func (pc *privateCache) store(key string, docs [][]string) error {
	content, err := json.Marshal(docs)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	buf.WriteString(privateMagic + entrySum(key, content) + "\n")
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(content); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return rundir.WriteFileAtomic(pc.path(key), buf.Bytes())
}
