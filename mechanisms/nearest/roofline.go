package nearest

import (
	"sync"
	"time"
)

// MeasureFMAPeak measures the float32 peak of the machine on workers goroutines at once (pass
// the number the decoder uses): each runs a loop of independent 8-lane
// FMAs for about d, and the total flops per second of the slowest is returned — the roofline of
// any float32 scan, which needs 2·|V|·n flops per decoded word. It returns 0 where the loop is not
// available (no AVX2/FMA) or workers < 1.
func MeasureFMAPeak(workers int, d time.Duration) float64 {
	if !hasFMALoop || workers < 1 {
		return 0
	}
	const chunk = 1 << 20
	rates := make([]float64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			start := time.Now()
			iters := 0
			for time.Since(start) < d {
				fmaLoop(chunk)
				iters += chunk
			}
			rates[w] = float64(iters) * fmaFlopsPerIteration / time.Since(start).Seconds()
		})
	}
	wg.Wait()
	slowest := rates[0]
	for _, r := range rates[1:] {
		slowest = min(slowest, r)
	}
	return slowest * float64(workers)
}
