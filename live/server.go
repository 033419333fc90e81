package live

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"github.com/coplayhq/coplay/internal/lines"
)

// Request is what a client sends first, as one JSON line.
type Request struct {
	// Op names the operation: "snapshot" (a copy of the notebook, see [SnapshotHandler])
	// or another registered with [Server.Handle].
	Op string `json:"op"`
	// Session names a session, for operations about one.
	Session string `json:"session,omitempty"`
}

// Reply is the server's first line. Error says why the operation cannot be served;
// without it, the reply describes what follows.
type Reply struct {
	Error string `json:"error,omitempty"`
	// Bytes is how many bytes follow the reply (a snapshot's length).
	Bytes int64 `json:"bytes,omitempty"`
	// Playing names the sessions the serving coplay plays now.
	Playing []string `json:"playing,omitempty"`
}

// Conn is one client's connection, past its request line.
type Conn struct {
	net.Conn
	r *bufio.Reader
}

// Read reads what the client sent after its request.
func (c *Conn) Read(p []byte) (int, error) { return c.r.Read(p) }

// Reader returns the buffered reader behind Read, for line-oriented protocols.
func (c *Conn) Reader() *bufio.Reader { return c.r }

// Reply writes the server's first line.
func (c *Conn) Reply(r Reply) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = c.Write(append(b, '\n'))
	return err
}

// Handler serves one connection once its request was read. It owns conn until it
// returns (the server closes it then); ctx ends when the server closes.
type Handler func(ctx context.Context, conn *Conn, req Request) error

// Server is the socket of the coplay that plays in one notebook.
type Server struct {
	path     string
	notebook string
	ln       net.Listener

	mu       sync.Mutex
	handlers map[string]Handler
	conns    map[net.Conn]struct{}
	playing  func() []string

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Listen opens the socket of the notebook at notebook. Call it only while holding the
// notebook's write lock: a socket left by a coplay that died is then stale for sure,
// and it is replaced.
func Listen(notebook string) (*Server, error) {
	path, err := SocketPath(notebook)
	if err != nil {
		return nil, err
	}
	// The lock is ours, so whatever is at path was left by a coplay that ended
	// without removing it.
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("live: removing the stale socket %s: %w", path, err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("live: %w", err)
	}
	// The directory (0700) already keeps others out; the socket's own mode says so too.
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("live: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{path: path, notebook: notebook, ln: ln, handlers: map[string]Handler{}, conns: map[net.Conn]struct{}{}, ctx: ctx, cancel: cancel}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Path returns the socket's path.
func (s *Server) Path() string { return s.path }

// Handle registers the handler of an operation; a later one replaces an earlier.
func (s *Server) Handle(op string, h Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handlers[op] = h
}

// SetPlaying sets what a reply's Playing lists: the sessions played now.
func (s *Server) SetPlaying(f func() []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.playing = f
}

// Close stops listening, ends every connection, waits for their handlers and removes
// the socket.
func (s *Server) Close() error {
	s.cancel()
	err := s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	os.Remove(s.path)
	return err
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return // closed
		}
		s.mu.Lock()
		if s.ctx.Err() != nil {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serve(c)
	}
}

// serve reads one request and runs its handler.
func (s *Server) serve(c net.Conn) {
	defer s.wg.Done()
	defer func() {
		c.Close()
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
	}()
	conn := &Conn{Conn: c, r: bufio.NewReader(c)}
	if err := checkPeer(c); err != nil {
		conn.Reply(Reply{Error: "refused: " + err.Error()})
		return
	}
	// A client that connects and says nothing must not hold a handler for ever.
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := lines.Read(conn.r, MaxLine, false)
	var long *LineTooLongError
	if errors.As(err, &long) {
		// Told, and closed: what else it sends is never read.
		conn.Reply(Reply{Error: "the request line is too long: " + long.Error()})
		return
	}
	if err != nil {
		return
	}
	c.SetReadDeadline(time.Time{})
	var req Request
	if err := json.Unmarshal(line, &req); err != nil {
		conn.Reply(Reply{Error: "the request is not one JSON line: " + err.Error()})
		return
	}
	s.mu.Lock()
	h := s.handlers[req.Op]
	s.mu.Unlock()
	if h == nil {
		conn.Reply(Reply{Error: fmt.Sprintf("this coplay does not serve %q", req.Op)})
		return
	}
	if err := h(s.ctx, conn, req); err != nil && !errors.Is(err, io.EOF) && s.ctx.Err() == nil {
		conn.Reply(Reply{Error: err.Error()})
	}
}

// playingNow returns the sessions played now, for replies.
func (s *Server) playingNow() []string {
	s.mu.Lock()
	f := s.playing
	s.mu.Unlock()
	if f == nil {
		return nil
	}
	return f()
}
