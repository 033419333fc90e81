package live

import (
	"net"
	"testing"
	"time"
)

// One unauthenticated connection computes at a time: a connection whose read brought
// bytes holds the turn until it reads or writes again, and another's read that brought
// bytes meanwhile returns only then. Closing gives the turn back, and a connection that
// waits for the turn when it closes stops waiting.
func TestSSHGuardTurnIsOneAtATime(t *testing.T) {
	t.Parallel()
	g := newGuard(func(string) {}, 10, time.Minute)
	conn := func() (*guardedConn, net.Conn) {
		ours, theirs := net.Pipe()
		t.Cleanup(func() { ours.Close(); theirs.Close() })
		return g.admit(ours), theirs
	}
	a, aPeer := conn()
	b, bPeer := conn()
	read := func(c *guardedConn) chan struct{} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			c.Read(make([]byte, 8))
		}()
		return done
	}
	aRead := read(a)
	aPeer.Write([]byte("kexinit"))
	<-aRead // a holds the turn: it computes
	bRead := read(b)
	bPeer.Write([]byte("kexinit"))
	select {
	case <-bRead:
		t.Fatal("b's read returned while a held the turn")
	default:
	}
	go aPeer.Read(make([]byte, 8))
	a.Write([]byte("reply")) // a is done computing: b's turn
	<-bRead
	c, cPeer := conn()
	cRead := read(c)
	cPeer.Write([]byte("kexinit")) // c waits: b holds the turn
	c.Close()
	<-cRead
	b.Close()
	select {
	case g.turn <- struct{}{}: // free again
	default:
		t.Fatal("the turn was not given back when its holder closed")
	}
}
