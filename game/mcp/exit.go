package mcp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/coplayhq/coplay/game"
)

// A server that dies says why in plain words: a stdio server's connection ends with
// its exit status and its last lines on stderr (exitError), so that the call in
// flight, the error event and what the model reads all carry them; an HTTP server
// that does not answer is "the game server at URL does not answer (connection
// refused); coplay reconnects when it is back".

// stderrLines is how many of a stdio server's last stderr lines are kept for the
// reason it died; each is cut at stderrLineMax bytes.
const (
	stderrLines   = 5
	stderrLineMax = 300
)

// exitWait is how long the end of a server's stdout waits for the process to exit, to
// learn its status.
const exitWait = time.Second

// tail keeps the last lines written to it (a server's stderr).
type tail struct {
	mu    sync.Mutex
	lines []string
	part  []byte // the line being written
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, b := range p {
		if b != '\n' {
			if len(t.part) < stderrLineMax {
				t.part = append(t.part, b)
			}
			continue
		}
		t.push()
	}
	return len(p), nil
}

// push ends the line being written. t.mu held.
func (t *tail) push() {
	line := strings.TrimSpace(string(bytes.ToValidUTF8(t.part, []byte("?"))))
	t.part = t.part[:0]
	if line == "" {
		return
	}
	t.lines = append(t.lines, line)
	if len(t.lines) > stderrLines {
		t.lines = t.lines[len(t.lines)-stderrLines:]
	}
}

// last returns the kept lines, the one still being written included.
func (t *tail) last() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.part) > 0 {
		t.push()
	}
	return append([]string(nil), t.lines...)
}

// exitError ends a stdio server's connection: the server's stdout closed, and this is
// how it exited. It matches io.EOF, the end it stands for.
type exitError struct {
	status string   // "status 3", "killed by SIGKILL", "still running"
	stderr []string // its last lines on stderr
}

func (e *exitError) Error() string {
	s := "the server exited with " + e.status
	if e.status == "still running" {
		s = "the server closed its stdout (still running)"
	}
	if len(e.stderr) > 0 {
		s += "; its last words on stderr: " + strings.Join(e.stderr, " | ")
	}
	return s
}

func (e *exitError) Unwrap() error { return io.EOF }

// ended is how p's stdout ended: its exit status once it has exited (waiting up to
// exitWait for it), and its last stderr lines.
func (p *process) ended() error {
	select {
	case <-p.done:
	case <-time.After(exitWait):
		return &exitError{status: "still running", stderr: p.stderr.last()}
	}
	return &exitError{status: exitStatus(p.waitErr), stderr: p.stderr.last()}
}

// exitStatus says how a process ended, from cmd.Wait's error.
func exitStatus(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return fmt.Sprintf("signal %d (%s)", int(ws.Signal()), ws.Signal())
		}
		return fmt.Sprintf("status %d", ee.ExitCode())
	}
	if err != nil {
		return "an error: " + err.Error()
	}
	return "status 0"
}

// codeRejected is the go-sdk's JSON-RPC code for a request its transport could not
// deliver (jsonrpc2.ErrRejected, "rejected by transport"): the server never saw it.
const codeRejected = -32005

// notAnswered reports whether err says the server was not reached at all (an HTTP
// server that is down), as opposed to the server's own error answer.
func notAnswered(err error) bool {
	var we *sdkError
	return errors.As(err, &we) && we.Code == codeRejected
}

// notAnswering is the plain words for a server that was not reached: "the game server
// at URL does not answer (connection refused); coplay reconnects when it is back".
func (g *Game) notAnswering(err error) string {
	where := g.name
	if g.cfg.URL != "" {
		if u, perr := url.Parse(g.cfg.URL); perr == nil {
			where = u.Scheme + "://" + g.name
		}
	}
	return fmt.Sprintf("the game server at %s does not answer (%s); coplay reconnects when it is back", where, netCause(err))
}

// notAnsweringResult is a call the server did not answer: a connection never made is
// a refusal (nothing happened); a connection that broke after the request may have
// carried it, so the outcome is unknown and it is not sent again.
func (g *Game) notAnsweringResult(err error) game.Result {
	if isDialError(err) {
		return game.Result{Err: &game.Error{Code: CodeNotAnswering, Message: g.notAnswering(err)}}
	}
	return game.Result{Unknown: true, Output: g.notAnswering(err) +
		"; the call may or may not have happened: it will not be sent again, observe before deciding"}
}

// netCause names why a connection failed, briefly: "connection refused", "timed out".
func netCause(err error) string {
	var ne net.Error
	var op *net.OpError
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the connection closed"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.As(err, &ne) && ne.Timeout():
		return "timed out"
	case errors.As(err, &op) && op.Err != nil:
		return op.Err.Error()
	}
	return err.Error()
}

// unreachable is the error of a reconnect that failed every attempt: plain words for
// an HTTP server that does not answer, else what the last attempt said.
func (g *Game) unreachable(lost, last error, attempts int) error {
	if last != nil && (notAnswered(last) || isDialError(last)) {
		return errors.New(g.notAnswering(last))
	}
	return fmt.Errorf("mcp server %s dropped (%v) and could not be reached again after %d attempts: %v", g.name, lost, attempts, last)
}

// isDialError reports whether err is a connection that could not be made.
func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// lastEnd keeps how the last stdio server ended, until a reconnect tells the model.
// A nil *lastEnd keeps nothing.
type lastEnd struct {
	mu  sync.Mutex
	err error
}

func (l *lastEnd) set(err error) {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.err = err
	l.mu.Unlock()
}

// or returns how the server ended, or def when that is not known.
func (l *lastEnd) or(def error) error {
	if l == nil {
		return def
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		return def
	}
	return l.err
}

// take returns " (the server exited with status 3; …)" for the reconnect notice, once,
// or "".
func (l *lastEnd) take() string {
	if l == nil {
		return ""
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	err := l.err
	l.err = nil
	if err == nil {
		return ""
	}
	return " (" + err.Error() + ")"
}
