package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// Enterprise-managed authorization (the SEP-990 extension, "cross-app access"): where
// an organisation's identity provider vouches for the person, coplay trades the ID
// token the person got from it (OAuth.IdPTokenEnv names the variable that holds it)
// for an identity assertion grant at the IdP (RFC 8693 token exchange), and that for
// an access token at the MCP server's authorization server (RFC 7523 JWT bearer
// grant), with the client pre-registered there (OAuth.ClientID and its secret). No
// browser is involved: a 401 runs the exchange again with the same ID token. These
// tokens are not kept across runs: the ID token in the environment is the lasting part.

// enterpriseOAuth runs the exchange when the server answers 401. It follows the SDK's
// EnterpriseHandler, but authenticates at the MCP server's token endpoint the way its
// metadata asks (client_secret_basic or client_secret_post; the SDK's only posts).
type enterpriseOAuth struct {
	g      *Game
	getenv func(string) (string, bool)
	client *http.Client

	mu sync.Mutex
	ts oauth2.TokenSource
}

// TokenSource returns the access token obtained so far (none before the first 401).
func (e *enterpriseOAuth) TokenSource(context.Context) (oauth2.TokenSource, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.ts, nil
}

// Authorize finds the server's authorization server and runs the exchange.
func (e *enterpriseOAuth) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	status := resp.StatusCode
	tok, err := e.exchange(ctx, req, resp)
	if err != nil {
		return fmt.Errorf("the MCP server %s answered %d and authorizing coplay through the identity provider failed: %w", e.g.name, status, err)
	}
	e.mu.Lock()
	e.ts = oauth2.StaticTokenSource(tok)
	e.mu.Unlock()
	return nil
}

