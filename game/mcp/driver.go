package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/secret"
)

// The "mcp" driver: --game mcp --mcp 'COMMAND ARGS' (stdio) or --mcp URL (streamable
// HTTP). What it connects to is the session's saved state, so --resume reconnects to
// the same server without repeating the flags.
func init() {
	game.RegisterDriver(game.Driver{
		Name:    "mcp",
		Summary: "any MCP server's tools as a game (--mcp 'COMMAND ARGS' for stdio, --mcp URL for streamable HTTP)",
		Saves:   true,
		Options: options,
		Open:    openDriver,
	})
}

// saved is what a session keeps of a Config: never a secret (header values are kept
// only when they name environment variables).
type saved struct {
	Command     string            `json:"command,omitempty"`
	URL         string            `json:"url,omitempty"`
	Headers     map[string]string `json:"headers,omitempty"`
	Observe     []string          `json:"observe,omitempty"`
	ObserveTool string            `json:"observe_tool,omitempty"`
	LogLevel    string            `json:"log_level,omitempty"`
	Transport   string            `json:"transport,omitempty"`
	// The OAuth client, never its secret: only the variable that holds it.
	ClientID          string `json:"client_id,omitempty"`
	ClientSecretEnv   string `json:"client_secret_env,omitempty"`
	ClientMetadataURL string `json:"client_metadata_url,omitempty"`
	// An identity provider (enterprise.go), never the ID token: only its variable.
	IdPIssuer   string `json:"idp_issuer,omitempty"`
	IdPClientID string `json:"idp_client_id,omitempty"`
	IdPTokenEnv string `json:"idp_token_env,omitempty"`
	// URLStripped says the URL had user info or a query, left out of URL: --resume
	// asks for the whole URL again rather than connect without them.
	URLStripped bool `json:"url_stripped,omitempty"`
}

// options are the driver's settings: what a session keeps of them (saved) lets --resume
// reconnect without them.
var options = []game.Option{
	{Name: "mcp", Kind: game.OptionString, Usage: "the MCP server for --game mcp: a `command` to start (stdio), or an http(s) URL (streamable HTTP)"},
	{Name: "mcp-header", Kind: game.OptionList, Usage: "an HTTP `header` for an --mcp URL, as 'Name: value'; write secrets as $VAR to read them from the environment (repeatable)"},
	{Name: "mcp-observe", Kind: game.OptionList, Usage: "resource `URI` read at every step as the world (repeatable)"},
	{Name: "mcp-observe-tool", Kind: game.OptionString, Usage: "a read-only `tool` called with {} at every step as the world"},
	{Name: "mcp-client-id", Kind: game.OptionString, Usage: "the OAuth `client id` registered with the authorization server of an --mcp URL (else coplay registers itself)"},
	{Name: "mcp-client-secret-env", Kind: game.OptionString, Usage: "environment `variable` holding the OAuth client's secret (with --mcp-client-id; the secret is never stored)"},
	{Name: "mcp-client-metadata", Kind: game.OptionString, Usage: "the https `URL` of coplay's OAuth client ID metadata document, for authorization servers that take one"},
	{Name: "mcp-idp-issuer", Kind: game.OptionString, Usage: "issuer `URL` of your organisation's identity provider, to authorize an --mcp URL through it (enterprise-managed authorization) instead of the browser"},
	{Name: "mcp-idp-client-id", Kind: game.OptionString, Usage: "the OAuth `client id` coplay has at the identity provider (with --mcp-idp-issuer)"},
	{Name: "mcp-idp-token-env", Kind: game.OptionString, Usage: "environment `variable` holding the ID token the identity provider issued you (with --mcp-idp-issuer; never stored)"},
	{Name: "mcp-transport", Kind: game.OptionString, Usage: "how an --mcp URL is spoken: `http` (streamable HTTP) or sse (the 2024-11-05 HTTP+SSE transport); default: streamable HTTP, and SSE when the server answers as an old one", Enum: []string{TransportHTTP, TransportSSE}},
	{Name: "mcp-log-level", Kind: game.OptionString, Usage: "least severe `level` of the server's log lines to show (logging/setLevel: debug, info, notice, warning, error, …; default info)", Enum: logLevels},
}

// flagValues are the driver's options as given.
type flagValues struct {
	server, observeTool, transport, logLevel  string
	headers, observe                          []string
	clientID, clientSecretEnv, clientMetadata string
	idpIssuer, idpClientID, idpTokenEnv       string
}

// valuesOf reads the options.
func valuesOf(o game.Values) flagValues {
	return flagValues{
		server: o.String("mcp"), headers: o.List("mcp-header"), observe: o.List("mcp-observe"), observeTool: o.String("mcp-observe-tool"),
		clientID: o.String("mcp-client-id"), clientSecretEnv: o.String("mcp-client-secret-env"), clientMetadata: o.String("mcp-client-metadata"),
		idpIssuer: o.String("mcp-idp-issuer"), idpClientID: o.String("mcp-idp-client-id"), idpTokenEnv: o.String("mcp-idp-token-env"),
		transport: o.String("mcp-transport"), logLevel: o.String("mcp-log-level"),
	}
}

// openDriver connects to the server the options (or the session) name.
func openDriver(ctx context.Context, env game.Env) (_ *game.Opened, err error) {
	var cfg Config
	defer func() { err = urlSafe(err, cfg.URL) }()
	if cfg, err = valuesOf(env.Options).config(env.State); err != nil || env.CheckOnly {
		return nil, err
	}
	cfg.LogDir, cfg.Sampling = env.Dir, env.Model
	return open(ctx, cfg)
}

