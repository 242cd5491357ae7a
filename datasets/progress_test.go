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

// A long step says what it starts, says every progressEvery that it is still running, and falls
// silent once it ends. Mutants caught: no ticker (no "still" line), a ticker not stopped by the
// returned function (lines after the step ended).
func TestLongStepsSayTheyAreStillRunning(t *testing.T) {
	defer func(d time.Duration) { progressEvery = d }(progressEvery)
	progressEvery = 10 * time.Millisecond
	var log lockedBuffer
	done := startStep(&log, "glove", "parsing the vectors")
	time.Sleep(300 * time.Millisecond)
	took := done()
	at := log.String()
	time.Sleep(100 * time.Millisecond)
	lines := strings.Split(strings.TrimSpace(at), "\n")
	if lines[0] != "glove: parsing the vectors" {
		t.Fatalf("first line %q, want the step's start", lines[0])
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
