package erae

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"

	"dptext/internal/atomicfile"
	"dptext/internal/filehash"
	"dptext/internal/resources"
)

// FormatVersion is the version of the model file format this package writes and reads.
const FormatVersion = 1

// magic opens every model file.
const magic = "DPTEXT-ERAE\n"

// Header is the metadata of a model file (JSON inside the file).
type Header struct {
	// Format is FormatVersion.
	Format int   `json:"format"`
	Sizes  Sizes `json:"sizes"`
	// Words are the output vocabulary, row by row.
	Words []string `json:"words"`
	// Options are the training options.
	Options TrainOptions `json:"options"`
	// Data is a SHA-256 over the options, vocabulary, initial vectors and training corpus: a
	// checkpoint resumes only for the same data.
	Data string `json:"data"`
	// Step is the number of finished training steps.
	Step int `json:"step"`
	// Curve is the training loss curve (means over blocks of steps).
	Curve []CurvePoint `json:"curve"`
	// Acc and AccN are the unfinished block of the curve (checkpoints only).
	Acc  Losses `json:"acc"`
	AccN int    `json:"acc_n"`
	// Optimizer says Adam's moments follow the weights (checkpoints only).
	Optimizer bool `json:"optimizer"`
}

// Model is a trained ER-AE model.
type Model struct {
	Header
	p     *Params[float32]
	index map[string]int32
	// sha256 is the hash of the file the model was loaded from, as filehash.Sum gives it
	// (empty for a model not loaded from a file).
	sha256 string
}

// SHA256 returns the hash of the bytes the model was loaded from, as filehash.Sum and a
// run's manifest give it: computed from the very bytes parsed, so that a file replaced after
// a run hashed it is told apart. Empty for a model made in memory.
func (m *Model) SHA256() string { return m.sha256 }

// Params returns the model's weights.
func (m *Model) Params() *Params[float32] { return m.p }

func (tr *trainer) header(fp string, optimizer bool) Header {
	return Header{Format: FormatVersion, Sizes: tr.p.Sizes, Words: tr.words, Options: tr.opts, Data: fp, Step: tr.step,
		Curve: tr.curve, Acc: tr.acc, AccN: tr.accN, Optimizer: optimizer}
}

func (tr *trainer) model(fp string) (*Model, error) {
	return newModel(tr.header(fp, false), tr.p)
}

func newModel(h Header, p *Params[float32]) (*Model, error) {
	m := &Model{Header: h, p: p, index: make(map[string]int32, len(h.Words))}
	for i, w := range h.Words {
		if _, dup := m.index[w]; dup {
			return nil, fmt.Errorf("word %q appears twice in the vocabulary", w)
		}
		m.index[w] = int32(i)
	}
	return m, nil
}

