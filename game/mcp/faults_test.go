package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/game/mcp/mcptest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// openFaultsStdio starts this test binary as the fault server over stdio; its records
// go to the returned file.
func openFaultsStdio(t *testing.T) (*Game, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "records")
	t.Setenv("COPLAY_MCP_FAULTS", "1")
	t.Setenv("COPLAY_MCP_FAULTS_LOG", log)
	g, err := Open(context.Background(), Config{Command: fmt.Sprintf("'%s' -test.run '^$'", exe), LogDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	g.backoff = []time.Duration{0, 10 * time.Millisecond}
	return g, log
}

// openFaultsHTTP serves the fault game over streamable HTTP on loopback.
func openFaultsHTTP(t *testing.T) (*Game, *mcptest.Faults, *httptest.Server) {
	t.Helper()
	f := mcptest.NewFaults()
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return f.Server }, nil))
	t.Cleanup(srv.Close)
	g, err := Open(context.Background(), Config{URL: srv.URL + "/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	g.backoff = []time.Duration{0, 10 * time.Millisecond}
	return g, f, srv
}

// waitRecord waits up to 10 s for a record.
func waitRecord(t *testing.T, what string, records func() []string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if slices.Contains(records(), what) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the server never recorded %q: %v", what, records())
}

// A call cancelled by its context (the runner's deadline) reaches the server as
// notifications/cancelled, over both transports.
func TestCancelledCallReachesTheServer(t *testing.T) {
	hang := func(t *testing.T, g *Game) {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		res, err := g.Call(ctx, "hang", json.RawMessage(`{}`))
		if err == nil && !res.Unknown {
			t.Fatalf("a call that never answered returned %+v", res)
		}
	}
	t.Run("stdio", func(t *testing.T) {
		g, log := openFaultsStdio(t)
		hang(t, g)
		waitRecord(t, "cancelled hang", func() []string { return mcptest.ReadRecords(log) })
		if res, err := g.Call(context.Background(), "look", nil); err != nil || res.Err != nil {
			t.Errorf("the session after a cancelled call: %+v, %v", res, err)
		}
	})
	t.Run("http", func(t *testing.T) {
		g, f, _ := openFaultsHTTP(t)
		hang(t, g)
		waitRecord(t, "cancelled hang", f.Records)
	})
}

// A stdio server that dies in the middle of a call: the outcome is unknown, and the
// result says its exit status and its last words on stderr; the next call restarts it.
func TestDeadStdioServerSaysWhy(t *testing.T) {
	g, _ := openFaultsStdio(t)
	res, err := g.Call(context.Background(), "die", json.RawMessage(`{}`))
	if err != nil || !res.Unknown {
		t.Fatalf("die: %+v, %v: want outcome unknown", res, err)
	}
	for _, want := range []string{"the server exited with status 3", "fatal: the reactor melted"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("the result %q does not say %q", res.Output, want)
		}
	}
	res, err = g.Call(context.Background(), "look", json.RawMessage(`{}`))
	if err != nil || res.Output != "You are at the gate." {
		t.Errorf("look after the death: %+v, %v: want a restarted server", res, err)
	}
}

// An HTTP server that is down: in plain words, and nothing is unknown (the call never
// reached it); once it is back, coplay reconnects.
func TestHTTPServerThatDoesNotAnswer(t *testing.T) {
	g, f, srv := openFaultsHTTP(t)
	if res, err := g.Call(context.Background(), "look", nil); err != nil || res.Err != nil {
		t.Fatalf("look: %+v, %v", res, err)
	}
	addr := srv.Listener.Addr().String()
	srv.Config.Close() // the listener and every connection, the event stream included
	want := fmt.Sprintf("the game server at http://%s/mcp does not answer (connection refused); coplay reconnects when it is back", addr)
	res, err := g.Call(context.Background(), "move", json.RawMessage(`{"to":"the tower"}`))
	if err == nil && res.Unknown && strings.Contains(res.Output, "does not answer (the connection closed)") {
		// The request went out on a kept-alive connection the server closed: it may
		// have been read, so the outcome is unknown. The next one finds nobody.
		res, err = g.Call(context.Background(), "move", json.RawMessage(`{"to":"the tower"}`))
	}
	switch {
	case err != nil && err.Error() == want: // reconnecting found nobody
	case err == nil && res.Err != nil && res.Err.Message == want && !res.Unknown: // the session's request found nobody
	default:
		t.Fatalf("a call to a server that is down: %+v, %v; want %q", res, err, want)
	}
	if _, err := g.Observe(context.Background()); err == nil || err.Error() != want {
		t.Errorf("observe of a server that is down: %v; want %q", err, want)
	}
	// Back on the same address: the next call reconnects.
	back := httptest.NewUnstartedServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return f.Server }, nil))
	l, lerr := netListen(addr)
	if lerr != nil {
		t.Skipf("the address %s could not be taken again: %v", addr, lerr)
	}
	back.Listener = l
	back.Start()
	defer back.Config.Close()
	if res, err := g.Call(context.Background(), "look", nil); err != nil || res.Err != nil {
		t.Errorf("look once the server is back: %+v, %v", res, err)
	}
}

func netListen(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }
