package runner

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"dptext/experiments/rundir"
)

// phaseTimes sums the wall time of named phases of a run; safe for concurrent use.
type phaseTimes struct {
	mu sync.Mutex
	d  map[string]time.Duration
}

// add adds the time since start to phase (use as `defer t.add("fit", time.Now())`).
func (t *phaseTimes) add(phase string, start time.Time) {
	t.addDuration(phase, time.Since(start))
}

// addDuration adds elapsed to phase.
func (t *phaseTimes) addDuration(phase string, elapsed time.Duration) {
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

// cellClock sums the wall time one cell spends in each phase and the words its mechanism
// released; a cell runs on one goroutine, so it needs no lock.
type cellClock struct {
	d     map[string]time.Duration
	words int
}

// add adds the time since start to phase in the cell's clock and to the run's total spent.
func (k *cellClock) add(spent *phaseTimes, phase string, start time.Time) {
	elapsed := time.Since(start)
	if k.d == nil {
		k.d = map[string]time.Duration{}
	}
	k.d[phase] += elapsed
	if spent != nil {
		spent.addDuration(phase, elapsed)
	}
}

// record is the clock as written into the cell file.
func (k *cellClock) record() *rundir.CellTime {
	t := &rundir.CellTime{PhaseSeconds: map[string]float64{}, WordsReleased: k.words}
	for p, d := range k.d {
		t.PhaseSeconds[p] = d.Seconds()
	}
	return t
}

// mechanismTimes renders the time table of a run's cells, one line per mechanism (in the
// config's order): its cells, the seconds of each phase summed over them, and the words the
// mechanism released per second of its "mechanisms" phase. Cells without a recorded time are
// counted apart.
func mechanismTimes(ids []string, cellMech []string, times []*rundir.CellTime) []string {
	type sum struct {
		cells, untimed, words int
		phases                map[string]float64
	}
	by := map[string]*sum{}
	phaseSet := map[string]bool{}
	for i, id := range cellMech {
		s := by[id]
		if s == nil {
			s = &sum{phases: map[string]float64{}}
			by[id] = s
		}
		s.cells++
		t := times[i]
		if t == nil {
			s.untimed++
			continue
		}
		s.words += t.WordsReleased
		for p, v := range t.PhaseSeconds {
			s.phases[p] += v
			phaseSet[p] = true
		}
	}
	phases := slices.Sorted(maps.Keys(phaseSet))
	var lines []string
	for _, id := range ids {
		s := by[id]
		if s == nil {
			continue
		}
		total := 0.0
		parts := make([]string, 0, len(phases))
		for _, p := range phases {
			total += s.phases[p]
			if s.phases[p] > 0 {
				parts = append(parts, fmt.Sprintf("%s %.1fs", p, s.phases[p]))
			}
		}
		speed := "no words computed"
		if mech := s.phases["mechanisms"]; s.words > 0 && mech > 0 {
			speed = fmt.Sprintf("%d words released at %.0f words/s", s.words, float64(s.words)/mech)
		}
		line := fmt.Sprintf("%s: %d cell(s), %.1fs: %s; %s", id, s.cells, total, strings.Join(parts, ", "), speed)
		if s.untimed > 0 {
			line += fmt.Sprintf(" (%d cell(s) without a recorded time)", s.untimed)
		}
		lines = append(lines, line)
	}
	return lines
}
