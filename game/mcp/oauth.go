package mcp

import (
	"context"
	"errors"
	"fmt"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/secret"
	"html"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// A remote server that answers 401 is authorized with OAuth's authorization code flow,
// by the SDK's AuthorizationCodeHandler (metadata discovery, client ID metadata
// document, pre-registration or dynamic client registration, PKCE, token exchange,
// refresh, scope step-up on 403 insufficient_scope). coplay's side is the person: the
// authorization URL is printed and opened in the browser ($BROWSER, the URL as its last
// argument, else the platform's opener), and the browser's redirect is caught on a
// loopback listener. The tokens and the client coplay registered are kept across runs
// in a TokenStore (tokens.go: the OS keyring, else a 0600 file), refreshed before they
// expire (grant.go), and never put in the session, the journal, an event or a log.

// DefaultOAuthWait is how long coplay waits for the browser to come back.
const DefaultOAuthWait = 5 * time.Minute

// OAuth is how coplay identifies itself to a server's authorization server.
type OAuth struct {
	// ClientID and ClientSecretEnv name a client registered with the authorization
	// server beforehand; the secret is read from that environment variable when
	// needed and kept in memory only. Empty: the client registers itself (dynamic
	// client registration) or names its metadata document.
	ClientID        string
	ClientSecretEnv string
	// ClientMetadataURL is the https URL of coplay's client ID metadata document, for
	// authorization servers that take one instead of registration.
	ClientMetadataURL string
	// IdPIssuer, IdPClientID and IdPTokenEnv authorize through the organisation's
	// identity provider instead of the browser (enterprise.go, SEP-990): its issuer
	// URL, coplay's client id there, and the environment variable holding the ID
	// token it issued to the person. They go with ClientID (and its secret), coplay's
	// client at the MCP server's authorization server.
	IdPIssuer   string
	IdPClientID string
	IdPTokenEnv string
	// Wait is how long to wait for the browser's redirect (0 = DefaultOAuthWait).
	Wait time.Duration
	// Open shows the authorization URL to the person; nil opens it in the browser.
	Open func(url string) error
	// Say tells the person something (where to authorize); nil writes to stderr before
	// play starts and to the log (a server log line of coplay's own) during play.
	Say func(string)
}

// newOAuth builds the OAuth handler of a Game reached over HTTP. getenv reads the
// client secret's variable. A grant kept from an earlier run (tokens.go) is its first
// token source, and the client coplay registered then is used again when its loopback
// redirect port is free.
func (g *Game) newOAuth(getenv func(string) (string, bool)) (*oauthHandler, error) {
	o := g.cfg.OAuth
	resource, err := resourceKey(g.cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("mcp: %w", err)
	}
	store := g.cfg.Tokens
	if store == nil {
		store = &memStore{}
	}
	say := g.sayFunc()
	kept, err := store.Load(resource)
	if err != nil {
		say(fmt.Sprintf("MCP server %s: %v; coplay authorizes anew", g.name, err))
		kept = nil
	}
	port := 0
	if kept != nil && kept.Registered && kept.RedirectURL != "" && o.ClientID == "" {
		if p, ok := loopbackPort(kept.RedirectURL); ok && portFree(p) {
			port = p
		}
	}
	reuse := port != 0
	if port == 0 {
		if port, err = freePort(); err != nil {
			return nil, fmt.Errorf("mcp server %s: no loopback port for OAuth's redirect: %w", g.name, err)
		}
	}
	redirect := "http://127.0.0.1:" + strconv.Itoa(port) + "/callback"
	u, _ := url.Parse(g.cfg.URL) // checked by resourceKey
	// HopGuard: no redirect takes the client secret or a code elsewhere or to http.
	watch := &metaWatcher{base: secret.HopGuard(nil), origin: u.Scheme + "://" + u.Host}
	client := &http.Client{Transport: watch}
	h := &oauthHandler{g: g, resource: resource, store: store, watch: watch}
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL: redirect,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			return g.authorizeInBrowser(ctx, port, args.URL)
		},
		// SEP-2207: a client that keeps refresh tokens says so when it registers, and
		// asks for offline_access where the authorization server lists it.
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{redirect}, ClientName: "coplay",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		}},
		RequestRefreshToken: true,
		Client:              client,
		NewTokenSource: func(ctx context.Context, c *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			gr := Grant{Resource: resource, ClientID: c.ClientID, RedirectURL: c.RedirectURL, AuthStyle: int(c.Endpoint.AuthStyle),
				AuthURL: c.Endpoint.AuthURL, TokenURL: c.Endpoint.TokenURL, RevocationURL: watch.revocation(c.Endpoint.TokenURL, g.refusedRevocation(say)), Scopes: c.Scopes,
				AccessToken: tok.AccessToken, RefreshToken: tok.RefreshToken, TokenType: tok.TokenType, Expiry: tok.Expiry, Issued: clock()}
			// Only a client coplay registered is kept whole: a person's client secret
			// stays in the person's environment variable.
			if c.ClientID != o.ClientID && c.ClientID != o.ClientMetadataURL {
				gr.Registered, gr.ClientSecret = true, c.ClientSecret
			}
			src := newGrantSource(ctx, c, gr, store, g.name, say)
			src.save()
			h.setSource(src)
			return src, nil
		},
	}
	if kept != nil && kept.AccessToken+kept.RefreshToken != "" {
		c := kept.oauth2Config()
		c.RedirectURL = redirect
		src := newGrantSource(context.WithValue(context.Background(), oauth2.HTTPClient, client), c, *kept, store, g.name, say)
		cfg.InitialTokenSource = src
		h.setSource(src)
	}
	if o.ClientMetadataURL != "" {
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: o.ClientMetadataURL}
	}
	switch {
	case o.ClientID != "":
		creds := &oauthex.ClientCredentials{ClientID: o.ClientID}
		if o.ClientSecretEnv != "" {
			secret, ok := getenv(o.ClientSecretEnv)
			if !ok || secret == "" {
				return nil, fmt.Errorf("mcp: the OAuth client secret's variable %s is not set in the environment", o.ClientSecretEnv)
			}
			creds.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: secret}
		}
		cfg.PreregisteredClient = creds
	case reuse:
		// The client registered in an earlier run, at the same redirect: no second
		// registration when the browser is needed again.
		creds := &oauthex.ClientCredentials{ClientID: kept.ClientID}
		if kept.ClientSecret != "" {
			creds.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: kept.ClientSecret}
		}
		cfg.PreregisteredClient = creds
	}
	sdkH, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		return nil, fmt.Errorf("mcp server %s: OAuth settings: %w", g.name, err)
	}
	h.h = sdkH
	return h, nil
}

