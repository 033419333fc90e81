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
		Flags:   flags,
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

func flags(fs *game.FlagSet) game.Opener {
	server := fs.StringFlag("mcp", "", "MCP server for --game mcp: a `command` to start (stdio), or an http(s) URL (streamable HTTP)")
	headers := fs.ListFlag("mcp-header", "HTTP `header` for an --mcp URL, as 'Name: value'; write secrets as $VAR to read them from the environment (repeatable)")
	observe := fs.ListFlag("mcp-observe", "resource `URI` read at every step as the world (repeatable)")
	observeTool := fs.StringFlag("mcp-observe-tool", "", "read-only `tool` called with {} at every step as the world")
	clientID := fs.StringFlag("mcp-client-id", "", "OAuth `client id` registered with the authorization server of an --mcp URL (else coplay registers itself)")
	clientSecretEnv := fs.StringFlag("mcp-client-secret-env", "", "environment `variable` holding the OAuth client's secret (with --mcp-client-id; the secret is never stored)")
	clientMetadata := fs.StringFlag("mcp-client-metadata", "", "https `URL` of coplay's OAuth client ID metadata document, for authorization servers that take one")
	idpIssuer := fs.StringFlag("mcp-idp-issuer", "", "issuer `URL` of your organisation's identity provider, to authorize an --mcp URL through it (enterprise-managed authorization) instead of the browser")
	idpClientID := fs.StringFlag("mcp-idp-client-id", "", "coplay's OAuth `client id` at the identity provider (with --mcp-idp-issuer)")
	idpTokenEnv := fs.StringFlag("mcp-idp-token-env", "", "environment `variable` holding the ID token the identity provider issued you (with --mcp-idp-issuer; never stored)")
	transport := fs.StringFlag("mcp-transport", "", "how an --mcp URL is spoken: `http` (streamable HTTP) or sse (the 2024-11-05 HTTP+SSE transport); default: streamable HTTP, and SSE when the server answers as an old one")
	logLevel := fs.StringFlag("mcp-log-level", "", "least severe `level` of the server's log lines to show (logging/setLevel: debug, info, notice, warning, error, …; default info)")
	return func(ctx context.Context, env game.Env) (_ *game.Opened, err error) {
		var cfg Config
		defer func() { err = urlSafe(err, cfg.URL) }()
		if *server == "" && len(env.State) > 0 {
			var s saved
			if err := json.Unmarshal(env.State, &s); err != nil {
				return nil, fmt.Errorf("the session's MCP server settings are unreadable (%v): pass --mcp again", err)
			}
			if s.URLStripped {
				return nil, game.FlagErrorf("this session's MCP server URL, %s, had a password or a query, which coplay does not keep (either may hold a secret): pass --mcp with the whole URL again, or send the secret as a header read from the environment (--mcp-header 'Authorization: Bearer $TOKEN'), which the session keeps by the variable's name", s.URL)
			}
			cfg = Config{Command: s.Command, URL: s.URL, Headers: s.Headers, Observe: s.Observe, ObserveTool: s.ObserveTool, LogLevel: s.LogLevel, Transport: s.Transport,
				OAuth: OAuth{ClientID: s.ClientID, ClientSecretEnv: s.ClientSecretEnv, ClientMetadataURL: s.ClientMetadataURL,
					IdPIssuer: s.IdPIssuer, IdPClientID: s.IdPClientID, IdPTokenEnv: s.IdPTokenEnv}}
		} else {
			if *server == "" {
				return nil, game.FlagErrorf("--game mcp needs --mcp: a command that starts a stdio server ('node dist/index.js stdio') or a streamable HTTP URL (http://127.0.0.1:3001/mcp)")
			}
			if strings.HasPrefix(*server, "http://") || strings.HasPrefix(*server, "https://") {
				cfg.URL = *server
			} else {
				cfg.Command = *server
			}
			for _, h := range *headers {
				name, value, ok := strings.Cut(h, ":")
				if !ok || strings.TrimSpace(name) == "" {
					return nil, game.FlagErrorf("--mcp-header %q: write it as 'Name: value'", h)
				}
				if cfg.Headers == nil {
					cfg.Headers = map[string]string{}
				}
				cfg.Headers[strings.TrimSpace(name)] = strings.TrimSpace(value)
			}
			cfg.Observe, cfg.ObserveTool = *observe, *observeTool
		}
		if *logLevel != "" {
			cfg.LogLevel = *logLevel
		}
		if *transport != "" {
			cfg.Transport = *transport
		}
		if *clientID != "" || *clientSecretEnv != "" || *clientMetadata != "" || *idpIssuer != "" || *idpClientID != "" || *idpTokenEnv != "" {
			cfg.OAuth = OAuth{ClientID: *clientID, ClientSecretEnv: *clientSecretEnv, ClientMetadataURL: *clientMetadata,
				IdPIssuer: *idpIssuer, IdPClientID: *idpClientID, IdPTokenEnv: *idpTokenEnv}
		}
		if err := cfg.check(); err != nil {
			return nil, game.FlagErrorf("--mcp: %s", strings.TrimPrefix(err.Error(), "mcp: "))
		}
		if env.CheckOnly {
			return nil, nil
		}
		cfg.LogDir, cfg.Sampling = env.Dir, env.Model
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
