package openapi

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/coplayhq/coplay/game"
)

// The "openapi" driver: --game openapi --spec FILE --base-url URL [--token-env VAR]
// [--catalog ops|grouped] [--observe OPERATION_ID ...]. The settings (never the token,
// only the name of its variable) are the session's saved state, so --resume plays the
// same spec against the same server without repeating them.
func init() {
	game.RegisterDriver(game.Driver{
		Name:    "openapi",
		Summary: "any game with an OpenAPI 3 spec (--spec FILE --base-url URL [--token-env VAR])",
		Saves:   true,
		Options: options,
		Open:    open,
	})
}

// saved is what a session keeps of a Config.
type saved struct {
	Spec     string   `json:"spec"`
	BaseURL  string   `json:"base_url,omitempty"`
	TokenEnv string   `json:"token_env,omitempty"`
	Catalog  string   `json:"catalog,omitempty"`
	Observe  []string `json:"observe,omitempty"`
}

// options are the driver's settings; a session keeps them (saved) for --resume.
var options = []game.Option{
	{Name: "spec", Kind: game.OptionString, Usage: "the OpenAPI 3 spec `file` (JSON or YAML) for --game openapi"},
	{Name: "base-url", Kind: game.OptionString, Usage: "the API root `URL` of the game server (spacetraders: default https://api.spacetraders.io/v2; openapi: default the spec's first server)"},
	{Name: "token-env", Kind: game.OptionString, Usage: "environment `variable` holding the API token for --game openapi (read at start, never written or shown)"},
	{Name: "catalog", Kind: game.OptionString, Usage: "tool catalogue for --game openapi: `ops` (one tool per operation, the default) or grouped (one per tag)", Enum: []string{CatalogOps, CatalogGrouped}},
	{Name: "observe", Kind: game.OptionList, Usage: "a GET `operationId` read into the world at every step, for --game openapi (repeatable)"},
}

// open opens the game the options (or, without --spec, the session's settings) name.
func open(ctx context.Context, env game.Env) (*game.Opened, error) {
	v := env.Options
	s := saved{Spec: v.String("spec"), BaseURL: v.String("base-url"), TokenEnv: v.String("token-env"), Catalog: v.String("catalog"), Observe: v.List("observe")}
	if s.Spec == "" && len(env.State) > 0 {
		if err := json.Unmarshal(env.State, &s); err != nil {
			return nil, fmt.Errorf("the session's OpenAPI settings are unreadable (%v): pass --spec again", err)
		}
	}
	if s.Spec == "" {
		return nil, game.FlagErrorf("--game openapi needs --spec: the game's OpenAPI 3 file (JSON or YAML)")
	}
	if s.Catalog != "" && s.Catalog != CatalogOps && s.Catalog != CatalogGrouped {
		return nil, game.FlagErrorf("--catalog must be %s or %s, not %q", CatalogOps, CatalogGrouped, s.Catalog)
	}
	if abs, err := filepath.Abs(s.Spec); err == nil {
		s.Spec = abs // a resumed session may start elsewhere
	}
	if _, err := os.Stat(s.Spec); err != nil {
		return nil, game.FlagErrorf("--spec %s: %v", s.Spec, err)
	}
	getenv := env.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	var token string
	if s.TokenEnv != "" {
		if token = getenv(s.TokenEnv); token == "" && !env.ToolsOnly {
			return nil, fmt.Errorf("--token-env %s: the variable is not set or empty; set it to the game's API token", s.TokenEnv)
		}
	}
	if env.CheckOnly {
		return nil, nil
	}
	cfg := Config{Spec: s.Spec, BaseURL: s.BaseURL, Catalog: s.Catalog, Observe: s.Observe, Getenv: getenv}
	if token != "" {
		cfg.TokenEnv = s.TokenEnv
	}
	g, err := Open(ctx, cfg)
	if err != nil {
		return nil, strip(err)
	}
	state, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	o := &game.Opened{Game: g, Title: g.Info().Title, Save: func() ([]byte, error) { return state, nil }}
	if token != "" {
		o.Secrets = []string{token}
	}
	return o, nil
}

// strip drops the package prefix from an error meant for the person.
func strip(err error) error {
	return fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "openapi: "))
}
