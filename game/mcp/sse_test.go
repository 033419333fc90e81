package mcp

import (
	"context"
	"encoding/json"
	"fmt"
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

// The credentials of these tests: a header read from the environment, and a bearer
// kept from an earlier run.
const (
	originHeaderValue = "hdr-secret-4242"
	originBearer      = "bearer-secret-4242"
)

// recorder is a loopback server that notes every request's credentials and passes it
// to next (nil: 404).
type recorder struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string // "METHOD path X-Api-Key=… Authorization=…"
}

func newRecorder(t *testing.T, tls bool, next http.Handler) *recorder {
	t.Helper()
	r := &recorder{}
	h := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.seen = append(r.seen, fmt.Sprintf("%s %s X-Api-Key=%s Authorization=%s", req.Method, req.URL.Path, req.Header.Get("X-Api-Key"), req.Header.Get("Authorization")))
		r.mu.Unlock()
		if next == nil {
			http.NotFound(w, req)
			return
		}
		next.ServeHTTP(w, req)
	})
	if tls {
		r.Server = httptest.NewTLSServer(h)
	} else {
		r.Server = httptest.NewServer(h)
	}
	t.Cleanup(r.Close)
	return r
}

func (r *recorder) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.seen...)
}

// credentialed is a Config for url with a header from the environment and a kept
// OAuth grant, so every request to the server's origin carries both.
func credentialed(t *testing.T, url, transport string) Config {
	t.Helper()
	t.Setenv("COPLAY_TEST_ORIGIN_KEY", originHeaderValue)
	key, err := resourceKey(url)
	if err != nil {
		t.Fatal(err)
	}
	store := &memStore{}
	store.Save(&Grant{Resource: key, ClientID: "coplay", TokenURL: "http://127.0.0.1:1/token", AccessToken: originBearer, TokenType: "Bearer"})
	return Config{URL: url, Transport: transport, Headers: map[string]string{"X-Api-Key": "$COPLAY_TEST_ORIGIN_KEY"},
		Tokens: store, OAuth: OAuth{Say: func(string) {}}}
}

// noCredentials fails the test when a request the server saw carried either.
func noCredentials(t *testing.T, where string, seen []string) {
	t.Helper()
	for _, s := range seen {
		if strings.Contains(s, originHeaderValue) || strings.Contains(s, originBearer) {
			t.Errorf("%s got a credential: %s", where, s)
		}
	}
}

// An SSE server whose endpoint event names another origin: coplay does not connect,
// says why naming both origins, and the other origin gets no request at all.
func TestSSEEndpointOnAnotherOriginIsRefused(t *testing.T) {
	other := newRecorder(t, false, nil)
	sse := newRecorder(t, false, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			http.Error(w, "no", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: endpoint\ndata: %s/message?sessionid=1\n\n", other.URL)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	// Forced to SSE, and found by the fallback (its POST answered 405).
	for _, transport := range []string{TransportSSE, ""} {
		_, err := Open(context.Background(), credentialed(t, sse.URL+"/sse", transport))
		if err == nil {
			t.Fatal("connected to an endpoint on another origin")
		}
		t.Logf("transport %q: the person reads: %v", transport, err)
		for _, want := range []string{"another origin", sse.URL, other.URL} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("transport %q: the error does not say %q: %v", transport, want, err)
			}
		}
	}
	if got := other.requests(); len(got) != 0 {
		t.Errorf("the other origin got requests: %q", got)
	}
	// The stream itself was opened with the credentials: they belong there.
	if got := sse.requests(); len(got) == 0 || !strings.Contains(got[len(got)-1], originHeaderValue) || !strings.Contains(got[len(got)-1], originBearer) {
		t.Errorf("the SSE stream was opened without the credentials: %q", got)
	}
}

// A streamable HTTP server that answers 307 to another origin (on loopback: the same
// host on another port, where net/http itself would keep Authorization): play goes on
// there, without the header and without the bearer.
func TestRedirectToAnotherOriginDropsCredentials(t *testing.T) {
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return dungeon() }, nil)
	other := newRecorder(t, false, mcpHandler)
	first := newRecorder(t, false, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	g, err := Open(context.Background(), credentialed(t, first.URL+"/mcp", ""))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if _, err := g.Call(context.Background(), "dig", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	if len(other.requests()) == 0 {
		t.Fatal("the redirect was not followed")
	}
	noCredentials(t, "the origin redirected to", other.requests())
	if got := first.requests(); !strings.Contains(got[0], originHeaderValue) || !strings.Contains(got[0], originBearer) {
		t.Errorf("the configured origin did not get the header: %q", got)
	}
}

// An https server that redirects to plain http: refused, and the http server gets
// nothing.
func TestHTTPSToHTTPRedirectIsRefused(t *testing.T) {
	plain := newRecorder(t, false, nil)
	tls := newRecorder(t, true, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, plain.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	cfg := credentialed(t, tls.URL+"/mcp", TransportHTTP)
	d := newHTTPDialer(cfg, func(k string) (string, bool) {
		if k == "COPLAY_TEST_ORIGIN_KEY" {
			return originHeaderValue, true
		}
		return "", false
	})
	d.base = tls.Client().Transport
	_, err := openWith(context.Background(), cfg, "tls", d.dial)
	if err == nil || !strings.Contains(err.Error(), "https to plain http") {
		t.Fatalf("a redirect to http was followed: %v", err)
	}
	if got := plain.requests(); len(got) != 0 {
		t.Errorf("the http server got requests: %q", got)
	}
	if got := tls.requests(); len(got) == 0 || !strings.Contains(got[0], originHeaderValue) {
		t.Errorf("the https server did not get the header: %q", got)
	}
}
