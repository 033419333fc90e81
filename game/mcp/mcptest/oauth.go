package mcptest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// OAuthServer is an MCP server behind OAuth 2.1, with its own authorization server on
// the same origin, built from the MCP authorization spec (2025-11-25) and the RFCs it
// names: protected resource metadata (RFC 9728) named in the 401's WWW-Authenticate,
// authorization server metadata (RFC 8414) listing offline_access and a revocation
// endpoint, dynamic client registration (RFC 7591), an authorization endpoint that
// approves at once (the person's part is the browser following the redirect), a token
// endpoint for the authorization_code grant with PKCE S256 and the refresh_token grant
// (refresh tokens rotate; they are issued only to a client registered for the
// refresh_token grant that asked for offline_access), and token revocation (RFC 7009).
// Access tokens live TokenLife. Its one tool, "tick", waits TickWait and counts.
type OAuthServer struct {
	URL       string // the MCP endpoint, http://127.0.0.1:PORT/mcp
	TokenLife time.Duration
	TickWait  time.Duration

	base string
	mu   sync.Mutex
	srv  *http.Server
	// clients registered, by id: did it ask for the refresh_token grant?
	clients map[string]bool
	codes   map[string]codeGrant
	access  map[string]time.Time // access token → expiry
	refresh map[string]string    // refresh token → client
	issued  []string             // every token handed out
	down    bool                 // the token endpoint answers 503
	stats   OAuthStats
}

type codeGrant struct {
	client, challenge, redirect, resource string
	offline                               bool
}

// OAuthStats counts what the server saw.
type OAuthStats struct {
	Registrations  int // dynamic client registrations
	Authorizations int // visits to the authorization endpoint (the browser)
	CodeGrants     int // authorization codes exchanged
	Refreshes      int // refresh_token grants answered with a token
	Refused        int // refresh_token grants refused
	Unauthorized   int // MCP requests answered 401
	Revoked        int // tokens revoked
	Ticks          int // tool calls answered
	// RegisteredGrants are the grant_types of the last registration.
	RegisteredGrants []string
}

// Stats returns a copy of the counts.
func (s *OAuthServer) Stats() OAuthStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.RegisteredGrants = append([]string(nil), st.RegisteredGrants...)
	return st
}

// RevokeAll forgets every token, as an authorization server does when a grant is
// withdrawn: the next refresh is refused (invalid_grant).
func (s *OAuthServer) RevokeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.access, s.refresh = map[string]time.Time{}, map[string]string{}
}

// TokenEndpointDown makes the token endpoint answer 503 (down is true) or work again.
func (s *OAuthServer) TokenEndpointDown(down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = down
}

// Expired waits until every access token handed out so far has expired (or ctx ends):
// a test that needs the kept token stale waits for exactly that, no longer.
func (s *OAuthServer) Expired(ctx context.Context) error {
	s.mu.Lock()
	var last time.Time
	for _, exp := range s.access {
		if exp.After(last) {
			last = exp
		}
	}
	s.mu.Unlock()
	t := time.NewTimer(time.Until(last))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Tokens returns every access and refresh token the server ever handed out, for tests
// that look for them where they must not be.
func (s *OAuthServer) Tokens() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.issued...)
}

// NewOAuthServer serves on addr ("127.0.0.1:0" for a free port) until Close.
func NewOAuthServer(addr string, tokenLife, tickWait time.Duration) (*OAuthServer, error) {
	s := &OAuthServer{TokenLife: tokenLife, TickWait: tickWait, clients: map[string]bool{}, codes: map[string]codeGrant{},
		access: map[string]time.Time{}, refresh: map[string]string{}}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s.base = "http://" + l.Addr().String()
	s.URL = s.base + "/mcp"
	server := sdk.NewServer(&sdk.Implementation{Name: "oauth-ticker", Version: "1"}, nil)
	server.AddTool(&sdk.Tool{Name: "tick", Description: "waits a moment and counts", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			select {
			case <-time.After(s.TickWait):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			s.mu.Lock()
			s.stats.Ticks++
			n := s.stats.Ticks
			s.mu.Unlock()
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("tick %d", n)}}}, nil
		})
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil)
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if !s.valid(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")) {
			s.mu.Lock()
			s.stats.Unauthorized++
			s.mu.Unlock()
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", resource_metadata="`+s.base+`/.well-known/oauth-protected-resource/mcp"`)
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token"})
			return
		}
		mcpHandler.ServeHTTP(w, r)
	})
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"resource": s.URL, "authorization_servers": []string{s.base}, "scopes_supported": []string{"tick"}})
	})
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"issuer": s.base, "authorization_endpoint": s.base + "/authorize",
			"token_endpoint": s.base + "/token", "registration_endpoint": s.base + "/register", "revocation_endpoint": s.base + "/revoke",
			"response_types_supported": []string{"code"}, "grant_types_supported": []string{"authorization_code", "refresh_token"},
			"code_challenge_methods_supported": []string{"S256"}, "token_endpoint_auth_methods_supported": []string{"none"},
			"scopes_supported": []string{"tick", "offline_access"}})
	})
	mux.HandleFunc("POST /register", s.register)
	mux.HandleFunc("GET /authorize", s.authorize)
	mux.HandleFunc("POST /token", s.token)
	mux.HandleFunc("POST /revoke", s.revoke)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(l)
	return s, nil
}