// refusedRevocation tells the person, through say, of a revocation endpoint coplay will
// not send tokens to.
func (g *Game) refusedRevocation(say func(string)) func(error) {
	return func(err error) {
		say(fmt.Sprintf("MCP server %s: %v: coplay will not send tokens there at logout", g.name, err))
	}
}

// oauth2Config is the client and endpoints of a kept grant, for refreshing it.
func (gr *Grant) oauth2Config() *oauth2.Config {
	return &oauth2.Config{ClientID: gr.ClientID, ClientSecret: gr.ClientSecret, Scopes: gr.Scopes,
		Endpoint: oauth2.Endpoint{AuthURL: gr.AuthURL, TokenURL: gr.TokenURL, AuthStyle: oauth2.AuthStyle(gr.AuthStyle)}}
}

// sayFunc is how the OAuth flow tells the person something: Config.OAuth.Say, else the
// Log pane while playing and stderr before.
func (g *Game) sayFunc() func(string) {
	if g.cfg.OAuth.Say != nil {
		return g.cfg.OAuth.Say
	}
	return func(s string) {
		if g.hosts.lastHost() != nil { // playing: the Log pane, not over the screen
			g.note("%s", s)
			return
		}
		fmt.Fprintln(os.Stderr, s)
	}
}

// loopbackPort is the port of a loopback redirect URL.
func loopbackPort(redirect string) (int, bool) {
	u, err := url.Parse(redirect)
	if err != nil || u.Hostname() != "127.0.0.1" {
		return 0, false
	}
	p, err := strconv.Atoi(u.Port())
	return p, err == nil && p > 0
}

// portFree reports whether a loopback port can be listened on now.
func portFree(port int) bool {
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

// oauthHandler is the SDK's handler with errors that say what failed and where, and
// the grant source in use (kept across runs, grant.go).
type oauthHandler struct {
	h        *auth.AuthorizationCodeHandler
	g        *Game
	resource string
	store    TokenStore
	watch    *metaWatcher
	mu       sync.Mutex
	src      *grantSource
}

func (o *oauthHandler) setSource(s *grantSource) {
	o.mu.Lock()
	o.src = s
	o.mu.Unlock()
}

// refreshFault is the last refresh that failed other than by refusal (the
// authorization server did not answer), or nil.
func (o *oauthHandler) refreshFault() error {
	if o == nil {
		return nil
	}
	o.mu.Lock()
	s := o.src
	o.mu.Unlock()
	if s == nil {
		return nil
	}
	return s.failed()
}

// TokenSource returns the tokens obtained so far (none before the first 401).
func (o *oauthHandler) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	return o.h.TokenSource(ctx)
}

// Authorize runs the authorization flow after a 401 (or a 403 asking for more scopes).
func (o *oauthHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	status := resp.StatusCode
	o.watch.newFlow()
	err := o.h.Authorize(ctx, req, resp)
	if err == nil {
		return nil
	}
	var be *browserError
	if errors.As(err, &be) {
		return err
	}
	return fmt.Errorf("the MCP server %s answered %d and authorizing coplay with it failed: %s", o.g.name, status, oauthHint(err))
}