// dataFingerprint hashes what a training run depends on besides its progress.
func dataFingerprint(opts TrainOptions, words []string, vectors []float32, corpus [][]int32) string {
	h := sha256.New()
	j, _ := json.Marshal(struct {
		O TrainOptions
		W []string
	}{opts, words})
	h.Write(j)
	_ = binary.Write(h, binary.LittleEndian, vectors)
	for _, d := range corpus {
		_ = binary.Write(h, binary.LittleEndian, int64(len(d)))
		_ = binary.Write(h, binary.LittleEndian, d)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Save writes the model to path atomically (a temporary file renamed over it).
func (m *Model) Save(path string) error {
	h := m.Header
	h.Optimizer, h.Acc, h.AccN = false, Losses{}, 0
	return writeModelFile(path, h, m.p)
}

// writeModelFile writes magic, the format version, the JSON header's length and the header,
// every tensor as little-endian float32, and a SHA-256 of all that, to a temporary file in
// path's folder, then renames it to path.
func writeModelFile(path string, h Header, tensors ...any) error {
	var buf bytes.Buffer
	buf.WriteString(magic)
	_ = binary.Write(&buf, binary.LittleEndian, uint32(FormatVersion))
	j, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("model %s: %w", path, err)
	}
	_ = binary.Write(&buf, binary.LittleEndian, uint64(len(j)))
	buf.Write(j)
	for _, t := range tensors {
		switch t := t.(type) {
		case *Params[float32]:
			_ = binary.Write(&buf, binary.LittleEndian, t.All)
		case []float32:
			_ = binary.Write(&buf, binary.LittleEndian, t)
		}
	}
	sum := sha256.Sum256(buf.Bytes())
	buf.Write(sum[:])
	if err := atomicfile.WriteFile(path, buf.Bytes()); err != nil {
		return fmt.Errorf("model %s: %w", path, err)
	}
	return nil
}

// readModelFile reads and verifies a model file: its weights and, for a checkpoint, Adam's
// moments.
func readModelFile(path string) (Header, *Params[float32], []float32, []float32, error) {
	data, err := readModelBytes(path)
	if err != nil {
		return Header{}, nil, nil, nil, err
	}
	return parseModelFile(path, data)
}

// readModelBytes reads the bytes of a model file from one descriptor: a regular file (a
// device such as /dev/zero or a pipe would be read forever or block, and is refused at once)
// whose size fits the machine's memory (it is held twice: bytes and weights).
func readModelBytes(path string) ([]byte, error) {
	f, info, err := filehash.OpenRegular(path)
	var nr *filehash.NotRegularError
	if errors.As(err, &nr) {
		return nil, fmt.Errorf("model %s: not a regular file (%s): want a model file made by `dptext train erae`", path, nr.What())
	}
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	defer f.Close()
	if err := resources.Fits(fmt.Sprintf("%d bytes", info.Size()), 2*float64(info.Size()), "the file's bytes and its weights"); err != nil {
		return nil, fmt.Errorf("model %s: %v", path, err)
	}
	data := make([]byte, info.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, fmt.Errorf("model %s: %w (the file shrank while it was read)", path, err)
	}
	if n, _ := f.Read(make([]byte, 1)); n > 0 {
		return nil, fmt.Errorf("model %s: the file grew while it was read: read it again once it no longer changes", path)
	}
	return data, nil
}

// fileSum is the hash filehash.Sum gives a file holding data, as a run's manifest records it.
func fileSum(data []byte) string {
	h := sha256.New()
	h.Write([]byte{0})
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// parseModelFile verifies and decodes the bytes of a model file read from path.
func parseModelFile(path string, data []byte) (Header, *Params[float32], []float32, []float32, error) {
	fail := func(format string, args ...any) (Header, *Params[float32], []float32, []float32, error) {
		return Header{}, nil, nil, nil, fmt.Errorf("model %s: %s", path, fmt.Sprintf(format, args...))
	}
	if len(data) < len(magic) || string(data[:len(magic)]) != magic {
		return fail("not an ER-AE model file (it does not start with %q); make one with `dptext train erae`", magic[:len(magic)-1])
	}
	rest := data[len(magic):]
	if len(rest) < 4+8+sha256.Size {
		return fail("truncated (%d bytes)", len(data))
	}
	if v := binary.LittleEndian.Uint32(rest); v != FormatVersion {
		return fail("format version %d; this dptext reads version %d: retrain with `dptext train erae`", v, FormatVersion)
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return fail("checksum mismatch: the file is damaged or truncated; retrain or copy it again")
	}
	n := binary.LittleEndian.Uint64(rest[4:])
	rest = body[len(magic)+12:]
	if n > uint64(len(rest)) {
		return fail("header length %d exceeds the file", n)
	}
	var h Header
	if err := json.Unmarshal(rest[:n], &h); err != nil {
		return fail("header: %v", err)
	}
	rest = rest[n:]
	if h.Format != FormatVersion {
		return fail("header format %d; want %d", h.Format, FormatVersion)
	}
	if err := h.Sizes.validate(); err != nil {
		return fail("%v", err)
	}
	if len(h.Words) != h.Sizes.Vocab {
		return fail("%d vocabulary words for vocab size %d", len(h.Words), h.Sizes.Vocab)
	}
	// The header's sizes are checked against the file before they allocate anything.
	wantF := WeightCount(h.Sizes)
	if h.Optimizer {
		wantF *= 3
	}
	if float64(len(rest)) != 4*wantF {
		return fail("%d bytes of weights; the header's sizes need %.0f", len(rest), 4*wantF)
	}
	p := NewParams[float32](h.Sizes)
	want := len(p.All)
	if h.Optimizer {
		want *= 3
	}
	vals := make([]float32, want)
	for i := range vals {
		vals[i] = math.Float32frombits(binary.LittleEndian.Uint32(rest[4*i:]))
	}
	copy(p.All, vals)
	var mo, vo []float32
	if h.Optimizer {
		mo, vo = vals[len(p.All):2*len(p.All)], vals[2*len(p.All):]
	}
	return h, p, mo, vo, nil
}

// WeightCount is the number of weights of a model of sizes s (the layout of NewParams),
// computed in float64 so that absurd sizes give a huge count rather than overflow.
func WeightCount(s Sizes) float64 {
	E, H, Z, V := float64(s.Embed), float64(s.Hidden), float64(s.Latent), float64(s.Vocab)
	n := (V+2)*E + 2*(3*H*E+3*H*H+6*H) + Z*2*H + Z + (3*H*E + 3*H*H + 6*H) + 3*H*Z + V*H + V
	if s.StartState {
		n += H*Z + H // Init, InitB
	}
	return n
}

// Load reads a model written by Save (or Train's final model) from path.
func Load(path string) (*Model, error) {
	data, err := readModelBytes(path)
	if err != nil {
		return nil, err
	}
	h, p, _, _, err := parseModelFile(path, data)
	if err != nil {
		return nil, err
	}
	if h.Optimizer {
		return nil, fmt.Errorf("model %s: a training checkpoint, not a finished model: run `dptext train erae` again to finish it", path)
	}
	m, err := newModel(h, p)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", path, err)
	}
	m.sha256 = fileSum(data)
	return m, nil
}

// readCheckpoint returns the training state in path, nil when there is none, and an error when
// the file is damaged or belongs to other options or data.
func readCheckpoint(path, fp string) (*trainer, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	h, p, mo, vo, err := readModelFile(path)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w (delete it to start afresh)", err)
	}
	if !h.Optimizer {
		return nil, fmt.Errorf("checkpoint %s: a finished model, not a checkpoint (delete it to start afresh)", path)
	}
	if h.Data != fp {
		return nil, fmt.Errorf("checkpoint %s: made with other options, vocabulary, vectors or corpus (data %s…, this run %s…): delete it to start afresh, or use the same config", path, h.Data[:min(12, len(h.Data))], fp[:12])
	}
	return &trainer{opts: h.Options, words: h.Words, p: p, m: mo, v: vo, step: h.Step, curve: h.Curve, acc: h.Acc, accN: h.AccN}, nil
}
