package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coplayhq/coplay/secret"
	"github.com/zalando/go-keyring"
)

// An OAuth grant outlives the process: coplay keeps each server's tokens and the client
// it registered, keyed by the server's resource URL, in the OS keyring, or where there
// is none (a headless box) in a file only the user can read. Nothing of it goes into
// the session, the notebook, an export or an event.

// Grant is what coplay keeps of one server's authorization.
type Grant struct {
	// Resource is the MCP server's URL (resourceKey), the key it is kept under.
	Resource string `json:"resource"`
	// The client: registered by coplay (Registered), or given by the person (its secret
	// then stays in the person's environment variable and is not kept).
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
	Registered   bool   `json:"registered,omitempty"`
	// RedirectURL is the loopback redirect a registered client was registered with.
	RedirectURL string `json:"redirect_url,omitempty"`
	AuthStyle   int    `json:"auth_style,omitempty"`
	// The authorization server's endpoints.
	AuthURL       string   `json:"auth_url"`
	TokenURL      string   `json:"token_url"`
	RevocationURL string   `json:"revocation_url,omitempty"`
	Scopes        []string `json:"scopes,omitempty"`
	// The tokens.
	AccessToken  string    `json:"access_token,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	TokenType    string    `json:"token_type,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	// Issued is when the access token was obtained, so its lifetime is known.
	Issued time.Time `json:"issued,omitzero"`
}

// TokenStore keeps grants across runs. Load returns nil and no error when it has none
// for the resource.
type TokenStore interface {
	Load(resource string) (*Grant, error)
	Save(g *Grant) error
	Delete(resource string) error
	// Where says where grants are kept, for the person: "the OS keyring",
	// "/home/x/.config/coplay/mcp-tokens.json".
	Where() string
}

// resourceKey is the form of an MCP server's URL grants are kept under: scheme and
// host in lower case, no default port, no user info, query or fragment, no trailing
// slash. `coplay mcp logout URL` finds a grant whatever way the URL was written.
func resourceKey(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%q is not an http or https URL", secret.RedactURL(raw))
	}
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname())
	if p := u.Port(); p != "" && !(scheme == "http" && p == "80") && !(scheme == "https" && p == "443") {
		host = net.JoinHostPort(host, p)
	} else if strings.Contains(host, ":") { // IPv6 without a port
		host = "[" + host + "]"
	}
	return scheme + "://" + host + strings.TrimRight(u.EscapedPath(), "/"), nil
}

// keyringService is the service name grants are kept under in the OS keyring.
const keyringService = "coplay-mcp"

// TokenFileName is the file grants are kept in when there is no keyring, in coplay's
// config directory.
const TokenFileName = "mcp-tokens.json"

// DefaultTokenStore is the OS keyring when one answers, else the 0600 file in coplay's
// config directory. COPLAY_MCP_TOKENS=file chooses the file and =keyring the keyring
// without trying it first.
func DefaultTokenStore() (TokenStore, error) {
	dir, err := configDir()
	if err != nil {
		return nil, fmt.Errorf("mcp: no place to keep OAuth tokens (set XDG_CONFIG_HOME): %w", err)
	}
	file := &FileTokenStore{Path: filepath.Join(dir, TokenFileName)}
	switch os.Getenv("COPLAY_MCP_TOKENS") {
	case "file":
		return file, nil
	case "keyring":
		return keyringStore{}, nil
	case "":
	default:
		return nil, fmt.Errorf("mcp: COPLAY_MCP_TOKENS is %q: use file or keyring (or leave it unset)", os.Getenv("COPLAY_MCP_TOKENS"))
	}
	if keyringAnswers() {
		return keyringStore{}, nil
	}
	return file, nil
}

// configDir is coplay's configuration directory, as config.Dir says it
// ($XDG_CONFIG_HOME/coplay, else ~/.config/coplay); not imported, because package
// config's tests import this package.
func configDir() (string, error) {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "coplay"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".config", "coplay"), nil
}

var keyringProbe struct {
	once sync.Once
	ok   bool
}

// keyringAnswers reports whether the OS keyring can be used. On Linux and the BSDs it
// is the Secret Service on the session's D-Bus: with no session bus (a headless box,
// ssh) it is not tried at all, because the D-Bus library would try to start one. A
// keyring that does not answer within two seconds (a locked one asking for its
// password on a screen nobody watches) is not used either.
func keyringAnswers() bool {
	keyringProbe.once.Do(func() {
		if runtime.GOOS != "darwin" && runtime.GOOS != "windows" && os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
			return
		}
		done := make(chan error, 1)
		go func() { _, err := keyring.Get(keyringService, "probe"); done <- err }()
		select {
		case err := <-done:
			keyringProbe.ok = err == nil || errors.Is(err, keyring.ErrNotFound)
		case <-time.After(2 * time.Second):
		}
	})
	return keyringProbe.ok
}

// keyringStore keeps each grant as one JSON secret in the OS keyring, under the
// service coplay-mcp and the resource URL as the user.
type keyringStore struct{}

