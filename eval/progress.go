package eval

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Progress draws a bar of steps done on a terminal's stderr; elsewhere it is silent.
type Progress struct {
	w      io.Writer
	total  int
	n      atomic.Int64
	stop   chan struct{}
	wg     sync.WaitGroup
	active bool
}

// NewProgress returns a Progress of total steps drawn on w when w is a terminal.
func NewProgress(w io.Writer, total int) *Progress {
	p := &Progress{w: w, total: total, stop: make(chan struct{})}
	f, ok := w.(*os.File)
	if !ok {
		return p
	}
	if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return p
	}
	p.active = true
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				p.draw()
				fmt.Fprintln(p.w)
				return
			case <-t.C:
				p.draw()
			}
		}
	}()
	return p
}

// Step counts one step done.
func (p *Progress) Step() { p.n.Add(1) }

func (p *Progress) draw() {
	const width = 40
	n := min(int(p.n.Load()), p.total)
	filled := width * n / max(p.total, 1)
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d steps", strings.Repeat("#", filled), strings.Repeat(".", width-filled), n, p.total)
}

// Done draws the bar a last time and ends its line.
func (p *Progress) Done() {
	if p.active {
		close(p.stop)
		p.wg.Wait()
	}
}
