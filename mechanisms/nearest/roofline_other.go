//go:build !amd64

package nearest

func fmaLoop(int) {}

const fmaFlopsPerIteration = 0

var hasFMALoop = false
