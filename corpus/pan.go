package corpus

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"dptext/internal/filehash"
)

// PAN layouts recognised by ReadPANProblems.
const (
	// LayoutCDAA is the PAN 2018/2019 cross-domain authorship attribution layout:
	// collection-info.json, and per problem problem-info.json, candidateNNNNN/knownNNNNN.txt,
	// the unknown folder, ground-truth.json (key "ground_truth") and, in 2019, fandom-info.json.
	LayoutCDAA = "pan-cdaa"
	// LayoutMetaFile is the older layout read by the PAN reproducibility code of Koppel et al.'s
	// method: meta-file.json ("folder", "candidate-authors", "unknown-texts"), one folder per
	// candidate, the unknown folder and ground-truth.json (key "ground-truth").
	LayoutMetaFile = "pan-meta-file"
)

// UnknownAuthor is the true author PAN gives open-set unknown texts written by none of the
// candidates. Such texts stay among a problem's unknown texts (an answer file must answer them).
const UnknownAuthor = "<UNK>"

// PANOptions configure ReadPANProblems.
type PANOptions struct {
	// Language keeps only the problems in that language (compared without regard to case, as
	// collection-info.json or meta-file.json give it); the others are skipped and counted.
	// Empty keeps every problem.
	Language string
	// Files, when not nil, records the bytes read for the corpus's fingerprint (see
	// filehash.Recorder).
	Files *filehash.Recorder
}

// PANText is one text of a PAN problem.
type PANText struct {
	File   string // file name inside its folder, e.g. "known00001.txt"
	Text   string
	Author string // candidate of a known text; true author of an unknown one (UnknownAuthor for an open-set text, "" without ground truth)
	Topic  string // fandom from fandom-info.json, "" if not given
}

// PANCandidate is one candidate author with the texts known to be theirs.
type PANCandidate struct {
	Name  string
	Known []PANText
}

// PANProblem is one attribution problem: candidates with known texts and the unknown texts.
type PANProblem struct {
	Name       string // problem folder name (e.g. "problem00001")
	Layout     string // LayoutCDAA or LayoutMetaFile
	Dir        string
	Language   string // from collection-info.json or meta-file.json, "" if not given
	Candidates []PANCandidate
	Unknown    []PANText
	// UnknownFolder is the folder of the unknown texts, relative to Dir.
	UnknownFolder string
	// Skipped counts the stray files left out.
	Skipped Skipped
}

// PANProblemEntry is a problem a PAN collection lists, read from its metadata alone.
type PANProblemEntry struct {
	Name     string // problem folder name
	Dir      string
	Language string // "" if the layout does not give it
	// Missing says why the problem cannot be read ("" when its folder and metadata file exist).
	Missing string
}

// ListPANProblems lists the problems of the PAN collection, problem folder or meta-file.json
// folder at path from its metadata files alone (collection-info.json, and whether each
// problem's folder holds its problem-info.json), without reading a text: what `dptext check`
// can test a config's set names against.
func ListPANProblems(path string) ([]PANProblemEntry, error) {
	problems, err := listPANProblems(nil, path)
	if err != nil {
		return nil, err
	}
	var out []PANProblemEntry
	for _, p := range problems {
		e := PANProblemEntry{Name: p.Name, Dir: p.Dir, Language: p.Language}
		info := filepath.Join(p.Dir, "problem-info.json")
		switch st, err := os.Stat(p.Dir); {
		case p.Layout == LayoutMetaFile:
		case err != nil:
			e.Missing = fmt.Sprintf("its folder %s is missing", p.Dir)
		case !st.IsDir():
			e.Missing = fmt.Sprintf("%s is not a folder", p.Dir)
		case !exists(info):
			e.Missing = fmt.Sprintf("%s is missing", info)
		}
		out = append(out, e)
	}
	return out, nil
}

