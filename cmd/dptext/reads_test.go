package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"dptext/internal/fixtures"
)

// runWithin runs dptext with args and fails the test if it has not returned within 20 s (a
// read of a device or a pipe that does not end).
func runWithin(t *testing.T, args ...string) (int, string) {
	t.Helper()
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, _, stderr := run(t, args...)
		done <- result{code, stderr}
	}()
	select {
	case r := <-done:
		return r.code, r.stderr
	case <-time.After(20 * time.Second):
		t.Fatalf("dptext %s does not return", strings.Join(args, " "))
	}
	return 0, ""
}

// Unbounded inputs stop with an error naming the limit (each was read until out of memory):
// `obfuscate /dev/zero`, `obfuscate < /dev/urandom`, a file above the limit, and `calibrate
// --embeddings /dev/zero`. The mutants, io.ReadAll without the limit and os.Open of the vector
// file, read until the test's deadline (or memory) runs out.
func TestUnboundedInputsAreRefusedNamingTheLimit(t *testing.T) {
	vec := vectorsFile(t, []string{"sea", "land", "sky"})
	const limit = "larger than 4 MiB (4194304 bytes), the limit for one document (corpus.MaxDocumentBytes)"
	if code, stderr := runWithin(t, "obfuscate", "--epsilon", "1", "--embeddings", vec, "/dev/zero"); code != 1 || !strings.Contains(stderr, "/dev/zero: "+limit) {
		t.Errorf("obfuscate /dev/zero: exit %d, %q", code, stderr)
	}
	big := filepath.Join(t.TempDir(), "big.txt")
	os.WriteFile(big, []byte(strings.Repeat("sea land ", 500_000)), 0o644) // 4.5 MB
	if code, stderr := runWithin(t, "obfuscate", "--epsilon", "1", "--embeddings", vec, big); code != 1 || !strings.Contains(stderr, "big.txt: "+limit) {
		t.Errorf("obfuscate of a 4.5 MB file: exit %d, %q", code, stderr)
	}
	urandom, err := os.Open("/dev/urandom")
	if err != nil {
		t.Fatal(err)
	}
	defer urandom.Close()
	saved := os.Stdin
	os.Stdin = urandom
	code, stderr := runWithin(t, "obfuscate", "--epsilon", "1", "--embeddings", vec)
	os.Stdin = saved
	if code != 1 || !strings.Contains(stderr, "standard input: "+limit) {
		t.Errorf("obfuscate < /dev/urandom: exit %d, %q", code, stderr)
	}
	for _, format := range []string{"text", "word2vec-bin", "wink", "cache"} {
		if code, stderr := runWithin(t, "calibrate", "--embeddings", "/dev/zero", "--format", format); code != 1 || !strings.Contains(stderr, "/dev/zero: not a regular file (a device)") {
			t.Errorf("calibrate --embeddings /dev/zero --format %s: exit %d, %q", format, code, stderr)
		}
	}
}

// A named pipe as config is refused at once, as docs/commands.md says non-regular config files are
// (check blocked until Ctrl-C), and so is a config whose corpus is a named pipe: check refuses
// what run would. The mutant, os.Open of the config before it is stat'ed, blocks until the
// test's deadline.
func TestCheckRefusesPipesAtOnce(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "f.toml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stderr := runWithin(t, "check", fifo); code != 1 || !strings.Contains(stderr, "f.toml: not a regular file (a pipe): want a TOML file") {
		t.Errorf("check of a pipe: exit %d, %q", code, stderr)
	}
	corpusFifo := filepath.Join(dir, "corpus.jsonl")
	if err := syscall.Mkfifo(corpusFifo, 0o644); err != nil {
		t.Fatal(err)
	}
	vec := vectorsFile(t, []string{"sea", "land", "sky"})
	cfg := filepath.Join(dir, "c.toml")
	os.WriteFile(cfg, []byte(fixtures.Experiment(corpusFifo, vec)), 0o644)
	if code, stderr := runWithin(t, "check", cfg); code != 1 || !strings.Contains(stderr, "corpus.jsonl: not a regular file (a pipe)") {
		t.Errorf("check of a config whose corpus is a pipe: exit %d, %q", code, stderr)
	}
}

// A file of the kernel's proc file system stats as regular and empty, yet /proc/kmsg blocks
// for ever when read: `check /proc/kmsg`, `run` of a config whose corpus or vectors are
// /proc/kmsg and `calibrate --embeddings /proc/kmsg --format text` hung until killed. They
// are refused at once, naming the file system (the test uses /proc/self/status, which never
// blocks). Mutant: filehash.pseudoFS returning "" — check and calibrate then read the file
// and fail on its content instead (and hang on /proc/kmsg).
func TestProcFilesAreRefused(t *testing.T) {
	const proc = "/proc/self/status"
	const refusal = "not a regular file (a file of the kernel's proc file system"
	if code, stderr := runWithin(t, "check", proc); code != 1 || !strings.Contains(stderr, proc+": "+refusal) {
		t.Errorf("check %s: exit %d, %q", proc, code, stderr)
	}
	dir := t.TempDir()
	corpusPath, vec := fixtures.Corpus(t, 3, 2, 400)
	for name, text := range map[string]string{
		"corpus.toml":  fixtures.Experiment(proc, vec),
		"vectors.toml": fixtures.Experiment(corpusPath, proc),
	} {
		cfg := filepath.Join(dir, name)
		os.WriteFile(cfg, []byte(text), 0o644)
		if code, stderr := runWithin(t, "check", cfg); code != 1 || !strings.Contains(stderr, proc+": "+refusal) {
			t.Errorf("check %s: exit %d, %q", name, code, stderr)
		}
	}
	if code, stderr := runWithin(t, "calibrate", "--embeddings", proc, "--format", "text"); code != 1 || !strings.Contains(stderr, proc+": "+refusal) {
		t.Errorf("calibrate --embeddings %s: exit %d, %q", proc, code, stderr)
	}
}

// privacy's --epsilons are held to the mechanism's ε range, as calibrate's, obfuscate's and a
// config's are: `privacy --epsilons 1e308` printed εn = +Inf and exit 0. Mutant: no
// Epsilons.Check in cmdPrivacy — the command goes on to load vectors and exits 0.
func TestPrivacyEpsilonsAreBounded(t *testing.T) {
	vec := vectorsFile(t, []string{"sea", "land", "sky"})
	for _, eps := range []string{"1e308", "1e13"} {
		if code, stderr := runWithin(t, "privacy", "--embeddings", vec, "--format", "text", "--epsilons", eps); code != 2 || !strings.Contains(stderr, "want a number in [1e-12, 1e+12]") {
			t.Errorf("privacy --epsilons %s: exit %d, %q", eps, code, stderr)
		}
	}
}
