package mcptest

import (
	"net"
	"sync/atomic"
	"testing"
)

// NotLoopback listens on every address of this machine and returns an http:// origin
// for it that is not loopback as written (http://0.0.0.0:PORT, which reaches this
// machine), with a count of the connections it accepted (each is closed at once). Tests
// of what coplay refuses to send over plain http to another machine use it to show
// that nothing was even connected; it skips t where such a listener cannot be had.
func NotLoopback(t testing.TB) (origin string, conns *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Skipf("no listener on 0.0.0.0: %v", err)
	}
	t.Cleanup(func() { ln.Close() })
	conns = &atomic.Int64{}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return "http://0.0.0.0:" + port, conns
}
