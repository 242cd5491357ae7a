package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"dptext/internal/fixtures"
)

// syncBuffer is a bytes.Buffer safe for the signal goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The first SIGINT cancels the context; the second exits at once with status 130.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	var out syncBuffer
	exited := make(chan int, 1)
	ctx, stop := interruptible(&out, func(code int) { exited <- code })
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("SIGINT did not cancel the context")
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-exited:
		if code != 130 {
			t.Fatalf("exit status %d, want 130", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a second signal was swallowed")
	}
	if !strings.Contains(out.String(), "send it again to exit at once") || !strings.Contains(out.String(), "exiting at once") {
		t.Fatalf("messages: %q", out.String())
	}
}

// A command that ignores its context is abandoned shortly after an interrupt, with a message.
func TestInterruptAbandonsACommandThatDoesNotStop(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	block := make(chan struct{})
	defer close(block)
	cmd := command{run: func(context.Context, []string, io.Writer, io.Writer) error { <-block; return nil }}
	var e bytes.Buffer
	cancel()
	start := time.Now()
	err := runCommand(ctx, "obfuscate", cmd, nil, io.Discard, &e)
	if err != errAbandoned || time.Since(start) > interruptGrace+2*time.Second {
		t.Fatalf("got %v after %s", err, time.Since(start))
	}
	if !strings.Contains(e.String(), "dptext obfuscate: interrupted before it finished") {
		t.Fatalf("message %q", e.String())
	}
}

// Usage errors exit 2 in every command, flag errors included; --metrics names metrics that
// exist.
func TestUsageErrorsExitTwo(t *testing.T) {
	for _, args := range [][]string{{"run", "--nosuch"}, {"check", "--jobs", "2"}, {"report"}, {"compare", "a"},
		{"data", "--dir"}, {"obfuscate", "--epsilon", "x"}, {"privacy", "extra"}, {"list", "--x"}} {
		if code, _, stderr := run(t, args...); code != 2 {
			t.Errorf("dptext %s: exit %d, want 2 (%s)", strings.Join(args, " "), code, stderr)
		}
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "results.csv"), []byte("set,mechanism,epsilon,repeat,scorer,metric,value\n8,none,,0,sr-nn,accuracy,0.5\n"), 0o644)
	code, _, stderr := run(t, "report", "--benchfmt", "--metrics", "nosuch", dir)
	if code != 2 || !strings.Contains(stderr, `"nosuch" is not a metric`) || !strings.Contains(stderr, "accuracy") {
		t.Fatalf("--metrics nosuch: exit %d, %s", code, stderr)
	}
	if code, stdout, _ := run(t, "report", "--benchfmt", dir); code != 0 || !strings.Contains(stdout, "0.5 accuracy") {
		t.Fatalf("default metrics: exit %d, %s", code, stdout)
	}
}

// An interrupted run exits 130 and says what it kept and the command that resumes it.
func TestInterruptedRunSaysHowToResume(t *testing.T) {
	// A config on the generated fixture corpus: the test reads nothing from the network.
	corpusPath, vecPath := fixtures.Corpus(t, 3, 2, 300)
	config := filepath.Join(t.TempDir(), "c.toml")
	src := "name = \"interrupted\"\n" + fixtures.Inputs(corpusPath, vecPath) +
		"[[sets]]\nname = \"4\"\nauthors = 4\n[[mechanisms]]\nname = \"none\"\n[[scorers]]\nname = \"sr-nn\"\n"
	if err := os.WriteFile(config, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := t.TempDir()
	var o, e bytes.Buffer
	code := runMain(ctx, []string{"run", config, "--out", out}, &o, &e)
	// Cancelled before it starts, the run stops while reading the corpus (keptCells' test
	// covers the message of a run stopped among its cells).
	if code != 130 || !strings.Contains(e.String(), "interrupted: nothing was computed yet") ||
		!strings.Contains(e.String(), "To resume, run the same command again: dptext run "+config+" --out "+out) {
		t.Fatalf("exit %d:\n%s", code, e.String())
	}
}
