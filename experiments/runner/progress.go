package runner

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progress reports finished cells: a live status line on a terminal, or one log line per cell.
type progress struct {
	mu              sync.Mutex
	total, finished int
	resumed         int
	start           time.Time
	live            io.Writer
	logf            func(string, ...any)
}

func newProgress(total, finished int, live io.Writer, logf func(string, ...any)) *progress {
	return &progress{total: total, finished: finished, resumed: finished, start: time.Now(), live: live, logf: logf}
}

func (p *progress) done(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finished++
	elapsed := time.Since(p.start)
	eta := "?"
	if ran := p.finished - p.resumed; ran > 0 {
		eta = (elapsed / time.Duration(ran) * time.Duration(p.total-p.finished)).Round(time.Second).String()
	}
	msg := fmt.Sprintf("cell %d/%d done (%s), elapsed %s, about %s left", p.finished, p.total, name,
		elapsed.Round(time.Second), eta)
	if p.live != nil {
		fmt.Fprintf(p.live, "\r\033[K%s", msg)
		return
	}
	p.logf("%s", msg)
}

func (p *progress) finish() {
	if p.live != nil {
		fmt.Fprintln(p.live)
	}
}
