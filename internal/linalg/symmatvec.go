package linalg

// SymMatVec sets dst[i] = Σ_j m[i·n + j]·v[j] for the symmetric n × n row-major matrix m
// (n = len(v)), each sum from 0 in order of j, one rounding per product and per addition: the
// plain loop's arithmetic, so its results bit for bit. Sixteen entries at a time run in AVX2,
// reading m down its columns, which for a symmetric m are its rows; the caller guarantees that
// m[i·n + j] == m[j·n + i] exactly. dst must not share memory with v.
func SymMatVec(dst, m, v []float64) {
	n := len(v)
	if len(m) < n*n || len(dst) < n {
		panic("linalg.SymMatVec: slice shorter than its dimensions")
	}
	i := symMatVecBlock(dst, m, v)
	for ; i < n; i++ {
		r, s := m[i*n:(i+1)*n], 0.0
		for j, x := range v {
			s += r[j] * x
		}
		dst[i] = s
	}
}