// oauthHint puts the SDK's error in words for the person.
func oauthHint(err error) string {
	s := err.Error()
	switch {
	case strings.Contains(s, "protected resource metadata") || strings.Contains(s, "authorization server metadata") || strings.Contains(s, "metadata"):
		return "no usable OAuth metadata (the server names no authorization server, or it publishes none): " + s
	case strings.Contains(s, "regist"):
		return "the authorization server refused to register coplay (give a pre-registered client with --mcp-client-id): " + s
	case strings.Contains(s, "token"):
		return "the authorization server did not hand out a token: " + s
	}
	return s
}

// browserError is a failure of the person's part of the flow (the browser), already in
// the person's words.
type browserError struct{ msg string }

// Error says what went wrong, in the person's words.
func (e *browserError) Error() string { return e.msg }

// authorizeInBrowser shows the authorization URL, opens it, and waits for the browser's
// redirect to the loopback listener on port.
func (g *Game) authorizeInBrowser(ctx context.Context, port int, authURL string) (*auth.AuthorizationResult, error) {
	o := g.cfg.OAuth
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return nil, &browserError{fmt.Sprintf("mcp server %s: cannot listen for OAuth's redirect on 127.0.0.1:%d: %v", g.name, port, err)}
	}
	got := make(chan callback, 1)
	srv := &http.Server{Handler: callbackHandler(got), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(l)
	defer srv.Close()

	say := g.sayFunc()
	say(fmt.Sprintf("The MCP server %s needs you to authorize coplay: open %s", g.name, authURL))
	open := o.Open
	if open == nil {
		open = game.OpenURL
	}
	if err := open(authURL); err != nil {
		say(fmt.Sprintf("(the browser could not be started: %v; open the address by hand)", err))
	}
	wait := o.Wait
	if wait <= 0 {
		wait = DefaultOAuthWait
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case c := <-got:
		if c.err != "" {
			return nil, &browserError{fmt.Sprintf("the authorization server of MCP server %s refused: %s", g.name, c.err)}
		}
		return &auth.AuthorizationResult{Code: c.code, State: c.state, Iss: c.iss}, nil
	case <-t.C:
		return nil, &browserError{fmt.Sprintf("no answer from the browser within %s for MCP server %s: authorize in the browser, then start coplay again", wait, g.name)}
	case <-ctx.Done():
		return nil, &browserError{fmt.Sprintf("authorizing with MCP server %s was cancelled: %v", g.name, ctx.Err())}
	}
}

// callback is what the browser brought back.
type callback struct{ code, state, iss, err string }

// callbackHandler takes the authorization server's redirect.
func callbackHandler(got chan<- callback) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		c := callback{code: q.Get("code"), state: q.Get("state"), iss: q.Get("iss")}
		if e := q.Get("error"); e != "" {
			c.err = strings.TrimSpace(e + " " + q.Get("error_description"))
		} else if c.code == "" {
			c.err = "the redirect carried no authorization code"
		}
		select {
		case got <- c:
		default: // an answer came already
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		msg := "coplay is authorized. You can close this tab."
		if c.err != "" {
			msg = "coplay was not authorized: " + c.err
		}
		fmt.Fprintf(w, "<!doctype html><title>coplay</title><p>%s</p>\n", html.EscapeString(msg))
	})
}

// freePort finds a loopback port that is free now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// check reports OAuth settings that cannot work, before anything is started.
func (o OAuth) check(stdio bool) error {
	switch {
	case (o.ClientID != "" || o.ClientSecretEnv != "" || o.ClientMetadataURL != "") && stdio:
		return errors.New("mcp: OAuth settings are for a URL; a stdio server is not reached over HTTP")
	case o.ClientSecretEnv != "" && o.ClientID == "":
		return errors.New("mcp: a client secret goes with a client id (--mcp-client-id)")
	case (o.IdPIssuer != "" || o.IdPClientID != "" || o.IdPTokenEnv != "") && stdio:
		return errors.New("mcp: identity provider settings are for a URL; a stdio server is not reached over HTTP")
	case (o.IdPIssuer != "" || o.IdPClientID != "" || o.IdPTokenEnv != "") && (o.IdPIssuer == "" || o.IdPClientID == "" || o.IdPTokenEnv == "" || o.ClientID == ""):
		return errors.New("mcp: authorizing through an identity provider needs its issuer (--mcp-idp-issuer), coplay's client id there (--mcp-idp-client-id), the variable holding your ID token (--mcp-idp-token-env), and coplay's client at the MCP server (--mcp-client-id)")
	case o.ClientMetadataURL != "" && !strings.HasPrefix(o.ClientMetadataURL, "https://"):
		return fmt.Errorf("mcp: the client metadata document %q must be an https URL", o.ClientMetadataURL)
	}
	return nil
}

// secrets returns the client secret and the ID token, for the scrubber: it is shown and written nowhere.
func (o OAuth) secrets(getenv func(string) (string, bool)) []string {
	var out []string
	for _, name := range []string{o.ClientSecretEnv, o.IdPTokenEnv} {
		if name == "" {
			continue
		}
		if v, ok := getenv(name); ok && v != "" {
			out = append(out, v)
		}
	}
	return out
}
