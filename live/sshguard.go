package live

import (
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"time"
)

// What an SSH connection may take before it has authenticated, as OpenSSH bounds it:
// LoginGraceTime (120 s there) and MaxStartups (10 there, with random early drops).
const (
	// sshLoginGrace is how long a connection has to authenticate before it is closed.
	sshLoginGrace = 30 * time.Second
	// sshMaxUnauthenticated is how many connections may wait to authenticate at once; a
	// connection beyond it is closed at once.
	sshMaxUnauthenticated = 10
	// refusalWindow is how often refusals are journaled at most: the first of a quiet
	// spell at once, the rest as one count a window.
	refusalWindow = time.Minute
)

// sshGuard keeps the doors of an SSH server before authentication: the count of
// connections still authenticating, their turn to compute, and the refusals, journaled
// as a count a minute rather than one record each (a flood of refused connections would
// otherwise fill the journal and every screen, and slow the person's own decisions).
type sshGuard struct {
	log   func(string)
	max   int
	grace time.Duration
	// turn is held by the one unauthenticated connection that computes (its key
	// exchange, its keys checked): a flood's handshakes take one CPU at most, one after
	// another, and leave the other to the game. A connection holds it from the moment a
	// read brings it bytes until it reads or writes again, so it never holds it while
	// waiting on the network.
	turn chan struct{}

	mu      sync.Mutex
	pending int         // connections not yet authenticated
	window  *time.Timer // running while refusals are being counted
	count   int         // refusals counted in this window
	why     []string    // the first few distinct reasons in this window
	closed  bool        // the server closed: nothing more is journaled
}

func newGuard(log func(string), max int, grace time.Duration) *sshGuard {
	return &sshGuard{log: log, max: max, grace: grace, turn: make(chan struct{}, 1)}
}

// admit takes a new connection: wrapped, to be told when it authenticates and when it
// ends, or nil when too many wait to authenticate already (it is refused and closed).
func (g *sshGuard) admit(c net.Conn) *guardedConn {
	g.mu.Lock()
	full := g.pending >= g.max
	if !full {
		g.pending++
	}
	g.mu.Unlock()
	if full {
		g.refuse(c.RemoteAddr(), fmt.Sprintf("%d connections were already waiting to authenticate", g.max))
		return nil
	}
	return &guardedConn{Conn: c, g: g, done: make(chan struct{})}
}

// refuse counts a refused connection: said at once when it is the first for a while,
// else counted in this window's one record.
func (g *sshGuard) refuse(addr net.Addr, why string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return
	}
	if g.window == nil {
		g.window = time.AfterFunc(refusalWindow, g.tick)
		go g.log(fmt.Sprintf("SSH: refused %s: %s", addrHost(addr), why))
		return
	}
	g.count++
	if len(g.why) < 3 && !slices.Contains(g.why, why) {
		g.why = append(g.why, why)
	}
}

// tick ends a window: its count is said, and a new window counts the next refusals;
// a window without any closes, and the next refusal is said at once.
func (g *sshGuard) tick() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return
	}
	if g.count == 0 {
		g.window = nil
		return
	}
	g.say()
	g.window = time.AfterFunc(refusalWindow, g.tick)
}

// say journals the window's count, off the lock (under mu).
func (g *sshGuard) say() {
	go g.log(g.counted())
}

// counted is the window's count in words, and starts the next (under mu).
func (g *sshGuard) counted() string {
	text := fmt.Sprintf("SSH: refused %d more connection(s) in the last minute: %s", g.count, strings.Join(g.why, "; "))
	g.count, g.why = 0, nil
	return text
}

// close stops counting, saying what was counted and not yet said before it returns.
func (g *sshGuard) close() {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return
	}
	g.closed = true
	if g.window != nil {
		g.window.Stop()
	}
	text := ""
	if g.count > 0 {
		text = g.counted()
	}
	g.mu.Unlock()
	if text != "" {
		g.log(text)
	}
}

// guardedConn is a connection on its way to authenticating: it holds a place among the
// unauthenticated ones until it authenticates or ends, and one that ends without
// authenticating is counted as refused, with why its keys were.
type guardedConn struct {
	net.Conn
	g    *sshGuard
	done chan struct{} // closed when the connection authenticates or ends

	mu      sync.Mutex
	authed  bool // it authenticated: its place is given back
	ended   bool // closed
	holding bool // it holds the guard's turn
	why     string
}

// Read waits for the connection's turn to compute once the bytes it brings are in.
func (c *guardedConn) Read(p []byte) (int, error) {
	c.yield()
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.take()
	}
	return n, err
}

// Write gives the turn back first: what comes after a write is a wait on the network.
func (c *guardedConn) Write(p []byte) (int, error) {
	c.yield()
	return c.Conn.Write(p)
}

// take waits for the guard's turn, unless the connection authenticated or ended.
func (c *guardedConn) take() {
	c.mu.Lock()
	free := c.authed || c.ended || c.holding
	c.mu.Unlock()
	if free {
		return
	}
	select {
	case c.g.turn <- struct{}{}:
	case <-c.done:
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.authed || c.ended {
		<-c.g.turn // it authenticated or ended while it waited
		return
	}
	c.holding = true
}

// yield gives the guard's turn back, if the connection holds it.
func (c *guardedConn) yield() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.giveBack()
}

// giveBack gives the turn back (under mu).
func (c *guardedConn) giveBack() {
	if c.holding {
		c.holding = false
		<-c.g.turn
	}
}

// authenticated gives the connection's place and turn back: it authenticated.
func (c *guardedConn) authenticated() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.authed || c.ended {
		return
	}
	c.authed = true
	close(c.done)
	c.giveBack()
	c.g.release()
}

// refused notes why a key the connection offered was refused: a key coplay knows but
// refused (its options, from=) says more than an unknown one, and is kept over it.
func (c *guardedConn) refused(why string, known bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.why == "" || known {
		c.why = why
	}
}

// Close ends the connection; one that never authenticated is counted as refused.
func (c *guardedConn) Close() error {
	err := c.Conn.Close()
	c.mu.Lock()
	first, authed, why := !c.ended, c.authed, c.why
	if first && !authed {
		close(c.done)
	}
	c.ended = true
	c.giveBack()
	c.mu.Unlock()
	if !first || authed {
		return err
	}
	if why == "" {
		why = fmt.Sprintf("it left, or was closed after %s, without authenticating", c.g.grace)
	}
	c.g.refuse(c.RemoteAddr(), why) // counted before its place is given back
	c.g.release()
	return err
}

// release gives back the place of a connection that authenticated or ended.
func (g *sshGuard) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pending--
}
