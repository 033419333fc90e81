package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/coplayhq/coplay/game/mcp/internal/testgame"
	"github.com/coplayhq/coplay/game/mcp/mcptest"
	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMain lets the test binary be a stdio MCP server: with COPLAY_MCP_TESTGAME=1 it
// prints a line that is not JSON on stdout and one on stderr, then serves the
// treasure hunt over stdio, plus a tool "crash" that makes it exit.
func TestMain(m *testing.M) {
	if os.Getenv("COPLAY_MCP_FAULTS") == "1" {
		mcptest.ServeFaultsStdio("COPLAY_MCP_FAULTS_LOG") // faults_test.go
	}
	if os.Getenv("COPLAY_MCP_TESTGAME") == "1" {
		fmt.Println("treasure-hunt starting (a log line on stdout)")
		fmt.Fprintln(os.Stderr, "treasure-hunt: hello on stderr")
		h := testgame.New()
		h.Server.AddTool(&sdk.Tool{Name: "crash", InputSchema: &jsonschema.Schema{Type: "object"}},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				fmt.Fprintln(os.Stderr, "treasure-hunt: crashing")
				os.Exit(3)
				return nil, nil
			})
		if err := h.Server.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, "treasure-hunt:", err)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestStdio(t *testing.T) {
	t.Setenv("COPLAY_MCP_TESTGAME", "1")
	logDir := t.TempDir()
	ctx := context.Background()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	g, err := Open(ctx, Config{Command: fmt.Sprintf("'%s' -test.run '^$'", exe), LogDir: logDir, Observe: []string{"game://state"}})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer g.Close()
	g.backoff = g.backoff[:2]
	res, err := g.Call(ctx, "move", json.RawMessage(`{"direction":"west"}`))
	if err != nil || res.Output != "Moved west to (-1,0)." {
		t.Fatalf("move over stdio: %+v, %v", res, err)
	}
	if g.Skipped() != 1 {
		t.Errorf("skipped %d stdout lines, want 1", g.Skipped())
	}
	// The server exits in the middle of a call: outcome unknown, then a new process.
	res, err = g.Call(ctx, "crash", nil)
	if err != nil || !res.Unknown {
		t.Fatalf("crash: %+v, %v: want outcome unknown", res, err)
	}
	obs, err := g.Observe(ctx)
	if err != nil || !strings.Contains(obs.Summary, "Reconnected to MCP server mcp (the server exited with status 3; its last words on stderr: treasure-hunt: hello on stderr | treasure-hunt: crashing):") || !strings.Contains(obs.Summary, `"moves":0`) {
		t.Errorf("observe after the crash: %q, %v: want a reconnect notice saying how the server ended, and the new server's state", obs.Summary, err)
	}
	if err := g.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	log, err := os.ReadFile(filepath.Join(logDir, "mcp-mcp.log"))
	if err != nil {
		t.Fatalf("log file: %v", err)
	}
	for _, want := range []string{"treasure-hunt: hello on stderr", "treasure-hunt: crashing",
		`coplay: skipped a line on the server's stdout that is not JSON-RPC: "treasure-hunt starting (a log line on stdout)"`} {
		if !strings.Contains(string(log), want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if fi, _ := os.Stat(filepath.Join(logDir, "mcp-mcp.log")); fi.Mode().Perm() != 0o600 {
		t.Errorf("log file mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestJSONLinesFilter(t *testing.T) {
	in := "not json\n\n{\"a\":1}\r\n  indented log\n[1,2]\n" + `{"long":"` + strings.Repeat("x", 100<<10) + "\"}\ntrailing log"
	var skipped atomicCounter
	var warn strings.Builder
	f := &jsonLines{r: newBufReader(in), warn: &warn, skipped: &skipped.Int64}
	var out strings.Builder
	buf := make([]byte, 7) // short reads exercise the pending bytes
	for {
		n, err := f.Read(buf)
		out.Write(buf[:n])
		if err != nil {
			break
		}
	}
	want := "{\"a\":1}\r\n[1,2]\n" + `{"long":"` + strings.Repeat("x", 100<<10) + "\"}\n"
	if out.String() != want {
		t.Errorf("passed %d bytes, want %d: %.80q", out.Len(), len(want), out.String())
	}
	if skipped.Load() != 3 || strings.Count(warn.String(), "coplay: skipped") != 3 {
		t.Errorf("skipped %d, warnings:\n%s", skipped.Load(), warn.String())
	}
}

func TestHTTPHeaders(t *testing.T) {
	h := testgame.New()
	var mu sync.Mutex
	var auth []string
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return h.Server }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		mcpHandler.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx := context.Background()
	cfg := Config{URL: srv.URL + "/mcp", Headers: map[string]string{"Authorization": "Bearer $COPLAY_TEST_MCP_TOKEN"}}

	_, err := Open(ctx, cfg)
	if err == nil || !strings.Contains(err.Error(), "header Authorization names $COPLAY_TEST_MCP_TOKEN, which is not set") {
		t.Fatalf("open without the variable: %v", err)
	}
	t.Setenv("COPLAY_TEST_MCP_TOKEN", "s3cret-token")
	g, err := Open(ctx, cfg)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer g.Close()
	res, err := g.Call(ctx, "move", json.RawMessage(`{"direction":"south","steps":3}`))
	if err != nil || res.Output != "Moved south to (0,-3)." {
		t.Fatalf("move over HTTP: %+v, %v", res, err)
	}
	if _, err := g.Call(ctx, "move", json.RawMessage(`{"direction":"south","steps":"3"}`)); err == nil {
		t.Error("invalid call over HTTP accepted")
	}
	mu.Lock()
	if len(auth) == 0 {
		t.Error("the server got no requests")
	}
	for _, a := range auth {
		if a != "Bearer s3cret-token" {
			t.Errorf("Authorization %q, want the expanded header on every request", a)
		}
	}
	mu.Unlock()
	if cfg.Headers["Authorization"] != "Bearer $COPLAY_TEST_MCP_TOKEN" || g.cfg.Headers["Authorization"] != "Bearer $COPLAY_TEST_MCP_TOKEN" {
		t.Error("the config now holds the expanded header")
	}
	obs, _ := g.Observe(ctx)
	info, _ := json.Marshal(g.Info())
	tools, _ := json.Marshal(g.Tools())
	for _, s := range []string{obs.Summary, string(info), string(tools)} {
		if strings.Contains(s, "s3cret") {
			t.Errorf("the token reached what the model sees: %q", s)
		}
	}
	if len(h.Calls("move")) != 1 {
		t.Errorf("server moves %q", h.Calls("move"))
	}
}

func TestConfig(t *testing.T) {
	bad := []struct {
		cfg  Config
		want string
	}{
		{Config{}, "give a server"},
		{Config{Command: "x", URL: "http://127.0.0.1/"}, "not both"},
		{Config{Command: "x", Headers: map[string]string{"A": "b"}}, "headers are for a URL"},
		{Config{Command: `node 'unterminated`}, "unterminated single quote"},
		{Config{Command: "   "}, "the command is empty"},
		{Config{URL: "http://127.0.0.1/", Headers: map[string]string{"Bad Name": "x"}}, "not a valid HTTP header name"},
	}
	for _, b := range bad {
		if err := b.cfg.check(); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%+v: %v, want %q", b.cfg, err, b.want)
		}
	}
	if _, err := Open(context.Background(), Config{URL: "ftp://x"}); err == nil || !strings.Contains(err.Error(), "not an http or https URL") {
		t.Errorf("ftp URL: %v", err)
	}
}

func TestSplitCommand(t *testing.T) {
	tests := map[string][]string{
		`node dist/index.js stdio`:               {"node", "dist/index.js", "stdio"},
		`  node   "my dir/index.js"  'a b' c\ d`: {"node", "my dir/index.js", "a b", "c d"},
		`python -c "print(\"hi\")"`:              {"python", "-c", `print("hi")`},
		`x ''`:                                   {"x", ""},
	}
	for in, want := range tests {
		got, err := splitCommand(in)
		if err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("splitCommand(%q) = %q, %v, want %q", in, got, err, want)
		}
	}
}

func TestServerName(t *testing.T) {
	tests := map[string]string{
		"node /home/u/.cache/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio": "server-everything",
		"npx -y @modelcontextprotocol/server-everything":                                                   "server-everything",
		"uvx mcp-server-git --repository .":                                                                "mcp-server-git",
		"/usr/local/bin/my-game --port 3":                                                                  "my-game",
		"python3 server.py":                                                                                "server",
	}
	for in, want := range tests {
		args, _ := splitCommand(in)
		if got := serverName(args); got != want {
			t.Errorf("serverName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestExpandHeaders(t *testing.T) {
	env := map[string]string{"TOKEN": "abc", "USER_ID": "7"}
	get := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	got, err := expandHeaders(map[string]string{"Authorization": "Bearer $TOKEN", "X-User": "${USER_ID}-x", "X-Plain": "plain"}, get)
	if err != nil || got["Authorization"] != "Bearer abc" || got["X-User"] != "7-x" || got["X-Plain"] != "plain" {
		t.Errorf("expandHeaders = %v, %v", got, err)
	}
	if _, err := expandHeaders(map[string]string{"A": "$NOPE and $TOKEN"}, get); err == nil || strings.Contains(err.Error(), "abc") || !strings.Contains(err.Error(), "$NOPE") {
		t.Errorf("missing variable: %v, want it named and no value shown", err)
	}
	// The values the headers name are secrets the game holds (scrubbed everywhere).
	if s := headerSecrets(map[string]string{"Authorization": "Bearer $TOKEN", "X-User": "${USER_ID}-x", "X-Plain": "plain"}, get); strings.Join(s, ",") != "abc,7" {
		t.Errorf("headerSecrets = %q", s)
	}
}

type atomicCounter struct{ atomic.Int64 }

// newBufReader gives the filter a small buffer, so long lines come in many pieces.
func newBufReader(s string) *bufio.Reader { return bufio.NewReaderSize(strings.NewReader(s), 16) }

// A streamable HTTP server that restarts forgets its sessions: the next observation
// finds out, reconnects, reads again and says the world may have moved on.
func TestHTTPServerRestart(t *testing.T) {
	h := testgame.New()
	var mu sync.Mutex
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return h.Server }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hd := handler
		mu.Unlock()
		hd.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx := context.Background()
	g, err := Open(ctx, Config{URL: srv.URL, Observe: []string{"game://state"}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if _, err := g.Observe(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	handler = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return h.Server }, nil)
	mu.Unlock()
	obs, err := g.Observe(ctx)
	if err != nil || !strings.Contains(obs.Summary, "Reconnected to MCP server 127.0.0.1:") || !strings.Contains(obs.Summary, `"moves":0`) {
		t.Errorf("observe after the restart: %q, %v", obs.Summary, err)
	}
}

// FuzzJSONLines: whatever a server prints, the filter passes on exactly the lines that
// start with '{' or '[', byte for byte, and counts the other non-blank lines.
func FuzzJSONLines(f *testing.F) {
	f.Add("log\n{\"a\":1}\n\n[1]\r\nmore log\n{", 3)
	f.Add("", 1)
	f.Fuzz(func(t *testing.T, in string, readSize int) {
		if readSize < 1 || readSize > 64 {
			readSize = 1 + (readSize%64+64)%64
		}
		var want strings.Builder
		wantSkipped := 0
		for _, line := range strings.SplitAfter(in, "\n") {
			switch {
			case line == "":
			case line[0] == '{' || line[0] == '[':
				want.WriteString(line)
			case len(trimSpace([]byte(line))) > 0:
				wantSkipped++
			}
		}
		var skipped atomic.Int64
		fl := &jsonLines{r: bufio.NewReaderSize(strings.NewReader(in), 16), warn: io.Discard, skipped: &skipped}
		var got strings.Builder
		buf := make([]byte, readSize)
		for i := 0; ; i++ {
			n, err := fl.Read(buf)
			got.Write(buf[:n])
			if err != nil {
				break
			}
			if i > 4*len(in)+10 {
				t.Fatal("the filter does not reach the end of its input")
			}
		}
		if got.String() != want.String() || int(skipped.Load()) != wantSkipped {
			t.Fatalf("input %q: passed %q (skipped %d), want %q (skipped %d)", in, got.String(), skipped.Load(), want.String(), wantSkipped)
		}
	})
}

// A server that refuses the Authorization header a person gave is said to, and coplay
// does not try to sign in over it (no OAuth discovery).
func TestRefusedAuthorizationHeaderIsSaid(t *testing.T) {
	var paths []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		http.Error(w, "Unauthorized: a wrong token", http.StatusUnauthorized)
	}))
	defer srv.Close()
	t.Setenv("COPLAY_TEST_SEAT_TOKEN", "not-the-seats")
	_, err := Open(context.Background(), Config{URL: srv.URL + "/mcp", Headers: map[string]string{"Authorization": "Bearer $COPLAY_TEST_SEAT_TOKEN"}})
	if err == nil || !strings.Contains(err.Error(), "refused the Authorization header it was given (401") {
		t.Fatalf("err = %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range paths {
		if p != "/mcp" {
			t.Errorf("coplay asked %s: it tried to sign in", p)
		}
	}
}
