package classifiers

// wordNgramMultiplier combines the hashes of consecutive words into a word n-gram hash
// (h ← h·116049371 + hash(next word), the constant of fastText's dictionary).
const wordNgramMultiplier = 116049371

// rows lists the input rows of doc: its in-vocabulary words, then its word n-grams, with the
// character n-grams of each word after the word. While training (grow) every new bucket gets
// a row; afterwards a bucket unseen in training is returned as bucketKey(bucket) < 0.
func (f *FastText) rows(doc []string, grow bool) []int32 {
	var rows []int32
	var hashes []uint32
	if f.opts.WordNgrams > 1 {
		hashes = make([]uint32, len(doc))
	}
	for i, w := range doc {
		if r, ok := f.vocab[w]; ok {
			rows = append(rows, r)
		}
		if f.opts.Maxn > 0 {
			rows = f.appendCharNgrams(rows, w, grow)
		}
		if hashes != nil {
			hashes[i] = hashString(w)
		}
	}
	for i := range hashes {
		h := uint64(hashes[i])
		for j := i + 1; j < len(hashes) && j < i+f.opts.WordNgrams; j++ {
			h = h*wordNgramMultiplier + uint64(hashes[j])
			rows = append(rows, f.bucketRow(uint32(h%uint64(f.opts.Bucket)), grow))
		}
	}
	return rows
}

// appendCharNgrams appends the rows of the character n-grams of "<w>" with minn…maxn
// characters, leaving out the lone boundary markers "<" and ">".
func (f *FastText) appendCharNgrams(rows []int32, w string, grow bool) []int32 {
	s := "<" + w + ">"
	starts := make([]int, 0, len(s)+1)
	for i := range s {
		starts = append(starts, i)
	}
	starts = append(starts, len(s))
	chars := len(starts) - 1
	for i := range chars {
		for n := f.opts.Minn; n <= f.opts.Maxn && i+n <= chars; n++ {
			if n == 1 && (i == 0 || i == chars-1) {
				continue
			}
			g := s[starts[i]:starts[i+n]]
			rows = append(rows, f.bucketRow(hashString(g)%uint32(f.opts.Bucket), grow))
		}
	}
	return rows
}

// bucketRow returns the input row of bucket b, adding one while growing.
func (f *FastText) bucketRow(b uint32, grow bool) int32 {
	if r, ok := f.buckets[b]; ok {
		return r
	}
	if !grow {
		return int32(bucketKey(b))
	}
	r := int32(len(f.vocab) + len(f.buckets))
	f.buckets[b] = r
	return r
}

// bucketKey is the negative key naming bucket b's untrained row.
func bucketKey(b uint32) int64 { return -1 - int64(b) }

// hashString is the 32-bit FNV-1a hash of the bytes of s.
func hashString(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}