func (e *enterpriseOAuth) exchange(ctx context.Context, req *http.Request, resp *http.Response) (*oauth2.Token, error) {
	o := e.g.cfg.OAuth
	idToken, ok := e.getenv(o.IdPTokenEnv)
	if !ok || idToken == "" {
		return nil, fmt.Errorf("the identity provider's ID token variable %s is not set in the environment", o.IdPTokenEnv)
	}
	secret := ""
	if o.ClientSecretEnv != "" {
		if secret, ok = e.getenv(o.ClientSecretEnv); !ok || secret == "" {
			return nil, fmt.Errorf("the client secret's variable %s is not set in the environment", o.ClientSecretEnv)
		}
	}
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	prm, err := findResourceMetadata(ctx, challenges, req.URL.String(), e.client)
	if err != nil {
		return nil, err
	}
	// The identity provider: ID token → identity assertion grant (RFC 8693).
	idpClient := &http.Client{Transport: &idpMetaFix{base: e.client.Transport, issuer: strings.TrimRight(o.IdPIssuer, "/")}, CheckRedirect: e.client.CheckRedirect}
	idp, err := auth.GetAuthServerMetadata(ctx, o.IdPIssuer, idpClient)
	if err == nil && idp == nil {
		err = errors.New("it publishes no metadata")
	}
	if err != nil {
		return nil, fmt.Errorf("the identity provider %s: %w", o.IdPIssuer, err)
	}
	as := prm.AuthorizationServers[0]
	jag, err := oauthex.ExchangeToken(ctx, idp.TokenEndpoint, &oauthex.TokenExchangeRequest{
		RequestedTokenType: oauthex.TokenTypeIDJAG, Audience: as, Resource: prm.Resource, Scope: prm.ScopesSupported,
		SubjectToken: idToken, SubjectTokenType: oauthex.TokenTypeIDToken,
	}, &oauthex.ClientCredentials{ClientID: o.IdPClientID}, e.client)
	if err != nil {
		return nil, fmt.Errorf("the identity provider did not exchange the ID token: %w", err)
	}
	// The MCP server's authorization server: identity assertion → access token (RFC 7523).
	meta, err := auth.GetAuthServerMetadata(ctx, as, e.client)
	if err == nil && meta == nil {
		err = errors.New("it publishes no metadata")
	}
	if err != nil {
		return nil, fmt.Errorf("the authorization server %s: %w", as, err)
	}
	style := oauth2.AuthStyleInHeader // client_secret_basic, RFC 7591's default
	if !slices.Contains(meta.TokenEndpointAuthMethodsSupported, "client_secret_basic") && slices.Contains(meta.TokenEndpointAuthMethodsSupported, "client_secret_post") {
		style = oauth2.AuthStyleInParams
	}
	if secret == "" {
		style = oauth2.AuthStyleInParams // a public client names itself in the body
	}
	cfg := &oauth2.Config{ClientID: o.ClientID, ClientSecret: secret, Scopes: prm.ScopesSupported,
		Endpoint: oauth2.Endpoint{TokenURL: meta.TokenEndpoint, AuthStyle: style}}
	tok, err := cfg.Exchange(context.WithValue(ctx, oauth2.HTTPClient, e.client), "",
		oauth2.SetAuthURLParam("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
		oauth2.SetAuthURLParam("assertion", jag.AccessToken))
	if err != nil {
		return nil, fmt.Errorf("the authorization server did not take the identity assertion: %w", err)
	}
	return tok, nil
}

// findResourceMetadata fetches the protected resource metadata (RFC 9728) the 401 names,
// else at the MCP endpoint's path, else at the root.
func findResourceMetadata(ctx context.Context, challenges []oauthex.Challenge, resource string, client *http.Client) (*oauthex.ProtectedResourceMetadata, error) {
	u, err := url.Parse(resource)
	if err != nil {
		return nil, err
	}
	type try struct{ meta, resource string }
	var tries []try
	for _, c := range challenges {
		if m := c.Params["resource_metadata"]; m != "" {
			tries = append(tries, try{m, resource})
			break
		}
	}
	atPath, root := *u, *u
	atPath.Path, atPath.RawQuery = "/.well-known/oauth-protected-resource/"+strings.TrimLeft(u.Path, "/"), ""
	root.Path, root.RawQuery = "/.well-known/oauth-protected-resource", ""
	origin := *u
	origin.Path, origin.RawQuery = "", ""
	tries = append(tries, try{atPath.String(), resource}, try{root.String(), origin.String()})
	var last error
	for _, t := range tries {
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, t.meta, t.resource, client)
		if err != nil {
			last = err
			continue
		}
		if prm == nil {
			continue
		}
		if len(prm.AuthorizationServers) == 0 {
			return nil, errors.New("its protected resource metadata names no authorization server")
		}
		return prm, nil
	}
	if last == nil {
		last = errors.New("it publishes no protected resource metadata")
	}
	return nil, fmt.Errorf("no protected resource metadata: %w", last)
}

var _ auth.OAuthHandler = (*enterpriseOAuth)(nil)

// idpMetaFix passes requests on, and where the identity provider's metadata lists no
// PKCE method adds S256. The SDK's discovery refuses an authorization server without
// PKCE, which is right for the authorization code flow, but the IdP is only asked for a
// token exchange here, which has no PKCE, and an IdP that does no authorization code
// flow for coplay need not list it.
type idpMetaFix struct {
	base   http.RoundTripper
	issuer string
}

func (f *idpMetaFix) RoundTrip(req *http.Request) (*http.Response, error) {
	base := f.base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusOK || req.Method != http.MethodGet ||
		!strings.HasPrefix(req.URL.String(), f.issuer+"/.well-known/") && !strings.Contains(req.URL.Path, "/.well-known/openid-configuration") {
		return resp, err
	}
	body, rerr := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var doc map[string]any
	if rerr != nil || json.Unmarshal(body, &doc) != nil {
		return resp, nil
	}
	if iss, _ := doc["issuer"].(string); strings.TrimRight(iss, "/") != f.issuer {
		return resp, nil // another server's metadata: as it is
	}
	if _, ok := doc["code_challenge_methods_supported"]; !ok {
		doc["code_challenge_methods_supported"] = []string{"S256"}
		if b, err := json.Marshal(doc); err == nil {
			resp.Body = io.NopCloser(bytes.NewReader(b))
			resp.ContentLength = int64(len(b))
			resp.Header.Del("Content-Length")
		}
	}
	return resp, nil
}
