package nearest

// Kernels and UseKernel give the external tests (package nearest_test) the kernel switch of the
// internal ones.
var (
	Kernels   = kernels
	UseKernel = useKernel
)
