package datasets

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progressEvery is how often a long step of a fetch says that it is still running.
var progressEvery = 10 * time.Second

// startStep logs that dataset name starts doing something ("downloading …"), then, every
// progressEvery until the returned function is called, that it is still doing it and for how
// long, so that no step of a first run is silent for more than progressEvery. The returned
// function stops the lines (the last one written before it returns) and gives the time the
// step took. Nothing else may write to log until then.
func startStep(log io.Writer, name, doing string) func() time.Duration {
	start := time.Now()
	fmt.Fprintf(log, "%s: %s\n", name, doing)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				fmt.Fprintf(log, "%s: still %s (%s)\n", name, doing, time.Since(start).Round(time.Second))
			}
		}
	})
	return func() time.Duration {
		close(stop)
		wg.Wait()
		return time.Since(start)
	}
}
