package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// A grantSource hands the transport its access token. It refreshes the token before it
// expires (a quarter of its lifetime early, at most a minute), so no request meets a
// 401 for an expired token, and keeps every new token in the TokenStore, so the next
// run (--resume) starts from it. A refresh the authorization server refuses
// (invalid_grant: the refresh token expired or was revoked) forgets the tokens and
// lets the request go without them: the server's 401 then starts the browser flow
// again. A refresh that fails any other way (the authorization server is down) is a
// refreshError, which the game reports as a fault in plain words.
type grantSource struct {
	mu    sync.Mutex
	ctx   context.Context // carries the HTTP client refreshes use
	cfg   *oauth2.Config
	grant Grant
	store TokenStore
	name  string // the server, for messages
	say   func(string)
	now   func() time.Time
	warn  sync.Once // a store that fails is said once
	fault error     // the last refresh that failed other than by refusal; nil once one works
}

// newGrantSource starts from g, refreshing with cfg.
func newGrantSource(ctx context.Context, cfg *oauth2.Config, g Grant, store TokenStore, name string, say func(string)) *grantSource {
	return &grantSource{ctx: ctx, cfg: cfg, grant: g, store: store, name: name, say: say, now: clock}
}

// clock is the time grant sources go by; tests move it on instead of sleeping.
var clock = time.Now

// refreshError is a refresh that failed other than by the authorization server's
// refusal: the tokens are kept and the refresh is tried again at the next request.
type refreshError struct {
	name string
	err  error
}

// Error says what failed, for the person.
func (e *refreshError) Error() string {
	return fmt.Sprintf("renewing coplay's authorization with MCP server %s failed (%s); the tokens are kept and coplay tries again at the next step", e.name, refreshCause(e.err))
}

func (e *refreshError) Unwrap() error { return e.err }

// refreshCause puts an oauth2 error briefly: the token endpoint's status and error
// code, or the network's reason.
func refreshCause(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		s := "the token endpoint answered"
		if re.Response != nil {
			s += fmt.Sprintf(" %d", re.Response.StatusCode)
		}
		if re.ErrorCode != "" {
			s += " " + re.ErrorCode
		}
		return s
	}
	return netCause(err)
}

// margin is how long before expiry the token is refreshed.
func (s *grantSource) margin() time.Duration {
	g := s.grant
	if g.Issued.IsZero() || g.Expiry.IsZero() {
		return 30 * time.Second
	}
	return max(min(g.Expiry.Sub(g.Issued)/4, time.Minute), 0)
}

// fresh reports whether the access token may still be sent.
func (s *grantSource) fresh() bool {
	g := s.grant
	return g.AccessToken != "" && (g.Expiry.IsZero() || s.now().Before(g.Expiry.Add(-s.margin())))
}

func (s *grantSource) token() *oauth2.Token {
	return &oauth2.Token{AccessToken: s.grant.AccessToken, TokenType: s.grant.TokenType, RefreshToken: s.grant.RefreshToken, Expiry: s.grant.Expiry}
}

// Token returns an access token with time left on it, refreshing it first if need be.
func (s *grantSource) Token() (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fresh() {
		return s.token(), nil
	}
	s.adoptKept()
	if s.fresh() {
		return s.token(), nil
	}
	if s.grant.RefreshToken == "" {
		if s.grant.AccessToken != "" && s.now().Before(s.grant.Expiry) {
			return s.token(), nil // nothing to renew it with: use it to its end
		}
		// Expired and nothing to renew it with: the server's 401 starts the browser flow.
		return nil, &oauth2.RetrieveError{ErrorCode: "invalid_grant", ErrorDescription: "expired, and no refresh token"}
	}
	issued := s.now()
	tok, err := s.cfg.TokenSource(s.ctx, &oauth2.Token{RefreshToken: s.grant.RefreshToken}).Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && (re.ErrorCode == "invalid_grant" || re.ErrorCode == "invalid_client" || re.ErrorCode == "unauthorized_client") {
			s.say(fmt.Sprintf("MCP server %s: its authorization server refused to renew coplay's authorization (%s); authorize again", s.name, re.ErrorCode))
			s.grant.AccessToken, s.grant.RefreshToken, s.grant.Expiry = "", "", time.Time{}
			s.save()
			s.fault = nil
			// The SDK sends the request without a token on invalid_grant; the 401 that
			// follows runs the authorization flow again.
			return nil, &oauth2.RetrieveError{Response: re.Response, Body: re.Body, ErrorCode: "invalid_grant", ErrorDescription: re.ErrorDescription}
		}
		s.fault = &refreshError{name: s.name, err: err}
		return nil, s.fault
	}
	s.fault = nil
	s.grant.AccessToken, s.grant.TokenType, s.grant.Expiry, s.grant.Issued = tok.AccessToken, tok.TokenType, tok.Expiry, issued
	if tok.RefreshToken != "" { // a server may rotate it; else the old one stays good
		s.grant.RefreshToken = tok.RefreshToken
	}
	s.save()
	return s.token(), nil
}

