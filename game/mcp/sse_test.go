package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// sseServer is a 2024-11-05 server (the go-sdk's SSE handler) that counts the streams
// opened and the POSTs to its URL that are not for a session (streamable HTTP's).
type sseServer struct {
	*httptest.Server
	mu            sync.Mutex
	streams, bare int
}

func newSSEServer(t *testing.T) *sseServer {
	t.Helper()
	s := &sseServer{}
	h := sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return dungeon() }, nil)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		switch {
		case r.Method == http.MethodGet:
			s.streams++
		case r.URL.Query().Get("sessionid") == "":
			s.bare++
		}
		s.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *sseServer) counts() (streams, bare int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.streams, s.bare
}

// An SSE server found by the fallback stays one: when its stream drops, coplay
// reconnects over SSE (no second try of streamable HTTP), and the model is told.
func TestSSEFallbackReconnects(t *testing.T) {
	s := newSSEServer(t)
	g, err := Open(context.Background(), Config{URL: s.URL + "/sse", OAuth: OAuth{Say: func(string) {}}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	res, err := g.Call(context.Background(), "dig", json.RawMessage(`{}`))
	if err != nil || res.Output != "dug" {
		t.Fatalf("dig over SSE: %+v, %v", res, err)
	}
	_, bare := s.counts()
	if bare == 0 {
		t.Fatalf("streamable HTTP was not tried first")
	}
	s.CloseClientConnections()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		g.mu.Lock()
		gone := g.sess == nil
		g.mu.Unlock()
		if gone {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the dropped stream was never noticed")
		}
	}
	res, err = g.Call(context.Background(), "dig", json.RawMessage(`{}`))
	if err != nil || res.Output != "dug" {
		t.Fatalf("dig after the stream dropped: %+v, %v", res, err)
	}
	streams, bare2 := s.counts()
	if streams != 2 || bare2 != bare {
		t.Errorf("%d streams, %d → %d streamable tries; want a second stream and no new streamable try", streams, bare, bare2)
	}
	obs, err := g.Observe(context.Background())
	if err != nil || !strings.Contains(obs.Summary, "Reconnected to MCP server") {
		t.Errorf("the observation after reconnecting: %v %q", err, obs.Summary)
	}
}

// Connecting over SSE keeps to the caller's deadline, though the stream outlives the
// connect: a server that opens the stream but never names its endpoint is given up on
// when the deadline passes, and says so.
func TestSSEConnectKeepsTheDeadline(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := Open(ctx, Config{URL: srv.URL + "/sse", Transport: TransportSSE})
	if err == nil || !strings.Contains(err.Error(), "opening the SSE stream") || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Errorf("a stream that never names its endpoint: %v", err)
	}
}

// A URL server that is down says so in plain words over SSE too.
func TestSSEServerDown(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL + "/sse"
	srv.Close()
	_, err := Open(context.Background(), Config{URL: url, Transport: TransportSSE})
	if err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("a server that is down: %v", err)
	}
}

// --mcp-transport takes http or sse, for a URL only.
func TestTransportCheck(t *testing.T) {
	if err := (Config{URL: "http://x/mcp", Transport: "websocket"}).check(); err == nil || !strings.Contains(err.Error(), `"websocket" is not one of http, sse`) {
		t.Errorf("an unknown transport: %v", err)
	}
	if err := (Config{Command: "srv", Transport: TransportSSE}).check(); err == nil || !strings.Contains(err.Error(), "stdio") {
		t.Errorf("a transport for a command: %v", err)
	}
}

// Authorizing through an identity provider needs all of its settings, and a URL.
func TestEnterpriseCheck(t *testing.T) {
	full := OAuth{IdPIssuer: "https://idp", IdPClientID: "c", IdPTokenEnv: "ID_TOKEN", ClientID: "mcp-client"}
	if err := (Config{URL: "http://x/mcp", OAuth: full}).check(); err != nil {
		t.Errorf("complete settings: %v", err)
	}
	partial := full
	partial.IdPTokenEnv = ""
	if err := (Config{URL: "http://x/mcp", OAuth: partial}).check(); err == nil || !strings.Contains(err.Error(), "--mcp-idp-token-env") {
		t.Errorf("no ID token variable: %v", err)
	}
	if err := (Config{Command: "srv", OAuth: full}).check(); err == nil || !strings.Contains(err.Error(), "stdio") {
		t.Errorf("for a command: %v", err)
	}
}
