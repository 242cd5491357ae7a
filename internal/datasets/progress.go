package datasets

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progressEvery is how often a long step of a fetch says that it is still running, and
// progressAfter how long a step runs before it says what it is doing (a quicker step only
// reports its end, as its caller does).
var progressEvery, progressAfter = 10 * time.Second, 2 * time.Second

// startStep starts a step of dataset name: if it runs longer than progressAfter, it logs what
// the step is doing ("unpacking …"), then every progressEvery that it is still doing it and for
// how long, so that no step of a first run is silent for more than progressAfter. The returned
// function stops the lines (the last one written before it returns) and gives the time the
// step took. Nothing else may write to log until then.
func startStep(log io.Writer, name, doing string) func() time.Duration {
	start := time.Now()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTimer(progressAfter)
		defer t.Stop()
		for said := false; ; said = true {
			select {
			case <-stop:
				return
			case <-t.C:
				if said {
					fmt.Fprintf(log, "%s: still %s (%s)\n", name, doing, time.Since(start).Round(time.Second))
				} else {
					fmt.Fprintf(log, "%s: %s\n", name, doing)
				}
				t.Reset(progressEvery)
			}
		}
	})
	return func() time.Duration {
		close(stop)
		wg.Wait()
		return time.Since(start)
	}
}
