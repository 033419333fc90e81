package mcp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// dialer makes a fresh transport for each connection (the first and every reconnect).
type dialer func(ctx context.Context) (sdk.Transport, error)

// stdioDialer starts the command for each connection. Its stderr is appended to the
// log file; its stdout goes through a filter that drops lines that are not JSON.
type stdioDialer struct {
	args    []string
	logPath string        // "" discards stderr and warnings
	skipped *atomic.Int64 // non-JSON stdout lines dropped, over every connection
	ended   *lastEnd      // how the last server ended (exit.go); may be nil
}

func (d *stdioDialer) dial(ctx context.Context) (sdk.Transport, error) {
	var log io.WriteCloser = nopWriteCloser{io.Discard}
	if d.logPath != "" {
		if err := os.MkdirAll(filepath.Dir(d.logPath), 0o700); err != nil {
			return nil, fmt.Errorf("log directory for the server's stderr: %w", err)
		}
		f, err := os.OpenFile(d.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, fmt.Errorf("log file for the server's stderr: %w", err)
		}
		log = &lockedWriter{w: f}
	}
	// Not CommandContext: ctx is the connect's, and the server outlives it.
	cmd := exec.Command(d.args[0], d.args[1:]...)
	last := &tail{}
	cmd.Stderr = io.MultiWriter(log, last)
	// A pipe of our own, not StdoutPipe: cmd.Wait closes that one as soon as the server
	// exits, which can cut off its last lines and hide how it ended ("file already
	// closed"). This one is read to its end and closed by process.Close.
	stdout, stdoutW, err := os.Pipe()
	if err != nil {
		log.Close()
		return nil, err
	}
	cmd.Stdout = stdoutW
	stdin, err := cmd.StdinPipe()
	if err != nil {
		log.Close()
		stdout.Close()
		stdoutW.Close()
		return nil, err
	}
	fmt.Fprintf(log, "coplay: %s starting %q\n", time.Now().UTC().Format(time.RFC3339), d.args)
	err = cmd.Start()
	stdoutW.Close() // the server holds its end now
	if err != nil {
		log.Close()
		stdout.Close()
		return nil, fmt.Errorf("start %q: %w", d.args[0], err)
	}
	p := &process{cmd: cmd, stdin: stdin, stdout: stdout, log: log, stderr: last, done: make(chan struct{})}
	go func() { p.waitErr = cmd.Wait(); close(p.done) }()
	end := func() error { err := p.ended(); d.ended.set(err); return err }
	filter := &jsonLines{r: bufio.NewReaderSize(stdout, 64<<10), warn: log, skipped: d.skipped, end: end}
	return &sdk.IOTransport{Reader: io.NopCloser(filter), Writer: p}, nil
}

// process is the stdio server's stdin; closing it ends the server the way the MCP
// spec asks: close stdin, wait, SIGTERM, wait, SIGKILL.
type process struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	stdout  io.Closer // our end of its stdout
	log     io.WriteCloser
	stderr  *tail // its last lines on stderr, for the reason it died
	done    chan struct{}
	waitErr error
	once    sync.Once
}

func (p *process) Write(b []byte) (int, error) { return p.stdin.Write(b) }

func (p *process) Close() error {
	p.once.Do(func() {
		p.stdin.Close()
		select {
		case <-p.done:
		case <-time.After(2 * time.Second):
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-p.done:
			case <-time.After(2 * time.Second):
				_ = p.cmd.Process.Kill()
				<-p.done
			}
		}
		p.stdout.Close()
		p.log.Close()
	})
	return nil
}

// jsonLines passes on the lines of a server's stdout that start with '{' or '[' (JSON-RPC
// messages) and drops any other line (some servers log to stdout), counting it and
// writing a warning to the log. Passed lines are streamed, so a long message is never
// held whole here.
type jsonLines struct {
	r       *bufio.Reader
	warn    io.Writer
	skipped *atomic.Int64
	passing bool   // inside a line that is passed on
	pending []byte // bytes of a passed line a short Read could not take
	err     error  // the reader's error, returned once pending is drained
	// end, if set, says how the stream ended in place of a bare io.EOF: a stdio
	// server's exit status and last stderr lines (process.ended).
	end   func() error
	ended error
}

// eof replaces io.EOF (or a read of our end once it is closed) with what end says
// about it (once).
func (j *jsonLines) eof(err error) error {
	if err != io.EOF && !errors.Is(err, os.ErrClosed) || j.end == nil {
		return err
	}
	if j.ended == nil {
		j.ended = j.end()
	}
	return j.ended
}

// Read passes on the next bytes of JSON lines; at the end of the stream it says how
// the stream ended (eof).
func (j *jsonLines) Read(p []byte) (int, error) {
	n, err := j.read(p)
	return n, j.eof(err)
}

func (j *jsonLines) read(p []byte) (int, error) {
	if len(j.pending) > 0 {
		n := copy(p, j.pending)
		j.pending = j.pending[n:]
		return n, nil
	}
	if j.err != nil {
		return 0, j.err
	}
	for {
		if j.passing {
			chunk, err := j.r.ReadSlice('\n')
			switch err {
			case bufio.ErrBufferFull:
				err = nil
			case nil:
				j.passing = false
			}
			n := copy(p, chunk)
			if n < len(chunk) {
				// ReadSlice's bytes are gone at the next read: keep a copy.
				j.pending = append(j.pending[:0], chunk[n:]...)
				j.err = err
				return n, nil
			}
			if n == 0 && err == nil {
				continue
			}
			return n, err
		}
		b, err := j.r.Peek(1)
		if err != nil {
			return 0, err
		}
		if b[0] == '{' || b[0] == '[' {
			j.passing = true
			continue
		}
		if err := j.skipLine(); err != nil {
			return 0, err
		}
	}
}

// skipLine drops one line, warning with its first 200 bytes. Blank lines are dropped
// silently.
func (j *jsonLines) skipLine() error {
	var head []byte
	for {
		chunk, err := j.r.ReadSlice('\n')
		if len(head) < 200 {
			head = append(head, chunk[:min(len(chunk), 200-len(head))]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(trimSpace(head)) > 0 {
			j.skipped.Add(1)
			fmt.Fprintf(j.warn, "coplay: skipped a line on the server's stdout that is not JSON-RPC: %q\n", trimSpace(head))
		}
		return err
	}
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r' || b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// lockedWriter serialises the server's stderr and coplay's warnings into one file.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func (l *lockedWriter) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Close()
}

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	return t.base.RoundTrip(req)
}
