package datasets

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a log that the test reads while the step's ticker may write.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A long step says what it is doing once it has run for progressAfter, then every progressEvery
// that it is still running, and falls silent once it ends; a quick step says nothing. Mutants
// caught: no timer (no line at all), a timer not stopped by the returned function (lines after
// the step ended), the first line written at once (the quick step is not silent).
func TestLongStepsSayTheyAreStillRunning(t *testing.T) {
	defer func(e, a time.Duration) { progressEvery, progressAfter = e, a }(progressEvery, progressAfter)
	progressEvery, progressAfter = 10*time.Millisecond, 50*time.Millisecond
	var log lockedBuffer
	startStep(&log, "sotu", "checking the sha256")()
	done := startStep(&log, "glove", "parsing the vectors")
	time.Sleep(300 * time.Millisecond)
	took := done()
	at := log.String()
	time.Sleep(100 * time.Millisecond)
	lines := strings.Split(strings.TrimSpace(at), "\n")
	if lines[0] != "glove: parsing the vectors" {
		t.Fatalf("first line %q, want the long step's start (and nothing from the quick one)", lines[0])
	}
	if len(lines) < 2 || !strings.HasPrefix(lines[1], "glove: still parsing the vectors (") {
		t.Fatalf("no progress line during a 300 ms step with a 10 ms period:\n%s", at)
	}
	if log.String() != at {
		t.Fatalf("lines written after the step ended:\n%s", strings.TrimPrefix(log.String(), at))
	}
	if took < 300*time.Millisecond {
		t.Fatalf("step took %v, slept 300 ms", took)
	}
}