// config is the Config the options say, or, without --mcp, the one the session saved;
// the flags that tune a connection (log level, transport, OAuth) apply to both.
func (v flagValues) config(state []byte) (Config, error) {
	var cfg Config
	if v.server == "" && len(state) > 0 {
		var s saved
		if err := json.Unmarshal(state, &s); err != nil {
			return cfg, fmt.Errorf("the session's MCP server settings are unreadable (%v): pass --mcp again", err)
		}
		if s.URLStripped {
			return cfg, game.FlagErrorf("this session's MCP server URL, %s, had a password or a query, which coplay does not keep (either may hold a secret): pass --mcp with the whole URL again, or send the secret as a header read from the environment (--mcp-header 'Authorization: Bearer $TOKEN'), which the session keeps by the variable's name", s.URL)
		}
		cfg = s.config()
	} else {
		if v.server == "" {
			return cfg, game.FlagErrorf("--game mcp needs --mcp: a command that starts a stdio server ('node dist/index.js stdio') or a streamable HTTP URL (http://127.0.0.1:3001/mcp)")
		}
		if strings.HasPrefix(v.server, "http://") || strings.HasPrefix(v.server, "https://") {
			cfg.URL = v.server
		} else {
			cfg.Command = v.server
		}
		headers, err := parseHeaders(v.headers)
		if err != nil {
			return cfg, err
		}
		cfg.Headers, cfg.Observe, cfg.ObserveTool = headers, v.observe, v.observeTool
	}
	if v.logLevel != "" {
		cfg.LogLevel = v.logLevel
	}
	if v.transport != "" {
		cfg.Transport = v.transport
	}
	if v.clientID != "" || v.clientSecretEnv != "" || v.clientMetadata != "" || v.idpIssuer != "" || v.idpClientID != "" || v.idpTokenEnv != "" {
		cfg.OAuth = OAuth{ClientID: v.clientID, ClientSecretEnv: v.clientSecretEnv, ClientMetadataURL: v.clientMetadata,
			IdPIssuer: v.idpIssuer, IdPClientID: v.idpClientID, IdPTokenEnv: v.idpTokenEnv}
	}
	if err := cfg.check(); err != nil {
		return cfg, game.FlagErrorf("--mcp: %s", strings.TrimPrefix(err.Error(), "mcp: "))
	}
	return cfg, nil
}

// parseHeaders reads --mcp-header values, each 'Name: value'.
func parseHeaders(list []string) (map[string]string, error) {
	var out map[string]string
	for _, h := range list {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, game.FlagErrorf("--mcp-header %q: write it as 'Name: value'", h)
		}
		if out == nil {
			out = map[string]string{}
		}
		out[strings.TrimSpace(name)] = strings.TrimSpace(value)
	}
	return out, nil
}

// config is the Config a session saved.
func (s saved) config() Config {
	return Config{Command: s.Command, URL: s.URL, Headers: s.Headers, Observe: s.Observe, ObserveTool: s.ObserveTool, LogLevel: s.LogLevel, Transport: s.Transport,
		OAuth: OAuth{ClientID: s.ClientID, ClientSecretEnv: s.ClientSecretEnv, ClientMetadataURL: s.ClientMetadataURL,
			IdPIssuer: s.IdPIssuer, IdPClientID: s.IdPClientID, IdPTokenEnv: s.IdPTokenEnv}}
}

// savedOf is what the session keeps of cfg: the URL without its user info and query,
// and a header only when its value names environment variables.
func savedOf(cfg Config) saved {
	s := saved{Command: cfg.Command, URL: secret.StripURL(cfg.URL), Observe: cfg.Observe, ObserveTool: cfg.ObserveTool, LogLevel: cfg.LogLevel, Transport: cfg.Transport,
		ClientID: cfg.OAuth.ClientID, ClientSecretEnv: cfg.OAuth.ClientSecretEnv, ClientMetadataURL: cfg.OAuth.ClientMetadataURL,
		IdPIssuer: cfg.OAuth.IdPIssuer, IdPClientID: cfg.OAuth.IdPClientID, IdPTokenEnv: cfg.OAuth.IdPTokenEnv}
	s.URLStripped = s.URL != cfg.URL
	for k, v := range cfg.Headers {
		if strings.Contains(v, "$") {
			if s.Headers == nil {
				s.Headers = map[string]string{}
			}
			s.Headers[k] = v
		}
	}
	return s
}

// open connects to the server cfg names and hands the game to the session.
func open(ctx context.Context, cfg Config) (*game.Opened, error) {
	if cfg.URL != "" {
		// OAuth grants outlive the run (tokens.go); never in the session's state.
		store, err := DefaultTokenStore()
		if err != nil {
			return nil, err
		}
		cfg.Tokens = store
	}
	g, err := Open(ctx, cfg)
	if err != nil {
		if g != nil {
			g.Close()
		}
		return nil, fmt.Errorf("connecting to the MCP server: %w", err)
	}
	state, err := json.Marshal(savedOf(cfg))
	if err != nil {
		g.Close()
		return nil, err
	}
	return &game.Opened{
		Game:    g,
		Title:   g.Info().Title,
		Save:    func() ([]byte, error) { return state, nil },
		Close:   g.Close,
		Secrets: slices.Concat(headerSecrets(cfg.Headers, os.LookupEnv), cfg.OAuth.secrets(os.LookupEnv), secret.URLSecrets(cfg.URL)),
	}, nil
}