func (keyringStore) Where() string { return "the OS keyring (service " + keyringService + ")" }

func (keyringStore) Load(resource string) (*Grant, error) {
	s, err := keyring.Get(keyringService, resource)
	if errors.Is(err, keyring.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mcp: reading the OAuth tokens of %s from the OS keyring: %w", resource, err)
	}
	var g Grant
	if err := json.Unmarshal([]byte(s), &g); err != nil {
		return nil, fmt.Errorf("mcp: the OAuth tokens of %s in the OS keyring are unreadable (%v); `coplay mcp logout %s` forgets them", resource, err, resource)
	}
	return &g, nil
}

func (keyringStore) Save(g *Grant) error {
	b, err := json.Marshal(g)
	if err != nil {
		return err
	}
	if err := keyring.Set(keyringService, g.Resource, string(b)); err != nil {
		return fmt.Errorf("mcp: keeping the OAuth tokens of %s in the OS keyring: %w", g.Resource, err)
	}
	return nil
}

func (keyringStore) Delete(resource string) error {
	err := keyring.Delete(keyringService, resource)
	if err != nil && !errors.Is(err, keyring.ErrNotFound) {
		return fmt.Errorf("mcp: removing the OAuth tokens of %s from the OS keyring: %w", resource, err)
	}
	return nil
}

// FileTokenStore keeps every grant in one JSON file that only the user can read and
// write (0600, in a 0700 directory). It is rewritten whole through a temporary file, so
// a crash leaves the old file or the new one, never half of one.
type FileTokenStore struct {
	Path string
	mu   sync.Mutex
}

// Where names the file.
func (f *FileTokenStore) Where() string { return f.Path }

// read returns every entry of the file, each still encoded: an entry that does not
// decode (written by hand, or by another version) spoils only its own server's grant,
// and `coplay mcp logout` can still forget it. A file that is not a JSON object at all
// is an error that says what to do.
func (f *FileTokenStore) read() (map[string]json.RawMessage, error) {
	b, err := os.ReadFile(f.Path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]json.RawMessage{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mcp: reading the OAuth token file: %w", err)
	}
	all := map[string]json.RawMessage{}
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, fmt.Errorf("mcp: the OAuth token file %s is unreadable (%v): remove it and authorize again", f.Path, err)
	}
	return all, nil
}

func (f *FileTokenStore) write(all map[string]json.RawMessage) error {
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o700); err != nil {
		return fmt.Errorf("mcp: the directory of the OAuth token file: %w", err)
	}
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(f.Path), ".mcp-tokens-*")
	if err != nil {
		return fmt.Errorf("mcp: writing the OAuth token file: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("mcp: writing the OAuth token file: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("mcp: writing the OAuth token file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("mcp: writing the OAuth token file: %w", err)
	}
	if err := os.Rename(tmp.Name(), f.Path); err != nil {
		return fmt.Errorf("mcp: writing the OAuth token file: %w", err)
	}
	return nil
}

// Load returns the grant kept for resource, or nil.
func (f *FileTokenStore) Load(resource string) (*Grant, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	all, err := f.read()
	if err != nil {
		return nil, err
	}
	raw, ok := all[resource]
	if !ok || string(raw) == "null" {
		return nil, nil
	}
	var g Grant
	if err := json.Unmarshal(raw, &g); err != nil {
		return nil, fmt.Errorf("mcp: the OAuth tokens of %s in %s are unreadable (%v); `coplay mcp logout %s` forgets them", resource, f.Path, err, resource)
	}
	return &g, nil
}

// Save keeps g, replacing what was kept for its resource.
func (f *FileTokenStore) Save(g *Grant) error {
	b, err := json.Marshal(g)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	all, err := f.read()
	if err != nil {
		return err
	}
	all[g.Resource] = b
	return f.write(all)
}

// Delete forgets resource's grant, readable or not; the file goes when it holds no
// more.
func (f *FileTokenStore) Delete(resource string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	all, err := f.read()
	if err != nil {
		return err
	}
	if _, ok := all[resource]; !ok {
		return nil
	}
	delete(all, resource)
	if len(all) == 0 {
		if err := os.Remove(f.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("mcp: removing the OAuth token file: %w", err)
		}
		return nil
	}
	return f.write(all)
}

// Resources lists the servers the file keeps grants for, sorted.
func (f *FileTokenStore) Resources() ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	all, err := f.read()
	if err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(all)), nil
}

// memStore keeps grants in memory only: a store for a process that may keep nothing.
type memStore struct {
	mu sync.Mutex
	m  map[string]Grant
}

func (m *memStore) Where() string { return "memory only" }

func (m *memStore) Load(resource string) (*Grant, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if g, ok := m.m[resource]; ok {
		return &g, nil
	}
	return nil, nil
}

func (m *memStore) Save(g *Grant) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[string]Grant{}
	}
	m.m[g.Resource] = *g
	return nil
}

func (m *memStore) Delete(resource string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.m, resource)
	return nil
}