// adoptKept takes the kept grant when another coplay (a second run against the same
// server) has refreshed it since: a server that rotates refresh tokens has made ours
// useless then. s.mu held.
func (s *grantSource) adoptKept() {
	if s.store == nil {
		return
	}
	kept, err := s.store.Load(s.grant.Resource)
	if err != nil || kept == nil || kept.ClientID != s.grant.ClientID || kept.TokenURL != s.grant.TokenURL ||
		kept.AccessToken == "" || kept.AccessToken == s.grant.AccessToken {
		return
	}
	s.grant = *kept
}

// failed returns the last refresh that failed other than by refusal, if the last
// refresh failed.
func (s *grantSource) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fault
}

// save keeps the grant; a store that fails is said once and the run goes on with the
// tokens in memory.
func (s *grantSource) save() {
	if s.store == nil {
		return
	}
	g := s.grant
	if err := s.store.Save(&g); err != nil {
		s.warn.Do(func() {
			s.say(fmt.Sprintf("MCP server %s: coplay could not keep its authorization for the next run: %v", s.name, err))
		})
	}
}

// asMeta is what coplay keeps of an authorization server's metadata: the endpoint to
// revoke tokens at (RFC 7009), which the SDK reads but does not hand on.
type asMeta struct {
	Issuer             string `json:"issuer"`
	TokenEndpoint      string `json:"token_endpoint"`
	RevocationEndpoint string `json:"revocation_endpoint"`
}

// metaWatcher is the OAuth handler's HTTP transport: it passes every request on,
// notes the revocation endpoint of each authorization server metadata document that
// goes by (by token endpoint), and serves the 2025-03-26 spec's discovery.
//
// Under that spec a server publishes no protected resource metadata, and its own
// origin is its authorization server, whose metadata sits at
// origin/.well-known/oauth-authorization-server but may name another issuer (the
// origin with a path, say). The SDK falls back to the origin when no protected
// resource metadata is found, but then holds the metadata's issuer to the origin
// (RFC 8414) and gives up. So when a flow found no protected resource metadata, the
// issuer of the metadata at the MCP server's own origin is taken as the origin. (With
// no metadata at all the SDK takes the default endpoints /authorize, /token and
// /register at the origin, as that spec says.)
type metaWatcher struct {
	base   http.RoundTripper
	origin string // the MCP server's scheme://host

	mu       sync.Mutex
	seen     map[string]asMeta // by token endpoint
	prmFound bool              // this flow found protected resource metadata
}

// newFlow starts a new authorization flow's discovery.
func (m *metaWatcher) newFlow() {
	m.mu.Lock()
	m.prmFound = false
	m.mu.Unlock()
}

func (m *metaWatcher) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := m.base.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusOK || req.Method != http.MethodGet {
		return resp, err
	}
	if strings.HasPrefix(req.URL.Path, "/.well-known/oauth-protected-resource") {
		m.mu.Lock()
		m.prmFound = true
		m.mu.Unlock()
		return resp, nil
	}
	if !strings.Contains(req.URL.Path, "/.well-known/oauth-authorization-server") && !strings.Contains(req.URL.Path, "/.well-known/openid-configuration") {
		return resp, nil
	}
	body, rerr := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if rerr != nil {
		return resp, nil
	}
	m.mu.Lock()
	legacy := !m.prmFound && req.URL.Scheme+"://"+req.URL.Host == m.origin && req.URL.Path == "/.well-known/oauth-authorization-server"
	m.mu.Unlock()
	if legacy {
		var doc map[string]any
		if json.Unmarshal(body, &doc) == nil {
			if iss, _ := doc["issuer"].(string); iss != m.origin {
				doc["issuer"] = m.origin
				if b, err := json.Marshal(doc); err == nil {
					body = b
					resp.Body = io.NopCloser(bytes.NewReader(body))
					resp.ContentLength = int64(len(body))
					resp.Header.Del("Content-Length")
				}
			}
		}
	}
	var meta asMeta
	if json.Unmarshal(body, &meta) == nil && meta.TokenEndpoint != "" {
		m.mu.Lock()
		if m.seen == nil {
			m.seen = map[string]asMeta{}
		}
		m.seen[meta.TokenEndpoint] = meta
		m.mu.Unlock()
	}
	return resp, nil
}

// revocation returns the revocation endpoint of the authorization server whose token
// endpoint is tokenURL, if its metadata named one that coplay may send tokens to
// (revocationRefused); one it may not is refused, said through refused, and not
// kept.
func (m *metaWatcher) revocation(tokenURL string, refused func(error)) string {
	m.mu.Lock()
	endpoint := m.seen[tokenURL].RevocationEndpoint
	m.mu.Unlock()
	if err := revocationRefused(endpoint); endpoint != "" && err != nil {
		refused(err)
		return ""
	}
	return endpoint
}
