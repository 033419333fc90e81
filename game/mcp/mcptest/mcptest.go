// Package mcptest starts the MCP reference server, @modelcontextprotocol/server-everything,
// for end-to-end tests. .ci/run installs it with npm and exports COPLAY_MCP_EVERYTHING
// (the path of its dist/index.js); without it the tests that need it skip, saying how
// to install it.
package mcptest

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Everything returns the path of the reference server's dist/index.js, or skips t.
func Everything(t testing.TB) string {
	t.Helper()
	path := os.Getenv("COPLAY_MCP_EVERYTHING")
	if path == "" {
		t.Skip("COPLAY_MCP_EVERYTHING is not set: install the reference server with `npm install --prefix ~/.cache/coplay-ci/npm @modelcontextprotocol/server-everything@2026.8.31` and point it at .../dist/index.js (.ci/run does both)")
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("COPLAY_MCP_EVERYTHING=%s: %v", path, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	return path
}

// StdioCommand is the --mcp command line that starts the reference server over stdio.
func StdioCommand(t testing.TB) string {
	return "node " + Everything(t) + " stdio"
}

// EverythingHTTP starts the reference server over streamable HTTP on a free loopback
// port (a preload keeps it off every other interface), waits until it answers, stops it
// when t ends, and returns its endpoint URL.
func EverythingHTTP(t testing.TB) string {
	t.Helper()
	return everythingServe(t, "streamableHttp", "/mcp")
}

// EverythingSSE starts the reference server over the 2024-11-05 HTTP+SSE transport
// (GET /sse, then POSTs to the endpoint it names) like EverythingHTTP, and returns the
// URL of its event stream.
func EverythingSSE(t testing.TB) string {
	t.Helper()
	return everythingServe(t, "sse", "/sse")
}

func everythingServe(t testing.TB, mode, path string) string {
	t.Helper()
	index := Everything(t)
	_, file, _, _ := runtime.Caller(0)
	loopback := filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "mcp", "loopback.cjs")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("node", "--require", loopback, index, mode)
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/", port))
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the MCP reference server did not come up on port %d: %v\n%s", port, err, out)
		}
	}
	return fmt.Sprintf("http://127.0.0.1:%d%s", port, path)
}
