package corpus

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"dptext/internal/filehash"
)

// Every reader reads and lists through the Recorder it is given: the corpus's hash is then
// Sum's hash of what was parsed, and a parsed file edited after it was read (before the hash is
// taken) is refused rather than fingerprinted with content the documents do not come from.
// The mutant, a reader reading a file with os.ReadFile, passes that file's edit unnoticed:
// each parsed file of each format is edited in turn.
func TestReadersRecordEveryFileTheyRead(t *testing.T) {
	sotu := func(year, name, party string) string {
		return `{"year":` + year + `,"name":"` + name + `","party":"` + party + `","text":"Fellow citizens ` + year + `"}`
	}
	formats := []struct {
		name   string
		tree   func(t *testing.T) string
		read   func(root string, files *filehash.Recorder) error
		parsed []string // files the reader parses, relative to the root
	}{
		{"jsonl", func(t *testing.T) string {
			return writeTree(t, map[string]string{"c.jsonl": `{"author":"ann","text":"one"}` + "\n" + `{"author":"bob","text":"two"}` + "\n"})
		}, func(root string, files *filehash.Recorder) error {
			_, _, err := ReadJSONL(root, JSONLOptions{Files: files})
			return err
		}, nil},
		{"dir", func(t *testing.T) string {
			return writeTree(t, map[string]string{"t/ann/1.txt": "one", "t/bob/2.txt": "two", "notes.md": "skipped"})
		}, func(root string, files *filehash.Recorder) error {
			_, _, err := ReadDir(root, DirOptions{Files: files})
			return err
		}, []string{"t/ann/1.txt", "t/bob/2.txt"}},
		{"sotu", func(t *testing.T) string {
			return writeTree(t, map[string]string{
				"1790_george_washington_n.json": sotu("1790", "George Washington", "none"),
				"1790_george_washington_n.txt":  "twin",
				"1862_abraham_lincoln_r.json":   sotu("1862", "Abraham Lincoln", "Republican"),
			})
		}, func(root string, files *filehash.Recorder) error {
			opts := DefaultSOTUOptions()
			opts.Files = files
			_, _, err := ReadSOTU(root, opts)
			return err
		}, []string{"1790_george_washington_n.json", "1862_abraham_lincoln_r.json"}},
		{"pan", cdaaCollection, func(root string, files *filehash.Recorder) error {
			_, _, err := ReadPAN(root, PANOptions{Files: files})
			return err
		}, []string{"collection-info.json", "problem00001/problem-info.json", "problem00001/candidate00001/known00001.txt",
			"problem00001/unknown/unknown00003.txt", "problem00001/ground-truth.json", "problem00001/fandom-info.json"}},
		{"pan meta-file", metaFileCorpus, func(root string, files *filehash.Recorder) error {
			_, _, err := ReadPAN(root, PANOptions{Files: files})
			return err
		}, []string{"meta-file.json", "Austen/a.txt", "unknown/u2.txt", "ground-truth.json"}},
	}
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			root := f.tree(t)
			input := root
			if f.name == "jsonl" {
				input = filepath.Join(root, "c.jsonl")
			}
			files := NewRecorder(input)
			if err := f.read(input, files); err != nil {
				t.Fatal(err)
			}
			got, _, err := files.Sum()
			want, _, _ := filehash.Sum(input)
			if err != nil || got != want {
				t.Fatalf("unchanged: Recorder's hash %s, %v; want Sum's %s", got, err, want)
			}
			if f.name == "jsonl" {
				// One file: its hash is of the bytes read, whatever the path holds now.
				os.WriteFile(input, []byte(`{"author":"eve","text":"other"}`+"\n"), 0o644)
				if again, _, err := files.Sum(); err != nil || again != want {
					t.Errorf("after the file was replaced: %s, %v; want the hash of the bytes read %s", again, err, want)
				}
				return
			}
			for _, rel := range f.parsed {
				root := f.tree(t)
				files := NewRecorder(root)
				if err := f.read(root, files); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(root, filepath.FromSlash(rel))
				data, _ := os.ReadFile(path)
				os.WriteFile(path, append(data, ' '), 0o644)
				_, _, err := files.Sum()
				var ce *filehash.ChangedError
				if !errors.As(err, &ce) || !strings.Contains(err.Error(), filepath.Base(rel)) {
					t.Errorf("%s edited after it was read: %v, want a ChangedError naming it", rel, err)
				}
			}
		})
	}
	// A file the reader looked for and did not find (fandom-info.json) appearing before the
	// hash is taken is refused too: the documents were read without it.
	root := cdaaCollection(t)
	fandoms := filepath.Join(root, "problem00001", "fandom-info.json")
	os.Remove(fandoms)
	files := NewRecorder(root)
	if _, _, err := ReadPAN(root, PANOptions{Files: files}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(fandoms, []byte(`[]`), 0o644)
	if _, _, err := files.Sum(); err == nil || !strings.Contains(err.Error(), "fandom-info.json") {
		t.Errorf("fandom-info.json appearing after the read: %v, want an error naming it", err)
	}
}

