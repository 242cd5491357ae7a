package embeddings

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"os"

	"dptext/internal/atomicfile"
	"dptext/internal/filehash"
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
//
// The default vectors' cache is pinned by its hash (datasets' EmbeddingsSHA256): a change of
// this layout changes that hash.
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
	if err := atomicfile.Write(path, func(w io.Writer) error { return writeCacheTo(w, s) }); err != nil {
		return fmt.Errorf("embeddings: writing cache %s: %w", path, err)
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

// VerifyCache checks, without loading the vectors, that the cache file at path is complete and
// intact: its size matches its header and its checksum matches its content. The error is a
// *FormatError saying what is wrong (or the error of opening or reading the file).
func VerifyCache(path string) error {
	f, size, err := openCache(path)
	if err != nil {
		return err
	}
	defer f.Close()
	crc := crc32.New(castagnoli)
	if _, err := io.CopyBuffer(crc, io.LimitReader(f, size-4), make([]byte, 1<<20)); err != nil {
		return readErr(path, "byte offset 0", "the cache content", err)
	}
	return checkTrailer(f, path, size, crc)
}

// openCache opens a cache file (a regular file: see filehash.OpenRegular) and checks its header
// against its size; the file is returned positioned at its start, with its size.
func openCache(path string) (*os.File, int64, error) {
	f, info, err := filehash.OpenRegular(path)
	if err != nil {
		return nil, 0, fmt.Errorf("embeddings: %w", err)
	}
	size := info.Size()
	header := make([]byte, cacheHeaderSize)
	_, err = io.ReadFull(f, header)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if msg := checkCacheHeader(header, size, err); msg != "" {
		f.Close()
		return nil, 0, &FormatError{Path: path, Msg: msg}
	}
	return f, size, nil
}

// checkCacheHeader describes what is wrong with a cache header read with error readErr from a
// file of size bytes, or returns "".
func checkCacheHeader(header []byte, size int64, readErr error) string {
	if size == 0 {
		return "empty file"
	}
	if readErr != nil || string(header[:8]) != cacheMagic {
		return "not a dptext embedding cache (bad magic or too short)"
	}
	if v := binary.LittleEndian.Uint32(header[8:]); v != cacheVersion {
		return fmt.Sprintf("cache version %d, want %d: rebuild the cache", v, cacheVersion)
	}
	dim := uint64(binary.LittleEndian.Uint32(header[12:]))
	rows := binary.LittleEndian.Uint64(header[16:])
	wordBytes := binary.LittleEndian.Uint64(header[24:])
	body := uint64(size) - cacheHeaderSize - 4
	if size < cacheHeaderSize+4 || dim == 0 || wordBytes > body || rows > (body-wordBytes)/(4*dim) ||
		body-wordBytes != 4*rows*dim {
		return fmt.Sprintf("size %d bytes does not match the header (%d rows × %d dims, %d word bytes): truncated or corrupt cache",
			size, rows, dim, wordBytes)
	}
	return ""
}

// checkTrailer reads the checksum at the end of a cache file (f positioned there) and compares
// it with crc, the checksum of everything before it.
func checkTrailer(f io.Reader, path string, size int64, crc hash.Hash32) error {
	var trailer [4]byte
	if _, err := io.ReadFull(f, trailer[:]); err != nil {
		return readErr(path, fmt.Sprintf("byte offset %d", size-4), "the checksum", err)
	}
	if got, want := crc.Sum32(), binary.LittleEndian.Uint32(trailer[:]); got != want {
		return &FormatError{Path: path, Msg: fmt.Sprintf("checksum %08x, want %08x: corrupt cache", got, want)}
	}
	return nil
}

// ReadCache loads a cache written by WriteCache, reading the vectors straight into their final
// memory, verifies the file length and checksum, and keeps the first topK rows (topK ≤ 0 keeps
// all; the remaining rows are still read for the checksum, in small chunks).
func ReadCache(path string, topK int) (*Store, error) {
	return LoadContext(context.Background(), path, FormatCache, topK)
}

// readCacheFrom is ReadCache of the file f opened from path, read from its start to its end
// once (no seeking, so that a hash of what f delivers is the hash of the bytes loaded).
func readCacheFrom(f *filehash.File, path string, topK int) (*Store, error) {
	size := f.Stat().Size()
	crc := crc32.New(castagnoli)
	header := make([]byte, cacheHeaderSize)
	_, err := io.ReadFull(f, header)
	if msg := checkCacheHeader(header, size, err); msg != "" {
		return nil, &FormatError{Path: path, Msg: msg}
	}
	crc.Write(header)
	dim := uint64(binary.LittleEndian.Uint32(header[12:]))
	rows := binary.LittleEndian.Uint64(header[16:])
	wordBytes := binary.LittleEndian.Uint64(header[24:])
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
	if err := checkTrailer(f, path, size, crc); err != nil {
		return nil, err
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