// Close stops the server.
func (s *OAuthServer) Close() error { return s.srv.Close() }

func (s *OAuthServer) valid(tok string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.access[tok]
	return ok && time.Now().Before(exp)
}

func (s *OAuthServer) register(w http.ResponseWriter, r *http.Request) {
	var meta struct {
		RedirectURIs []string `json:"redirect_uris"`
		GrantTypes   []string `json:"grant_types"`
	}
	if err := json.NewDecoder(r.Body).Decode(&meta); err != nil || len(meta.RedirectURIs) == 0 {
		writeJSON(w, 400, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	id := "client-" + rand.Text()[:8]
	s.mu.Lock()
	s.clients[id] = contains(meta.GrantTypes, "refresh_token")
	s.stats.Registrations++
	s.stats.RegisteredGrants = meta.GrantTypes
	s.mu.Unlock()
	writeJSON(w, 201, map[string]any{"client_id": id, "redirect_uris": meta.RedirectURIs, "grant_types": meta.GrantTypes, "token_endpoint_auth_method": "none"})
}

func (s *OAuthServer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	back, err := url.Parse(q.Get("redirect_uri"))
	s.mu.Lock()
	s.stats.Authorizations++
	_, known := s.clients[q.Get("client_id")]
	s.mu.Unlock()
	if err != nil || !known || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
		http.Error(w, "bad authorization request", http.StatusBadRequest)
		return
	}
	code := rand.Text()
	s.mu.Lock()
	s.codes[code] = codeGrant{client: q.Get("client_id"), challenge: q.Get("code_challenge"), redirect: q.Get("redirect_uri"),
		resource: q.Get("resource"), offline: contains(strings.Fields(q.Get("scope")), "offline_access")}
	s.mu.Unlock()
	v := url.Values{"code": {code}, "state": {q.Get("state")}}
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (s *OAuthServer) token(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	f := r.Form
	if id, _, ok := r.BasicAuth(); ok && f.Get("client_id") == "" { // client_secret_basic, with an empty secret
		if id, err := url.QueryUnescape(id); err == nil {
			f.Set("client_id", id)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "temporarily_unavailable"})
		return
	}
	var client string
	var offline bool
	switch f.Get("grant_type") {
	case "authorization_code":
		c, ok := s.codes[f.Get("code")]
		delete(s.codes, f.Get("code"))
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		if !ok || c.client != f.Get("client_id") || c.redirect != f.Get("redirect_uri") || base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge {
			writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
			return
		}
		client, offline = c.client, c.offline && s.clients[c.client]
		s.stats.CodeGrants++
	case "refresh_token":
		c, ok := s.refresh[f.Get("refresh_token")]
		delete(s.refresh, f.Get("refresh_token")) // rotation: each refresh token works once
		if !ok || c != f.Get("client_id") {
			s.stats.Refused++
			writeJSON(w, 400, map[string]string{"error": "invalid_grant", "error_description": "unknown or used refresh token"})
			return
		}
		client, offline = c, true
		s.stats.Refreshes++
	default:
		writeJSON(w, 400, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	access := "at-" + rand.Text()
	s.access[access] = time.Now().Add(s.TokenLife)
	s.issued = append(s.issued, access)
	resp := map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": int(s.TokenLife / time.Second)}
	if offline {
		rt := "rt-" + rand.Text()
		s.refresh[rt] = client
		s.issued = append(s.issued, rt)
		resp["refresh_token"] = rt
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, 200, resp)
}

func (s *OAuthServer) revoke(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	t := r.Form.Get("token")
	s.mu.Lock()
	if _, ok := s.refresh[t]; ok {
		delete(s.refresh, t)
		s.stats.Revoked++
	}
	if _, ok := s.access[t]; ok {
		delete(s.access, t)
		s.stats.Revoked++
	}
	s.mu.Unlock()
	w.WriteHeader(http.StatusOK) // RFC 7009: 200 whether or not the token was known
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