// listPANProblems lists the problems at path (name, folder, language and layout) from
// collection-info.json, the problem folder itself, or meta-file.json.
func listPANProblems(files *filehash.Recorder, path string) ([]PANProblem, error) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("corpus: %s: the path does not exist", path)
	case err != nil:
		return nil, fmt.Errorf("corpus: %w", err)
	case !info.IsDir():
		return nil, fmt.Errorf("corpus: %s: not a folder: want a PAN collection (collection-info.json), a problem folder (problem-info.json) or a meta-file.json folder", path)
	}
	var problems []PANProblem
	switch {
	case files.Exists(filepath.Join(path, "collection-info.json")):
		var collection []struct {
			Name     string `json:"problem-name"`
			Language string `json:"language"`
		}
		if err := readJSON(files, filepath.Join(path, "collection-info.json"), &collection); err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for i, entry := range collection {
			if entry.Name == "" || strings.ContainsAny(entry.Name, `/\`) || entry.Name == ".." || entry.Name == "." {
				return nil, fmt.Errorf("corpus: %s: entry %d: want a problem folder name in \"problem-name\", got %q",
					filepath.Join(path, "collection-info.json"), i, entry.Name)
			}
			if seen[entry.Name] {
				return nil, fmt.Errorf("corpus: %s: entry %d: problem %q listed twice", filepath.Join(path, "collection-info.json"), i, entry.Name)
			}
			seen[entry.Name] = true
			problems = append(problems, PANProblem{Name: entry.Name, Language: entry.Language, Dir: filepath.Join(path, entry.Name), Layout: LayoutCDAA})
		}
		if len(problems) == 0 {
			return nil, fmt.Errorf("corpus: %s: lists no problem", filepath.Join(path, "collection-info.json"))
		}
	case files.Exists(filepath.Join(path, "problem-info.json")):
		problems = []PANProblem{{Name: filepath.Base(path), Dir: path, Layout: LayoutCDAA}}
	case files.Exists(filepath.Join(path, "meta-file.json")):
		var meta struct {
			Language string `json:"language"`
		}
		if err := readJSON(files, filepath.Join(path, "meta-file.json"), &meta); err != nil {
			return nil, err
		}
		problems = []PANProblem{{Name: filepath.Base(path), Dir: path, Language: meta.Language, Layout: LayoutMetaFile}}
	default:
		return nil, fmt.Errorf("corpus: %s: unknown PAN layout: want collection-info.json, problem-info.json or meta-file.json in this folder", path)
	}
	return problems, nil
}

// ReadPANProblems reads a PAN collection (a folder with collection-info.json), a single
// 2018/2019 problem folder (problem-info.json) or a folder of the older layout (meta-file.json).
// Candidates keep the order of the problem's metadata, known texts are in file-name order, and
// unknown texts are in file-name order (2018/2019) or the order of meta-file.json (older layout).
// Texts must be non-empty UTF-8; ground truth and fandom entries must name existing texts, and
// ground truth must name a candidate or UnknownAuthor. Problems in another language than
// opts.Language are left out and counted in the returned Skipped; a problem whose language is
// not given is an error when opts.Language is set.
func ReadPANProblems(path string, opts PANOptions) ([]PANProblem, Skipped, error) {
	problems, err := listPANProblems(opts.Files, path)
	if err != nil {
		return nil, nil, err
	}
	skipped := Skipped{}
	var out []PANProblem
	for _, p := range problems {
		if opts.Language != "" {
			if p.Language == "" {
				return nil, nil, fmt.Errorf("corpus: %s: the problem's language is not given (only collection-info.json and meta-file.json give it), so language = %q cannot be checked: read the whole collection, or leave language unset",
					p.Dir, opts.Language)
			}
			if !strings.EqualFold(p.Language, opts.Language) {
				skipped.add(fmt.Sprintf("problem in language %q (language = %q)", p.Language, opts.Language))
				continue
			}
		}
		lang := p.Language
		if p.Layout == LayoutCDAA {
			p, err = readCDAAProblem(opts.Files, p.Dir)
		} else {
			p, err = readMetaFileProblem(opts.Files, p.Dir)
		}
		if err != nil {
			return nil, nil, err
		}
		p.Language = lang
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, nil, fmt.Errorf("corpus: %s: no problem in language %q (%s)", path, opts.Language, skipped)
	}
	return out, skipped, nil
}

func readCDAAProblem(files *filehash.Recorder, dir string) (PANProblem, error) {
	var info struct {
		UnknownFolder string              `json:"unknown-folder"`
		Candidates    []panCandidateEntry `json:"candidate-authors"`
	}
	infoPath := filepath.Join(dir, "problem-info.json")
	if err := readJSON(files, infoPath, &info); err != nil {
		return PANProblem{}, err
	}
	if err := checkFolderName(infoPath, "unknown-folder", info.UnknownFolder); err != nil {
		return PANProblem{}, err
	}
	p := PANProblem{Name: filepath.Base(dir), Layout: LayoutCDAA, Dir: dir, UnknownFolder: info.UnknownFolder, Skipped: Skipped{}}
	fandoms, err := readFandoms(files, filepath.Join(dir, "fandom-info.json"))
	if err != nil {
		return PANProblem{}, err
	}
	if p.Candidates, err = readCandidates(files, dir, infoPath, info.Candidates, fandoms, p.Skipped); err != nil {
		return PANProblem{}, err
	}
	unknown, err := readTextFolder(files, filepath.Join(dir, info.UnknownFolder), p.Skipped)
	if err != nil {
		return PANProblem{}, err
	}
	truth, err := readTruth(files, dir, "ground_truth")
	if err != nil {
		return PANProblem{}, err
	}
	for _, u := range unknown {
		u.Topic = fandoms.take("unknown", "", u.File)
		if err := p.addUnknown(u, truth); err != nil {
			return PANProblem{}, err
		}
	}
	if err := unmatched(truth.path, truth.authors); err != nil {
		return PANProblem{}, err
	}
	if err := unmatched(filepath.Join(dir, "fandom-info.json"), fandoms); err != nil {
		return PANProblem{}, err
	}
	return p, nil
}

func readMetaFileProblem(files *filehash.Recorder, dir string) (PANProblem, error) {
	var meta struct {
		Folder     string              `json:"folder"`
		Language   string              `json:"language"`
		Candidates []panCandidateEntry `json:"candidate-authors"`
		Unknown    []struct {
			File string `json:"unknown-text"`
		} `json:"unknown-texts"`
	}
	metaPath := filepath.Join(dir, "meta-file.json")
	if err := readJSON(files, metaPath, &meta); err != nil {
		return PANProblem{}, err
	}
	if err := checkFolderName(metaPath, "folder", meta.Folder); err != nil {
		return PANProblem{}, err
	}
	p := PANProblem{Name: filepath.Base(dir), Layout: LayoutMetaFile, Dir: dir, Language: meta.Language,
		UnknownFolder: meta.Folder, Skipped: Skipped{}}
	candidates, err := readCandidates(files, dir, metaPath, meta.Candidates, nil, p.Skipped)
	if err != nil {
		return PANProblem{}, err
	}
	p.Candidates = candidates
	truth, err := readTruth(files, dir, "ground-truth")
	if err != nil {
		return PANProblem{}, err
	}
	for _, u := range meta.Unknown {
		if err := checkFolderName(metaPath, "unknown-text", u.File); err != nil {
			return PANProblem{}, err
		}
		text, err := readText(files, filepath.Join(dir, meta.Folder, u.File))
		if err != nil {
			return PANProblem{}, err
		}
		if err := p.addUnknown(PANText{File: u.File, Text: text}, truth); err != nil {
			return PANProblem{}, err
		}
	}
	if err := unmatched(truth.path, truth.authors); err != nil {
		return PANProblem{}, err
	}
	return p, nil
}

// panCandidateEntry is a candidate of problem-info.json or meta-file.json.
type panCandidateEntry struct {
	Name string `json:"author-name"`
}

// readCandidates reads each candidate's folder of known texts under dir, in the order of
// entries (from the metadata file metaPath). fandoms gives the known texts' topics (nil: none).
func readCandidates(files *filehash.Recorder, dir, metaPath string, entries []panCandidateEntry, fandoms fandomIndex, skipped Skipped) ([]PANCandidate, error) {
	var candidates []PANCandidate
	for _, c := range entries {
		if err := checkFolderName(metaPath, "author-name", c.Name); err != nil {
			return nil, err
		}
		known, err := readTextFolder(files, filepath.Join(dir, c.Name), skipped)
		if err != nil {
			return nil, err
		}
		for i := range known {
			known[i].Author = c.Name
			known[i].Topic = fandoms.take("known", c.Name, known[i].File)
		}
		candidates = append(candidates, PANCandidate{Name: c.Name, Known: known})
	}
	return candidates, nil
}

// addUnknown adds unknown text u to the problem with its true author from truth, if the problem
// has ground truth (UnknownAuthor for an open-set text); the author must be a candidate.
func (p *PANProblem) addUnknown(u PANText, truth groundTruth) error {
	if truth.authors != nil {
		author, ok := truth.authors[u.File]
		if !ok {
			return fmt.Errorf("corpus: %s: no ground truth for unknown text %q", truth.path, u.File)
		}
		delete(truth.authors, u.File)
		if author != UnknownAuthor && !slices.ContainsFunc(p.Candidates, func(c PANCandidate) bool { return c.Name == author }) {
			return fmt.Errorf("corpus: %s: unknown text %q: true author %q is not a candidate of the problem (want one of the candidates or %q)",
				truth.path, u.File, author, UnknownAuthor)
		}
		u.Author = author
	}
	p.Unknown = append(p.Unknown, u)
	return nil
}

// fandomIndex maps "known/<candidate>/<file>" and "unknown//<file>" to a fandom; entries are
// removed as texts claim them, so that leftovers (naming no text) can be reported.
type fandomIndex map[string]string

func fandomKey(role, candidate, file string) string {
	return role + "/" + candidate + "/" + strings.TrimSuffix(file, ".txt")
}

func (f fandomIndex) take(role, candidate, file string) string {
	key := fandomKey(role, candidate, file)
	topic := f[key]
	delete(f, key)
	return topic
}

// readFandoms reads fandom-info.json: a list of {"known-text", "true-author", "fandom"} and
// {"unknown-text", "fandom"} entries, text names with or without ".txt". A missing file gives
// no fandoms.
func readFandoms(files *filehash.Recorder, path string) (fandomIndex, error) {
	index := fandomIndex{}
	if !files.Exists(path) {
		return index, nil
	}
	var entries []struct {
		Known   string `json:"known-text"`
		Unknown string `json:"unknown-text"`
		Author  string `json:"true-author"`
		Fandom  string `json:"fandom"`
	}
	if err := readJSON(files, path, &entries); err != nil {
		return nil, err
	}
	for i, e := range entries {
		switch {
		case e.Known != "" && e.Author != "":
			index[fandomKey("known", e.Author, e.Known)] = e.Fandom
		case e.Unknown != "":
			index[fandomKey("unknown", "", e.Unknown)] = e.Fandom
		default:
			return nil, fmt.Errorf(`corpus: %s: entry %d: want "known-text" with "true-author", or "unknown-text"`, path, i)
		}
	}
	return index, nil
}

// groundTruth is the true author of each unknown text of a problem, from its ground-truth.json;
// entries are removed as texts claim them, so that leftovers can be reported.
type groundTruth struct {
	path    string
	authors map[string]string // file name → author; nil if the problem has no ground truth
}

// readTruth reads dir/ground-truth.json: {key: [{"unknown-text", "true-author"}, …]}. A missing
// file is not an error (authors = nil); a text named twice with different authors is.
func readTruth(files *filehash.Recorder, dir, key string) (groundTruth, error) {
	truth := groundTruth{path: filepath.Join(dir, "ground-truth.json")}
	if !files.Exists(truth.path) {
		return truth, nil
	}
	var doc map[string][]struct {
		File   string `json:"unknown-text"`
		Author string `json:"true-author"`
	}
	if err := readJSON(files, truth.path, &doc); err != nil {
		return truth, err
	}
	entries, ok := doc[key]
	if !ok {
		return truth, fmt.Errorf("corpus: %s: no %q list", truth.path, key)
	}
	truth.authors = make(map[string]string, len(entries))
	for i, e := range entries {
		if e.File == "" || e.Author == "" {
			return truth, fmt.Errorf(`corpus: %s: entry %d: want "unknown-text" and "true-author"`, truth.path, i)
		}
		if prev, ok := truth.authors[e.File]; ok && prev != e.Author {
			return truth, fmt.Errorf("corpus: %s: entry %d: unknown text %q is given two true authors, %q and %q: want one true author per text", truth.path, i, e.File, prev, e.Author)
		}
		truth.authors[e.File] = e.Author
	}
	return truth, nil
}

// unmatched reports metadata entries that named no text.
func unmatched[V any](path string, left map[string]V) error {
	if len(left) == 0 {
		return nil
	}
	keys := slices.Sorted(maps.Keys(left))
	return fmt.Errorf("corpus: %s: %d entries name no text of the problem, e.g. %q", path, len(left), keys[0])
}

// readTextFolder reads the .txt files of dir in name order; other files are counted in skipped.
func readTextFolder(files *filehash.Recorder, dir string, skipped Skipped) ([]PANText, error) {
	entries, err := files.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	var texts []PANText
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".txt") {
			skipped.add("file or folder without .txt extension in a text folder")
			continue
		}
		text, err := readText(files, filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		texts = append(texts, PANText{File: e.Name(), Text: text})
	}
	return texts, nil
}

func readText(files *filehash.Recorder, path string) (string, error) {
	data, err := files.ReadFile(path, MaxDocumentBytes, documentLimitWhat)
	if err != nil {
		return "", fmt.Errorf("corpus: %w", err)
	}
	text := strings.TrimPrefix(string(data), "\ufeff") // some PAN files start with a byte-order mark
	return text, checkText(path, text)
}

func readJSON(files *filehash.Recorder, path string, v any) error {
	data, err := files.ReadFile(path, maxMetadataBytes, "a PAN metadata file")
	if err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	data = []byte(strings.TrimPrefix(string(data), "\ufeff"))
	if err := json.Unmarshal(data, v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("corpus: %s: invalid JSON at byte offset %d: %v", path, se.Offset, err)
		}
		return fmt.Errorf("corpus: %s: unexpected JSON structure: %v", path, err)
	}
	return nil
}

// checkFolderName rejects names that would leave the problem folder.
func checkFolderName(metaPath, key, name string) error {
	if strings.TrimSpace(name) == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return fmt.Errorf("corpus: %s: %q is %q: want a plain file or folder name", metaPath, key, name)
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
