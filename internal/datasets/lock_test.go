//go:build unix

package datasets

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedWriter is a log safe for two goroutines.
type lockedWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// Of two takers of one dataset's lock, the second waits (saying so) until the first releases
// it; a cancelled wait returns the context's error. flock(2) locks belong to open files, so
// two opens in one process exclude each other as two processes do.
func TestDatasetLockMakesFetchersTakeTurns(t *testing.T) {
	dir := t.TempDir()
	var log lockedWriter
	release, err := lockDataset(context.Background(), dir, "sotu", &log)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan time.Time, 1)
	go func() {
		unlock, err := lockDataset(context.Background(), dir, "sotu", &log)
		if err != nil {
			t.Error(err)
		}
		got <- time.Now()
		unlock()
	}()
	time.Sleep(500 * time.Millisecond)
	released := time.Now()
	release()
	select {
	case at := <-got:
		if at.Before(released) {
			t.Fatal("the second taker got the lock while the first held it")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the second taker did not get the lock within 10 s of its release")
	}
	if !strings.Contains(log.String(), "another process is fetching or checking it") {
		t.Errorf("the waiter did not say it waits: %q", log.String())
	}
	// Another dataset has its own lock.
	release, err = lockDataset(context.Background(), dir, "sotu", &log)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	other, err := lockDataset(context.Background(), dir, "glove-wink-100d", &log)
	if err != nil {
		t.Fatal(err)
	}
	other()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := lockDataset(ctx, dir, "sotu", &log); err != context.DeadlineExceeded {
		t.Errorf("a cancelled wait returned %v", err)
	}
}
