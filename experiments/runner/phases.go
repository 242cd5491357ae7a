package runner

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// phaseTimes sums the wall time of named phases of a run; safe for concurrent use.
type phaseTimes struct {
	mu sync.Mutex
	d  map[string]time.Duration
}

// add adds the time since start to phase (use as `defer t.add("fit", time.Now())`).
func (t *phaseTimes) add(phase string, start time.Time) {
	elapsed := time.Since(start)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.d == nil {
		t.d = map[string]time.Duration{}
	}
	t.d[phase] += elapsed
}

func (t *phaseTimes) seconds() map[string]float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[string]float64{}
	for k, v := range t.d {
		out[k] = v.Seconds()
	}
	return out
}

// String lists the phases, longest first, with their share of the total.
func (t *phaseTimes) String() string {
	secs := t.seconds()
	total := 0.0
	names := make([]string, 0, len(secs))
	for k, v := range secs {
		total += v
		names = append(names, k)
	}
	if total == 0 {
		return "nothing ran"
	}
	sort.Slice(names, func(i, j int) bool { return secs[names[i]] > secs[names[j]] })
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s %.1fs (%.0f%%)", k, secs[k], 100*secs[k]/total)
	}
	return strings.Join(parts, ", ")
}
