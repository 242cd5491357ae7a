package nearest

//go:noescape
func fmaLoop(n int)

// fmaFlopsPerIteration is the float32 work of one iteration of fmaLoop.
const fmaFlopsPerIteration = 10 * 8 * 2

// hasFMALoop reports whether fmaLoop can run on this CPU.
var hasFMALoop = useAVX2