// A JSON Lines corpus at /dev/zero, at a link to it, or at a named pipe is refused at once
// (it was read until out of memory, or blocked until Ctrl-C), a file above MaxCorpusBytes
// before it is read; a line longer than MaxDocumentBytes is refused naming the limit (the
// mutant, bufio.Reader.ReadBytes, reads a line without newlines whole), as is a "dir" document
// above it, while a line just under the limit is read.
func TestReadersBoundTheirReads(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "zero.jsonl")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for path, kind := range map[string]string{"/dev/zero": "a device", link: "a device", fifo: "a pipe"} {
		done := make(chan error, 1)
		go func() { _, _, err := ReadJSONL(path, JSONLOptions{}); done <- err }()
		select {
		case err := <-done:
			wantErr(t, err, path, "not a regular file ("+kind+")")
		case <-time.After(10 * time.Second):
			t.Fatalf("ReadJSONL(%s) does not return", path)
		}
	}

	// A file above MaxCorpusBytes (sparse: it takes no disk) is refused before it is read.
	huge := filepath.Join(dir, "huge.jsonl")
	if err := os.WriteFile(huge, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, MaxCorpusBytes+1); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, _, err := ReadJSONL(huge, JSONLOptions{})
	wantErr(t, err, "huge.jsonl: larger than 2 GiB (2147483648 bytes), the limit for a corpus file or folder (corpus.MaxCorpusBytes)")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("refusing a file above the limit took %s: it was read", d)
	}

	text := func(n int) string { return `{"author":"ann","text":"` + strings.Repeat("w ", n/2) + `"}` + "\n" }
	long := filepath.Join(dir, "long.jsonl")
	os.WriteFile(long, []byte(text(10)+text(MaxDocumentBytes)), 0o644)
	_, _, err = ReadJSONL(long, JSONLOptions{})
	wantErr(t, err, "long.jsonl:2", "longer than 4 MiB (4194304 bytes), the limit for one document")
	os.WriteFile(long, []byte(text(10)+text(MaxDocumentBytes-100)), 0o644)
	if docs, _, err := ReadJSONL(long, JSONLOptions{}); err != nil || len(docs) != 2 {
		t.Errorf("a line just under the limit: %d documents, %v", len(docs), err)
	}

	// A 50 MB one-line document (it took 2.4 GB) is refused having allocated a few times the
	// limit at most.
	os.WriteFile(long, []byte(text(50<<20)), 0o644)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, _, err = ReadJSONL(long, JSONLOptions{})
	runtime.ReadMemStats(&after)
	wantErr(t, err, "long.jsonl:1", "the limit for one document")
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8*MaxDocumentBytes {
		t.Errorf("refusing a 50 MB line allocated %d bytes, want at most %d", alloc, 8*MaxDocumentBytes)
	}

	root := writeTree(t, map[string]string{"t/ann/1.txt": "one", "t/bob/2.txt": strings.Repeat("w ", MaxDocumentBytes/2+1)})
	_, _, err = ReadDir(root, DirOptions{})
	wantErr(t, err, "2.txt", "the limit for one document (corpus.MaxDocumentBytes)")
}
