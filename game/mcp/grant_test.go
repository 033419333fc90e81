package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coplayhq/coplay/game/mcp/mcptest"
)

// skew moves the grant sources' clock on, so a token "expires" without a test sleeping.
func skew(t *testing.T) *atomic.Int64 {
	var by atomic.Int64
	clock = func() time.Time { return time.Now().Add(time.Duration(by.Load())) }
	t.Cleanup(func() { clock = time.Now })
	return &by
}

// person is the browser and the ear of a test: it counts the browser's visits and
// keeps what coplay said.
type person struct {
	mu      sync.Mutex
	visits  int
	said    []string
	refused bool // the browser does not come back
}

func (p *person) oauth() OAuth {
	return OAuth{Wait: 5 * time.Second,
		Open: func(u string) error {
			p.mu.Lock()
			p.visits++
			refused := p.refused
			p.mu.Unlock()
			if !refused {
				return browser(u)
			}
			return nil
		},
		Say: func(s string) { p.mu.Lock(); p.said = append(p.said, s); p.mu.Unlock() }}
}

func (p *person) count() (int, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.visits, strings.Join(p.said, "\n")
}

// oauthServer starts an MCP server behind an authorization server whose tokens last an
// hour, closed when the test ends.
func oauthServer(t *testing.T) *mcptest.OAuthServer {
	t.Helper()
	srv, err := mcptest.NewOAuthServer("127.0.0.1:0", time.Hour, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// mustOpen opens the game cfg names, or fails the test.
func mustOpen(t *testing.T, cfg Config) *Game {
	t.Helper()
	g, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func tick(t *testing.T, g *Game) {
	t.Helper()
	res, err := g.Call(context.Background(), "tick", json.RawMessage(`{}`))
	if err != nil || res.Err != nil || !strings.HasPrefix(res.Output, "tick ") {
		t.Fatalf("tick: %+v, %v", res, err)
	}
}

// A grant is refreshed before it expires and kept: the next Open (a --resume) starts
// from it with no browser; when the authorization server refuses the refresh, the
// browser is asked once more.
func TestOAuthGrantRefreshedKeptAndResumed(t *testing.T) {
	by := skew(t)
	srv := oauthServer(t)
	store := &memStore{}
	p := &person{}
	g := mustOpen(t, Config{URL: srv.URL, Tokens: store, OAuth: p.oauth()})
	tick(t, g)
	kept, _ := store.Load(srv.URL)
	if kept == nil || kept.RefreshToken == "" || !kept.Registered || kept.RevocationURL == "" {
		t.Fatalf("kept after authorizing: %+v", kept)
	}
	first := kept.AccessToken
	by.Store(int64(59 * time.Minute)) // within a quarter of its life of expiring
	tick(t, g)
	if st := srv.Stats(); st.Refreshes != 1 || st.Unauthorized != 1 {
		t.Errorf("near expiry: %d refreshes, %d 401s; want 1 refresh and only the first 401", st.Refreshes, st.Unauthorized)
	}
	kept, _ = store.Load(srv.URL)
	if kept.AccessToken == first {
		t.Errorf("the refreshed token was not kept")
	}
	g.Close()

	by.Store(0)
	kept.Expiry = clock().Add(-time.Minute) // the next night: the kept token has expired
	store.Save(kept)
	g2 := mustOpen(t, Config{URL: srv.URL, Tokens: store, OAuth: p.oauth()})
	tick(t, g2)
	g2.Close()
	if visits, _ := p.count(); visits != 1 {
		t.Errorf("resuming opened the browser: %d visits in all", visits)
	}
	if st := srv.Stats(); st.Refreshes != 2 || st.Unauthorized != 1 || st.Registrations != 1 {
		t.Errorf("resuming: %+v; want a second refresh, no 401, no new registration", st)
	}

	srv.RevokeAll() // the grant is withdrawn, and the kept access token has expired
	kept, _ = store.Load(srv.URL)
	kept.Expiry = clock().Add(-time.Minute)
	store.Save(kept)
	g3 := mustOpen(t, Config{URL: srv.URL, Tokens: store, OAuth: p.oauth()})
	defer g3.Close()
	tick(t, g3)
	visits, said := p.count()
	if visits != 2 || !strings.Contains(said, "refused to renew coplay's authorization (invalid_grant)") {
		t.Errorf("after a refused refresh: %d visits, said %q; want the browser once more and why", visits, said)
	}
	if st := srv.Stats(); st.Registrations != 1 {
		t.Errorf("the kept client was registered again (%d registrations)", st.Registrations)
	}
}

// A refresh that fails mid-run (the token endpoint is down) is a fault in plain words,
// not a result for the model and not the browser; once the endpoint is back, play goes
// on with the same grant.
func TestOAuthRefreshFailureMidRunIsAFault(t *testing.T) {
	by := skew(t)
	srv := oauthServer(t)
	p := &person{}
	g := mustOpen(t, Config{URL: srv.URL, Tokens: &memStore{}, OAuth: p.oauth()})
	defer g.Close()
	tick(t, g)
	srv.TokenEndpointDown(true)
	by.Store(int64(59 * time.Minute))
	res, err := g.Call(context.Background(), "tick", json.RawMessage(`{}`))
	if err == nil || !containsAll(err.Error(), "renewing coplay's authorization with MCP server", "failed (the token endpoint answered 503", "tries again") {
		t.Fatalf("a call while the token endpoint is down: %+v, %v; want a fault saying so", res, err)
	}
	if st := srv.Stats(); st.Ticks != 1 {
		t.Errorf("the call reached the server: %d ticks", st.Ticks)
	}
	srv.TokenEndpointDown(false)
	tick(t, g)
	if visits, _ := p.count(); visits != 1 {
		t.Errorf("the browser was opened %d times; want once, at the start", visits)
	}
}

// The registration asks for the refresh_token grant, and offline_access is asked for
// where the authorization server lists it (SEP-2207).
func TestOAuthRegistersForRefresh(t *testing.T) {
	srv := oauthServer(t)
	var authURL string
	o := (&person{}).oauth()
	o.Open = func(u string) error { authURL = u; return browser(u) }
	g := mustOpen(t, Config{URL: srv.URL, OAuth: o})
	defer g.Close()
	if got := strings.Join(srv.Stats().RegisteredGrants, " "); got != "authorization_code refresh_token" {
		t.Errorf("registered grant_types %q", got)
	}
	if !strings.Contains(authURL, "offline_access") {
		t.Errorf("offline_access not asked for: %s", authURL)
	}
}

// Two runs against one server share the kept grant: when the other refreshed (and the
// server rotated the refresh token), this one takes the kept tokens instead of
// refreshing with a used refresh token and asking the browser again.
func TestOAuthGrantSharedBetweenRuns(t *testing.T) {
	by := skew(t)
	srv := oauthServer(t)
	store := &memStore{}
	p := &person{}
	a := mustOpen(t, Config{URL: srv.URL, Tokens: store, OAuth: p.oauth()})
	defer a.Close()
	b := mustOpen(t, Config{URL: srv.URL, Tokens: store, OAuth: p.oauth()})
	defer b.Close()
	tick(t, a)
	tick(t, b)
	by.Store(int64(59 * time.Minute))
	tick(t, a) // refreshes, rotating the refresh token
	tick(t, b) // takes a's tokens
	if visits, _ := p.count(); visits != 1 {
		t.Errorf("the browser was opened %d times; want once", visits)
	}
	if st := srv.Stats(); st.Refreshes != 1 || st.Refused != 0 {
		t.Errorf("%d refreshes, %d refused; want one refresh, none refused", st.Refreshes, st.Refused)
	}
}
