package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/config"
)

// A grant survives in the file, which only the user can read; forgetting the last one
// removes the file; an unreadable file says where it is and what to do.
func TestFileTokenStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config", "coplay", TokenFileName)
	s := &FileTokenStore{Path: path}
	if g, err := s.Load("http://a/mcp"); g != nil || err != nil {
		t.Fatalf("an empty store: %+v, %v", g, err)
	}
	exp := time.Now().Add(time.Hour).Round(time.Second)
	for _, r := range []string{"http://a/mcp", "http://b/mcp"} {
		if err := s.Save(&Grant{Resource: r, ClientID: "c", AccessToken: "at-" + r, RefreshToken: "rt", Expiry: exp}); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v, mode %v; want 0600", err, fi)
	}
	if di, _ := os.Stat(filepath.Dir(path)); di.Mode().Perm() != 0o700 {
		t.Errorf("its directory is %v; want 0700", di.Mode().Perm())
	}
	g, err := (&FileTokenStore{Path: path}).Load("http://b/mcp") // another process
	if err != nil || g == nil || g.AccessToken != "at-http://b/mcp" || !g.Expiry.Equal(exp) {
		t.Fatalf("loaded %+v, %v", g, err)
	}
	if rs, _ := s.Resources(); len(rs) != 2 {
		t.Errorf("resources %v", rs)
	}
	s.Delete("http://a/mcp")
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the file went with a grant still in it: %v", err)
	}
	s.Delete("http://b/mcp")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the file stays with no grant in it: %v", err)
	}
	os.WriteFile(path, []byte("{not json"), 0o600)
	if _, err := s.Load("http://a/mcp"); err == nil || !containsAll(err.Error(), path, "remove it") {
		t.Errorf("an unreadable file: %v", err)
	}
}

// Without a session bus (a headless box) the keyring is not tried and grants go to the
// 0600 file in coplay's config directory; COPLAY_MCP_TOKENS chooses, and a wrong value
// is refused.
func TestDefaultTokenStoreFallsBackToAFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("COPLAY_MCP_TOKENS", "")
	s, err := DefaultTokenStore()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "coplay", TokenFileName); s.Where() != want {
		t.Errorf("kept in %s; want %s", s.Where(), want)
	}
	t.Setenv("COPLAY_MCP_TOKENS", "keyring")
	if s, _ := DefaultTokenStore(); s.Where() == filepath.Join(dir, "coplay", TokenFileName) {
		t.Errorf("COPLAY_MCP_TOKENS=keyring gave the file")
	}
	t.Setenv("COPLAY_MCP_TOKENS", "vault")
	if _, err := DefaultTokenStore(); err == nil || !containsAll(err.Error(), "COPLAY_MCP_TOKENS", "vault") {
		t.Errorf("a wrong COPLAY_MCP_TOKENS: %v", err)
	}
}

// The same server written differently is one key.
func TestResourceKey(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:3001/mcp":    "http://127.0.0.1:3001/mcp",
		"HTTP://Example.COM:80/mcp/":   "http://example.com/mcp",
		"https://u:p@x.io:443/a?q=1#f": "https://x.io/a",
		"https://x.io":                 "https://x.io",
		"http://[::1]:8080/mcp":        "http://[::1]:8080/mcp",
	} {
		if got, err := resourceKey(in); err != nil || got != want {
			t.Errorf("resourceKey(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := resourceKey("ftp://x/mcp"); err == nil {
		t.Errorf("an ftp URL is a key")
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// The token file sits in the directory package config calls coplay's (not imported by
// this package, whose tests config's import).
func TestConfigDirIsConfigs(t *testing.T) {
	for _, xdg := range []string{"", t.TempDir()} {
		t.Setenv("XDG_CONFIG_HOME", xdg)
		got, err1 := configDir()
		want, err2 := config.Dir()
		if got != want || err1 != nil || err2 != nil {
			t.Errorf("XDG_CONFIG_HOME=%q: %q (%v); config.Dir says %q (%v)", xdg, got, err1, want, err2)
		}
	}
}
