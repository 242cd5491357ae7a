//go:build !amd64

package attackers

// maskedPopcounts3 returns Σ_i popcount(once[i] & chosen[i]) and the same sums for twice and
// shared (each as long as chosen): the dense levels of a candidate's whole-text sums.
func maskedPopcounts3(once, twice, shared, chosen []uint64) (a, b, c int) {
	return maskedPopcounts3Go(once, twice, shared, chosen)
}
