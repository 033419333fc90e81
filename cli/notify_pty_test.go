//go:build unix

package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// ptyOut collects what the screen writes to its terminal.
type ptyOut struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (p *ptyOut) bytes() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return bytes.Clone(p.buf.Bytes())
}

// osc9 is the start of the notification the screen sends a terminal known to show it.
var osc9 = []byte("\x1b]9;coplay:")

// Under a real terminal that reports focus: while it is focused, a new call waiting
// calls nobody; once focus leaves while a call waits, an OSC 9 notification (with a
// bell) comes.
func TestNotifyOnlyWhenUnfocused(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	cmd := exec.CommandContext(ctx, coplayBinary(t), "--data", filepath.Join(dir, "coplay.db"), "--no-rate-limit")
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=", "OPENAI_BASE_URL=", "TMUX=", "TERM=xterm-256color",
		"TERM_PROGRAM=WezTerm", "XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_RUNTIME_DIR="+filepath.Join(dir, "run"))
	os.Mkdir(filepath.Join(dir, "run"), 0o700)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 48, Cols: 160})
	if err != nil {
		t.Skip("no pseudo-terminal here:", err)
	}
	defer func() {
		cancel()
		f.Close()
		cmd.Wait()
	}()
	out := &ptyOut{}
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := f.Read(buf)
			out.mu.Lock()
			out.buf.Write(buf[:n])
			out.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	until := func(what string, cond func([]byte) bool) {
		t.Helper()
		for !cond(out.bytes()) {
			select {
			case <-ctx.Done():
				t.Fatalf("never: %s; the terminal got %d bytes", what, len(out.bytes()))
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	// Until the terminal says anything of its focus, each wait is called: the first
	// one is. Then the terminal says it is focused.
	until("a call waiting, called", func(b []byte) bool {
		return bytes.Contains(b, []byte("Pending decision")) && bytes.Contains(b, osc9)
	})
	f.Write([]byte("\x1b[I"))
	// Approve everything of this step, pressing until the next step's calls wait: the
	// screen ignores decision keys for a moment after calls appear.
	mark := len(out.bytes())
	before := bytes.Count(out.bytes(), osc9)
	until("the next step's calls waiting", func(b []byte) bool {
		if bytes.Contains(b[mark:], []byte("step 2")) && bytes.Contains(b[mark:], []byte("waiting for decision")) {
			return true
		}
		f.Write([]byte{0x01}) // ctrl+a: approve all
		time.Sleep(100 * time.Millisecond)
		return false
	})
	if n := bytes.Count(out.bytes(), osc9); n != before {
		t.Fatalf("a focused terminal was notified %d times", n-before)
	}
	f.Write([]byte("\x1b[O")) // focus leaves while calls wait
	until("a notification after focus left", func(b []byte) bool { return bytes.Count(b, osc9) > before })
	b := out.bytes()
	i := bytes.LastIndex(b, osc9)
	if j := bytes.Index(b[i:], []byte("\x1b\\")); j < 0 || !bytes.Contains(b[i:i+j], []byte("waiting for your decision")) {
		t.Fatalf("the notification does not say what waits: %q", b[i:min(len(b), i+200)])
	}
	if i == 0 || b[i-1] != '\a' {
		t.Fatalf("no bell with the notification")
	}
}
