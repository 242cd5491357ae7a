package rundir

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"dptext/experiments/report"
	"dptext/internal/filehash"
)

// cellFormat is the version of the cell file layout; files of other versions are recomputed.
const cellFormat = 3

// CellRecord is the content of one finished file in cells/: a cell's rows, its per-document
// predictions and term vectors, and the fingerprint of everything it was computed from.
type CellRecord struct {
	Format int `json:"format"`
	// Fingerprint is the hash of the run's fingerprint (config, versions, seed, inputs).
	Fingerprint string `json:"fingerprint"`
	// Cell is the cell's path (set=…/mech=…/eps=…/rep=…), checked on reading so that a file
	// is never taken for another cell's.
	Cell string `json:"cell"`
	// Rows is the results.csv text of the cell's rows (header included).
	Rows string `json:"rows"`
	// Predictions are the scorers' answers for each evaluation document.
	Predictions []Prediction `json:"predictions,omitempty"`
	// TF is the tf/ file of a mechanism that releases term-frequency vectors.
	TF string `json:"tf,omitempty"`
	// Time is where the cell's computation spent its wall time (absent in fit files). It is
	// a measurement of the machine, not a result: nothing compared for determinism reads it.
	Time *CellTime `json:"time,omitempty"`
}

// CellTime is the wall time one cell's computation spent in each phase, and the words its
// mechanism released.
type CellTime struct {
	// PhaseSeconds is the wall time in each phase ("mechanisms", "private cache",
	// "privacy and diagnostics", "distinguish", "utility", "fit", "predict", "build
	// mechanisms"), seconds. A mechanism or classifier built or fitted once and shared by
	// several cells counts in every cell that waited for it.
	PhaseSeconds map[string]float64 `json:"phase_seconds"`
	// WordsReleased counts the words the mechanism released in applications computed by
	// this cell (not read from the private cache): divided by PhaseSeconds["mechanisms"], its
	// speed.
	WordsReleased int `json:"words_released"`
}

// Prediction is one scorer's answer for one evaluation document: a classifier's label, or a
// utility measure's value.
type Prediction struct {
	Scorer     string `json:"scorer"`
	Document   string `json:"document"`
	Truth      string `json:"truth"`
	Prediction string `json:"prediction"`
	// Item is the document's position among the draw's evaluation documents: within a repeat
	// every mechanism and ε is scored on the same items, so rows are compared item by item.
	Item int `json:"item"`
	// Author is the item's author, the cluster the bootstrap resamples.
	Author string `json:"author"`
	// Value is a utility measure's value for the item (strconv 'g' form, "NaN" when the
	// measure cannot score it); empty for classifiers.
	Value string `json:"value,omitempty"`
}

// cellTrailer starts the last line of a cell file, which holds the SHA-256 of everything
// before it: a file cut short or altered fails the check and is not taken as finished.
const cellTrailer = "sha256 "

// CellFile is the file name of a cell path: a readable form followed by a hash of the exact
// path, so that two paths never share a file (labels "x=y" and "x-y" read alike).
func CellFile(path string) string {
	readable := strings.NewReplacer("/", "__", "=", "-").Replace(path)
	readable = strings.Map(func(r rune) rune {
		if r == '.' || r == '_' || r == '-' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') {
			return r
		}
		return '_'
	}, readable)
	if len(readable) > 120 {
		readable = readable[:120]
	}
	sum := sha256.Sum256([]byte(path))
	return readable + "." + hex.EncodeToString(sum[:6]) + ".cell"
}

// WriteCell writes rec to path atomically, with its checksum line.
func WriteCell(path string, rec *CellRecord) error {
	rec.Format = cellFormat
	body, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(body)
	var buf bytes.Buffer
	buf.Write(body)
	buf.WriteString("\n" + cellTrailer + hex.EncodeToString(sum[:]) + "\n")
	return WriteFileAtomic(path, buf.Bytes())
}

// ErrNoCell: the cell file does not exist.
var ErrNoCell = errors.New("no cell file")

// ReadCell reads and verifies a cell file: its checksum, format and that it holds the cell
// path. It returns ErrNoCell when there is no file, and another error when the file is not a
// complete cell file.
func ReadCell(file, cellPath string) (*CellRecord, error) {
	body, _, err := readVerified(file)
	if err != nil {
		return nil, err
	}
	return parseCell(body, cellPath)
}

