package embeddings

import (
	"encoding/binary"
	"unsafe"
)

// littleEndianHost reports whether float32 values in memory have the byte order of the cache
// file, so that ReadCache can read them in place.
var littleEndianHost = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// float32Bytes views v as its underlying bytes (4 per value, host byte order), so that a file can
// be read straight into the vectors' final memory with one read: decoding value by value into a
// second buffer made loading the 341k×100 default vectors several times slower (page faults on
// the extra 136 MB dominate).
func float32Bytes(v []float32) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))
}
