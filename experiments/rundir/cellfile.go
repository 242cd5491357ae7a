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
// path. It returns errNoCell when there is no file, and another error when the file is not a
// complete cell file.
func ReadCell(file, cellPath string) (*CellRecord, error) {
	data, err := filehash.ReadRegular(file, filehash.MaxStateBytes, "a cell file")
	if os.IsNotExist(err) {
		return nil, ErrNoCell
	}
	if err != nil {
		return nil, err
	}
	body, sumLine, ok := bytes.Cut(data, []byte("\n"+cellTrailer))
	if !ok || !bytes.HasSuffix(sumLine, []byte("\n")) {
		return nil, fmt.Errorf("no checksum line (the file was cut short)")
	}
	want, err := hex.DecodeString(strings.TrimSpace(string(sumLine)))
	got := sha256.Sum256(body)
	if err != nil || !bytes.Equal(want, got[:]) {
		return nil, fmt.Errorf("checksum mismatch (the file was altered or cut short)")
	}
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

// ParseRows parses the cell's rows; name is used in errors.
func (rec *CellRecord) ParseRows(name string) ([]report.Row, error) {
	return report.ReadRows(strings.NewReader(rec.Rows), name)
}
