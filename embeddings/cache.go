package embeddings

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
)

// CacheExt is the file extension of dptext's embedding cache; Load's "auto" format maps it to "cache".
const CacheExt = ".emb"

// The cache layout (all integers little-endian):
//
//	offset 0   magic "DPTXEMB\n" (8 bytes)
//	offset 8   version uint32 (= cacheVersion)
//	offset 12  dim uint32
//	offset 16  rows uint64
//	offset 24  wordBytes uint64: length of the word block
//	offset 32  word block: per row, uvarint byte length then the UTF-8 word
//	           rows×dim float32 values, row-major
//	end − 4    CRC-32C (Castagnoli) of every byte before it
//
// A file whose size differs from 32 + wordBytes + 4·rows·dim + 4, or whose checksum does not
// match, is rejected: a partially written cache can never load.
const (
	cacheMagic      = "DPTXEMB\n"
	cacheVersion    = 1
	cacheHeaderSize = 32
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// WriteCache writes s to path in the cache format. It writes a temporary file in the same
// directory and renames it into place, so path holds either the old content or the complete new
// cache, never a partial one.
func WriteCache(path string, s *Store) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("embeddings: writing cache: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if err := writeCacheTo(tmp, s); err != nil {
		tmp.Close()
		return fmt.Errorf("embeddings: writing cache %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("embeddings: writing cache %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("embeddings: writing cache: %w", err)
	}
	return nil
}

func writeCacheTo(f io.Writer, s *Store) error {
	crc := crc32.New(castagnoli)
	w := bufio.NewWriterSize(io.MultiWriter(f, crc), 1<<20)
	var words []byte
	for _, word := range s.Words() {
		words = binary.AppendUvarint(words, uint64(len(word)))
		words = append(words, word...)
	}
	header := make([]byte, cacheHeaderSize)
	copy(header, cacheMagic)
	binary.LittleEndian.PutUint32(header[8:], cacheVersion)
	binary.LittleEndian.PutUint32(header[12:], uint32(s.Dim()))
	binary.LittleEndian.PutUint64(header[16:], uint64(s.Len()))
	binary.LittleEndian.PutUint64(header[24:], uint64(len(words)))
	w.Write(header)
	w.Write(words)
	var buf [4]byte
	for _, v := range s.Matrix() {
		binary.LittleEndian.PutUint32(buf[:], math.Float32bits(v))
		w.Write(buf[:])
	}
	if err := w.Flush(); err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(buf[:], crc.Sum32())
	_, err := f.Write(buf[:])
	return err
}

// ReadCache loads a cache written by WriteCache, reading the vectors straight into their final
// memory, verifies the file length and checksum, and keeps the first topK rows (topK ≤ 0 keeps
// all; the remaining rows are still read for the checksum, in small chunks).
func ReadCache(path string, topK int) (*Store, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("embeddings: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("embeddings: %w", err)
	}
	size := info.Size()
	if size == 0 {
		return nil, &FormatError{Path: path, Msg: "empty file"}
	}
	crc := crc32.New(castagnoli)
	header := make([]byte, cacheHeaderSize)
	if _, err := io.ReadFull(f, header); err != nil || string(header[:8]) != cacheMagic {
		return nil, &FormatError{Path: path, Msg: "not a dptext embedding cache (bad magic or too short)"}
	}
	crc.Write(header)
	if v := binary.LittleEndian.Uint32(header[8:]); v != cacheVersion {
		return nil, &FormatError{Path: path, Msg: fmt.Sprintf("cache version %d, want %d: rebuild the cache", v, cacheVersion)}
	}
	dim := uint64(binary.LittleEndian.Uint32(header[12:]))
	rows := binary.LittleEndian.Uint64(header[16:])
	wordBytes := binary.LittleEndian.Uint64(header[24:])
	body := uint64(size) - cacheHeaderSize - 4
	if size < cacheHeaderSize+4 || dim == 0 || wordBytes > body || rows > (body-wordBytes)/(4*dim) ||
		body-wordBytes != 4*rows*dim {
		return nil, &FormatError{Path: path, Msg: fmt.Sprintf(
			"size %d bytes does not match the header (%d rows × %d dims, %d word bytes): truncated or corrupt cache",
			size, rows, dim, wordBytes)}
	}
	block := make([]byte, wordBytes)
	if _, err := io.ReadFull(f, block); err != nil {
		return nil, readErr(path, fmt.Sprintf("byte offset %d", cacheHeaderSize), "the word block", err)
	}
	crc.Write(block)
	keep := int(rows)
	if topK > 0 && topK < keep {
		keep = topK
	}
	words, err := decodeWords(block, keep)
	if err != nil {
		return nil, &FormatError{Path: path, Msg: err.Error()}
	}
	vectors := make([]float32, keep*int(dim))
	raw := float32Bytes(vectors)
	offset := cacheHeaderSize + int64(wordBytes)
	if _, err := io.ReadFull(f, raw); err != nil {
		return nil, readErr(path, fmt.Sprintf("byte offset %d", offset), "the vectors", err)
	}
	crc.Write(raw)
	rest := int64(4 * (int(rows) - keep) * int(dim))
	if _, err := io.CopyBuffer(crc, io.LimitReader(f, rest), make([]byte, 1<<20)); err != nil {
		return nil, readErr(path, fmt.Sprintf("byte offset %d", offset+int64(len(raw))), "the vectors", err)
	}
	var trailer [4]byte
	if _, err := io.ReadFull(f, trailer[:]); err != nil {
		return nil, readErr(path, fmt.Sprintf("byte offset %d", size-4), "the checksum", err)
	}
	if got, want := crc.Sum32(), binary.LittleEndian.Uint32(trailer[:]); got != want {
		return nil, &FormatError{Path: path, Msg: fmt.Sprintf("checksum %08x, want %08x: corrupt cache", got, want)}
	}
	if !littleEndianHost {
		for i := range vectors {
			vectors[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
	}
	s, err := New(words, int(dim), vectors)
	if err != nil {
		return nil, &FormatError{Path: path, Msg: err.Error()}
	}
	return s, nil
}

// decodeWords reads the first keep words of the word block.
func decodeWords(block []byte, keep int) ([]string, error) {
	words := make([]string, keep)
	pos := 0
	for i := range words {
		n, size := binary.Uvarint(block[pos:])
		if size <= 0 || uint64(len(block)-pos-size) < n {
			return nil, fmt.Errorf("row %d (byte offset %d): word length runs past the word block: corrupt cache",
				i, cacheHeaderSize+pos)
		}
		pos += size
		words[i] = string(block[pos : pos+int(n)])
		pos += int(n)
	}
	return words, nil
}
