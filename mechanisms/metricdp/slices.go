package metricdp

// reuseSlice returns a slice of length n, reusing s's memory when it is large enough.
func reuseSlice[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
