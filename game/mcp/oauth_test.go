package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// authServer is an MCP server behind OAuth with its own authorization server, all on one
// httptest server: protected resource metadata, authorization server metadata, dynamic
// client registration, an authorization endpoint that redirects at once (or refuses),
// and a token endpoint.
type authServer struct {
	*httptest.Server
	refuse bool // the authorization endpoint answers access_denied
	// revocation, if set, is the revocation_endpoint its metadata names.
	revocation string
	mu         sync.Mutex
	verifier   string // the last code_verifier the token endpoint got
}

const goodToken = "tok-" + "s3cr3t-access-token"

func newAuthServer(t *testing.T) *authServer {
	t.Helper()
	a := &authServer{}
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return dungeon() }, nil)
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+goodToken {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+a.URL+`/.well-known/oauth-protected-resource/mcp"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	})
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"resource": a.URL + "/mcp", "authorization_servers": []string{a.URL}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		meta := map[string]any{"issuer": a.URL, "authorization_endpoint": a.URL + "/authorize",
			"token_endpoint": a.URL + "/token", "registration_endpoint": a.URL + "/register",
			"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"none"}}
		if a.revocation != "" {
			meta["revocation_endpoint"] = a.revocation
		}
		writeJSON(w, meta)
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(map[string]any{"client_id": "coplay-1", "redirect_uris": []string{}})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		back, _ := url.Parse(q.Get("redirect_uri"))
		v := url.Values{"state": {q.Get("state")}}
		if a.refuse {
			v.Set("error", "access_denied")
		} else {
			v.Set("code", "code-1")
		}
		back.RawQuery = v.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		a.mu.Lock()
		a.verifier = r.Form.Get("code_verifier")
		a.mu.Unlock()
		if r.Form.Get("code") != "code-1" {
			http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
			return
		}
		writeJSON(w, map[string]any{"access_token": goodToken, "token_type": "Bearer", "expires_in": 3600})
	})
	a.Server = httptest.NewServer(mux)
	t.Cleanup(a.Close)
	return a
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// browser is a fake browser: it follows the authorization URL and its redirect back.
func browser(u string) error {
	go func() {
		if resp, err := http.Get(u); err == nil {
			resp.Body.Close()
		}
	}()
	return nil
}

// A server that answers 401 is authorized through the browser: the URL is shown, the
// redirect caught on loopback, the token exchanged (with PKCE) and used; the token is in
// nothing the person or the model reads.
func TestOAuthAuthorizationCodeFlow(t *testing.T) {
	a := newAuthServer(t)
	var said []string
	g, err := Open(context.Background(), Config{URL: a.URL + "/mcp", OAuth: OAuth{Open: browser, Say: func(s string) { said = append(said, s) }}})
	if err != nil {
		t.Fatalf("open behind OAuth: %v", err)
	}
	defer g.Close()
	if len(said) != 1 || !strings.Contains(said[0], "needs you to authorize coplay: open "+a.URL+"/authorize?") {
		t.Errorf("what the person was told: %q", said)
	}
	if a.verifier == "" {
		t.Errorf("no PKCE code_verifier reached the token endpoint")
	}
	res, err := g.Call(context.Background(), "dig", json.RawMessage(`{}`))
	if err != nil || res.Output != "dug" {
		t.Fatalf("a call after authorizing: %+v, %v", res, err)
	}
	if strings.Contains(strings.Join(said, " "), goodToken) {
		t.Errorf("the token was shown")
	}
}

// Each failure of the browser's part says what happened: the authorization server
// refused, or the browser never came back.
func TestOAuthFailuresSayWhy(t *testing.T) {
	a := newAuthServer(t)
	a.refuse = true
	_, err := Open(context.Background(), Config{URL: a.URL + "/mcp", OAuth: OAuth{Open: browser, Say: func(string) {}}})
	if err == nil || !strings.Contains(err.Error(), "refused: access_denied") {
		t.Errorf("a refusal: %v", err)
	}
	b := newAuthServer(t)
	nobody := func(string) error { return nil }
	_, err = Open(context.Background(), Config{URL: b.URL + "/mcp", OAuth: OAuth{Open: nobody, Say: func(string) {}, Wait: 200 * time.Millisecond}})
	if err == nil || !strings.Contains(err.Error(), "no answer from the browser within 200ms") {
		t.Errorf("no browser: %v", err)
	}
	if err := (Config{URL: "http://x/mcp", OAuth: OAuth{ClientSecretEnv: "S"}}).check(); err == nil {
		t.Errorf("a secret without a client id is accepted")
	}
}
