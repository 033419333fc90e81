package mcpserve

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/coplayhq/coplay/game"
	_ "github.com/coplayhq/coplay/game/arena"
	_ "github.com/coplayhq/coplay/game/spacetraders"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tokens of the tests' seats.
const (
	heronToken = "heron-token-0123456789abcdef"
	finchToken = "finch-token-0123456789abcdef"
)

// served is a world served over loopback HTTP, with what it committed.
type served struct {
	*Server
	URL    string
	league *game.League

	mu      sync.Mutex
	commits map[string]int      // seat -> commits of acts
	acts    map[string][]string // seat -> its acts, as committed
	states  map[string][]byte   // seat -> its last committed state
}

// serve opens driver's league for seats (tokens by seat) and serves it over loopback
// HTTP; cfg's League, Tokens and Commit are set here.
func serve(t *testing.T, driver string, tokens map[string]string, cfg Config, seats ...string) *served {
	t.Helper()
	l, err := game.OpenLeague(context.Background(), driver, game.Env{Getenv: os.Getenv, MaxSeats: game.MaxServedSeats}, seats)
	if err != nil {
		t.Fatal(err)
	}
	sv := &served{league: l, commits: map[string]int{}, acts: map[string][]string{}, states: map[string][]byte{}}
	cfg.Game, cfg.League, cfg.Tokens = driver, l, tokens
	cfg.Commit = func(c Save) error {
		sv.mu.Lock()
		defer sv.mu.Unlock()
		if c.Act != "" {
			sv.commits[c.Seat]++
			sv.acts[c.Seat] = append(sv.acts[c.Seat], c.Act)
		}
		sv.states[c.Seat] = c.State
		return nil
	}
	if sv.Server, err = New(cfg); err != nil {
		l.Close()
		t.Fatal(err)
	}
	ts := httptest.NewServer(sv.Handler())
	sv.URL = ts.URL + Path
	t.Cleanup(func() {
		sv.Close()
		ts.Close()
		l.Close()
		sv.Wait()
	})
	return sv
}

// commitsOf is how many times seat's state was committed.
func (sv *served) commitsOf(seat string) int {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.commits[seat]
}

// bearer adds a token to every request.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// connect is a go-sdk client of url with token; opts may be nil.
func connect(t *testing.T, url, token string, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	sess, err := dial(url, token, opts)
	if err != nil {
		t.Fatalf("connecting with %.5s…: %v", token, err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

func dial(url, token string, opts *sdk.ClientOptions) (*sdk.ClientSession, error) {
	c := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, opts)
	tr := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}, MaxRetries: -1}
	return c.Connect(context.Background(), tr, nil)
}

// call calls a tool and returns its text; a protocol error fails the test.
func call(t *testing.T, sess *sdk.ClientSession, name string, args any) (string, *sdk.CallToolResult) {
	t.Helper()
	res, err := sess.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return strings.Join(texts, "\n"), res
}

// read reads a resource's text.
func read(t *testing.T, sess *sdk.ClientSession, uri string) string {
	t.Helper()
	res, err := sess.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("reading %s: %v", uri, err)
	}
	return res.Contents[0].Text
}

// post sends one JSON-RPC initialize request with the headers given and returns the
// status.
func post(t *testing.T, url string, header map[string]string) int {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// triggerOf reads the trigger a resource update carries.
func triggerOf(t *testing.T, meta sdk.Meta) game.Trigger {
	t.Helper()
	b, err := json.Marshal(meta[TriggerMeta])
	if err != nil {
		t.Fatal(err)
	}
	var tr game.Trigger
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatalf("the update's _meta %s: %v", b, err)
	}
	return tr
}