// readVerified reads a cell file and checks its checksum line; it returns the body before that
// line and its SHA-256.
func readVerified(file string) (body []byte, sum [sha256.Size]byte, err error) {
	data, err := filehash.ReadRegular(file, filehash.MaxStateBytes, "a cell file")
	if os.IsNotExist(err) {
		return nil, sum, ErrNoCell
	}
	if err != nil {
		return nil, sum, err
	}
	body, sumLine, ok := bytes.Cut(data, []byte("\n"+cellTrailer))
	if !ok || !bytes.HasSuffix(sumLine, []byte("\n")) {
		return nil, sum, fmt.Errorf("no checksum line (the file was cut short)")
	}
	want, err := hex.DecodeString(strings.TrimSpace(string(sumLine)))
	sum = sha256.Sum256(body)
	if err != nil || !bytes.Equal(want, sum[:]) {
		return nil, sum, fmt.Errorf("checksum mismatch (the file was altered or cut short)")
	}
	return body, sum, nil
}

// parseCell decodes a verified body and checks its format and cell path.
func parseCell(body []byte, cellPath string) (*CellRecord, error) {
	rec := &CellRecord{}
	if err := json.Unmarshal(body, rec); err != nil {
		return nil, fmt.Errorf("not a cell file: %v", err)
	}
	if rec.Format != cellFormat {
		return nil, fmt.Errorf("cell file format %d, this dptext writes %d", rec.Format, cellFormat)
	}
	if rec.Cell != cellPath {
		return nil, fmt.Errorf("holds cell %q, not %q", rec.Cell, cellPath)
	}
	return rec, nil
}

// CellCache reads cell files as ReadCell does and keeps what it parsed, by file and content: a
// file read again with the same bytes (the same SHA-256 of its body, checked on every read) is
// not decoded again. The ε search of [verdict] reads every finished cell between its rounds, and
// the plan of each round reads them again. Records and rows it returns are shared between
// calls: callers must not modify them. Safe for concurrent use; the zero value is ready.
type CellCache struct {
	// MaxBytes bounds the file bodies kept (0: DefaultCellCacheBytes); a file past it is read
	// and decoded every time.
	MaxBytes int64
	mu       sync.Mutex
	cells    map[string]*cachedCell // by file
	bytes    int64                  // the bodies of cells
}

// DefaultCellCacheBytes is CellCache's default bound: 512 MB of cell files (the 131 cells of
// configs/mechanisms.toml are 90 MB), so that a run of many cells keeps memory for its cells.
const DefaultCellCacheBytes = 512 << 20

// cachedCell is a parsed cell file: its body's SHA-256, the cell path it was checked against,
// its record and, once asked for, its rows.
type cachedCell struct {
	size     int64 // of the body
	sum      [sha256.Size]byte
	cellPath string
	rec      *CellRecord
	rowsOnce sync.Once
	rows     []report.Row
	rowsErr  error
}

// entry returns the parsed record of file for cellPath, decoding it only when the cache holds
// no record of the same bytes.
func (c *CellCache) entry(file, cellPath string) (*cachedCell, error) {
	body, sum, err := readVerified(file)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	e := c.cells[file]
	c.mu.Unlock()
	if e != nil && e.sum == sum && e.cellPath == cellPath {
		return e, nil
	}
	rec, err := parseCell(body, cellPath)
	if err != nil {
		return nil, err
	}
	e = &cachedCell{size: int64(len(body)), sum: sum, cellPath: cellPath, rec: rec}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cells == nil {
		c.cells = map[string]*cachedCell{}
	}
	held := c.bytes
	if old := c.cells[file]; old != nil {
		held -= old.size
	}
	limit := c.MaxBytes
	if limit == 0 {
		limit = DefaultCellCacheBytes
	}
	if held+e.size <= limit {
		c.cells[file] = e
		c.bytes = held + e.size
	}
	return e, nil
}

// Read is ReadCell through the cache.
func (c *CellCache) Read(file, cellPath string) (*CellRecord, error) {
	e, err := c.entry(file, cellPath)
	if err != nil {
		return nil, err
	}
	return e.rec, nil
}

// ReadRows is Read followed by the record's ParseRows(file), both through the cache.
func (c *CellCache) ReadRows(file, cellPath string) (*CellRecord, []report.Row, error) {
	e, err := c.entry(file, cellPath)
	if err != nil {
		return nil, nil, err
	}
	e.rowsOnce.Do(func() { e.rows, e.rowsErr = e.rec.ParseRows(file) })
	return e.rec, e.rows, e.rowsErr
}

// ParseRows parses the cell's rows; name is used in errors.
func (rec *CellRecord) ParseRows(name string) ([]report.Row, error) {
	return report.ReadRows(strings.NewReader(rec.Rows), name)
}
