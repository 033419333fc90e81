package mcp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zalando/go-keyring"

	"github.com/coplayhq/coplay/game/mcp/mcptest"
)

// `coplay mcp logout` forgets a keyring entry it cannot read, as the error that
// reports it says.
func TestLogoutForgetsAnUnreadableKeyringEntry(t *testing.T) {
	keyring.MockInit()
	const key = "https://corrupt.example/mcp"
	if err := keyring.Set(keyringService, key, "{not json"); err != nil {
		t.Fatal(err)
	}
	_, err := keyringStore{}.Load(key)
	if err == nil || !strings.Contains(err.Error(), "coplay mcp logout") {
		t.Fatalf("loading the corrupt entry: %v", err)
	}
	said, err := Logout(context.Background(), key, keyringStore{}, nil)
	if err != nil || !strings.Contains(said, "could not be read") {
		t.Fatalf("logout: %q, %v", said, err)
	}
	if _, err := keyring.Get(keyringService, key); !errors.Is(err, keyring.ErrNotFound) {
		t.Errorf("the entry is still in the keyring: %v", err)
	}
}

// An entry of the token file that does not decode spoils only its own server: the
// others load, and logout forgets it.
func TestLogoutForgetsAnUnreadableFileEntry(t *testing.T) {
	path := filepath.Join(t.TempDir(), TokenFileName)
	s := &FileTokenStore{Path: path}
	if err := s.Save(&Grant{Resource: "http://good.example/mcp", ClientID: "c", AccessToken: "at-good"}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	b = []byte(strings.Replace(string(b), "{", `{"http://bad.example/mcp": "not a grant",`, 1))
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load("http://bad.example/mcp"); err == nil || !strings.Contains(err.Error(), "coplay mcp logout") {
		t.Fatalf("loading the bad entry: %v", err)
	}
	if g, err := s.Load("http://good.example/mcp"); err != nil || g == nil || g.AccessToken != "at-good" {
		t.Fatalf("the good entry: %+v, %v", g, err)
	}
	said, err := Logout(context.Background(), "http://bad.example/mcp", s, nil)
	if err != nil || !strings.Contains(said, "could not be read") {
		t.Fatalf("logout: %q, %v", said, err)
	}
	if rs, _ := s.Resources(); len(rs) != 1 || rs[0] != "http://good.example/mcp" {
		t.Errorf("left in the file: %v", rs)
	}
}

// A revocation endpoint on plain http to another machine is refused where it is
// learnt (not kept) and where it would be used (a grant kept before this check):
// the tokens and the client secret are never sent there.
func TestRevocationOverPlainHTTPIsRefused(t *testing.T) {
	revoke, conns := mcptest.NotLoopback(t)

	// Used: a grant kept with such an endpoint is forgotten without sending anything.
	store := &memStore{}
	const res = "https://mcp.example/mcp"
	store.Save(&Grant{Resource: res, ClientID: "c", ClientSecret: "client-secret-77", AccessToken: "at-77", RefreshToken: "rt-77", RevocationURL: revoke + "/revoke"})
	said, err := Logout(context.Background(), res, store, nil)
	if err != nil || !strings.Contains(said, "plain http") || !strings.Contains(said, "did not send") {
		t.Fatalf("logout: %q, %v", said, err)
	}
	if g, _ := store.Load(res); g != nil {
		t.Error("the grant was not forgotten")
	}

	// Learnt: the authorization server's metadata names it; the grant keeps none, and
	// the person is told.
	a := newAuthServer(t)
	a.revocation = revoke + "/revoke"
	var told []string
	kept := &memStore{}
	g, err := Open(context.Background(), Config{URL: a.URL + "/mcp", Tokens: kept, OAuth: OAuth{Open: browser, Say: func(s string) { told = append(told, s) }}})
	if err != nil {
		t.Fatal(err)
	}
	g.Close()
	key, _ := resourceKey(a.URL + "/mcp")
	if gr, _ := kept.Load(key); gr == nil || gr.RevocationURL != "" {
		t.Errorf("kept grant %+v; want it without the http revocation endpoint", gr)
	}
	if !strings.Contains(strings.Join(told, "\n"), "plain http") {
		t.Errorf("the person was not told: %q", told)
	}
	if n := conns.Load(); n != 0 {
		t.Errorf("the http revocation endpoint got %d connections", n)
	}

	// A loopback one (a local test server) is kept.
	b := newAuthServer(t)
	b.revocation = b.URL + "/revoke"
	kept = &memStore{}
	g, err = Open(context.Background(), Config{URL: b.URL + "/mcp", Tokens: kept, OAuth: OAuth{Open: browser, Say: func(string) {}}})
	if err != nil {
		t.Fatal(err)
	}
	g.Close()
	key, _ = resourceKey(b.URL + "/mcp")
	if gr, _ := kept.Load(key); gr == nil || gr.RevocationURL != b.URL+"/revoke" {
		t.Errorf("kept grant %+v; want the loopback revocation endpoint", gr)
	}
}
