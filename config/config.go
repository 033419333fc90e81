// Package config reads coplay's configuration file, config.toml: defaults for the
// flags, prices per model, and profiles (named ways of playing, compared by
// `coplay eval`). It parses, checks and resolves; it applies nothing itself. The
// main package maps a File onto its run options, with flags beating the file and the
// file beating the built-in defaults.
//
// Secrets are never in the file: a profile names the environment variable that holds
// its key (api_key_env), and a value that looks like a key is refused.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/coplayhq/coplay/internal/infile"
)

// FileName is the configuration file's name inside the coplay config directory.
const FileName = "config.toml"

// File is a parsed and checked configuration file.
type File struct {
	// Path is where the file was read from ("" for an empty File).
	Path     string
	Defaults Defaults
	// Prices are dollars per million tokens, by model name.
	Prices map[string]Price
	// Profiles are the file's profiles by full name (NAME/EXPERIMENT), plus the
	// built-in autopilot/default, autopilot/bold and autopilot/careful unless the file
	// defines an autopilot profile.
	Profiles map[string]Profile
	// League is the [league] table: what holds for every seat of a league.
	League League
}

// League is the [league] table: settings for every seat of a league (--seat), under
// each seat's profile.
type League struct {
	// Rules are approval rule lines applied to every seat, with [defaults]' and the
	// seat's profile's.
	Rules []string
	// Approve is the approval policy of every seat whose profile names none and for
	// which --approve is not given: ask or all ("" = [defaults]').
	Approve string
}

// NotifyModes are the values of notify (and --notify): how the screen calls the person
// when it needs them and its terminal is not focused.
var NotifyModes = []string{"auto", "bell", "osc", "desktop", "off"}

// Defaults are the [defaults] table: values used when the flag is not given.
type Defaults struct {
	Game      string // --game: universe or spacetraders
	Brain     string // --brain: autopilot, model or script:FILE
	Model     string // --model
	Preset    string // --preset
	BaseURL   string // the model endpoint (OpenAI-compatible), not the game's URL
	APIKeyEnv string // the environment variable holding the model's key
	Approve   string // --approve: ask or all
	Notify    string // --notify: auto, bell, osc, desktop or off
	Speed     float64
	// NoRateLimit is --no-rate-limit; nil means not set in the file.
	NoRateLimit *bool
	// AllowPlainHTTP is --allow-plain-http: a model key may go over plain http to a
	// host that is not this machine (a server on the person's own network).
	AllowPlainHTTP bool
	// Profile is the profile used when --profile is not given ("" = none).
	Profile string
	// Rules are approval rule lines applied to every session, with the profile's.
	Rules []string
	// Spending is max_run_tokens, max_run_cost, tool_budget, pin and call_timeout.
	Spending
}

// Spending are the keys [defaults] and profiles share about what a run may spend and
// what it sends the model each request. Zero values are unset.
type Spending struct {
	// MaxRunTokens is the run's spend cap in tokens (prompt plus completion, over the
	// whole run; --max-tokens). Not a profile's max_tokens, the longest answer per call.
	MaxRunTokens int `json:"max_run_tokens,omitempty"`
	// MaxRunCost is the run's spend cap in dollars (--max-cost).
	MaxRunCost float64 `json:"max_run_cost,omitempty"`
	// ToolBudget is the characters of tool definitions (their JSON) sent with each
	// model request (--tool-budget); tools over it are offered by name to load.
	ToolBudget int `json:"tool_budget,omitempty"`
	// Pin names tools always sent whole, whatever the budget (--pin).
	Pin []string `json:"pin,omitempty"`
	// CallTimeout is how long, in seconds, one game call may run before it is
	// cancelled and its outcome is unknown (--call-timeout; the runner's default is 60).
	CallTimeout float64 `json:"call_timeout,omitempty"`
}

// Price is what a model costs, in dollars per million tokens.
type Price struct {
	Prompt     float64 `json:"prompt"`
	Completion float64 `json:"completion"`
	// CachedPrompt is the price of a prompt token the provider served from its prompt
	// cache; 0 when the file does not say (cached_prompt).
	CachedPrompt float64 `json:"cached_prompt,omitempty"`
}

// Cost returns the dollars that the given token counts cost at p: cachedTokens are
// the part of promptTokens the provider served from its cache, priced at
// CachedPrompt. Without a CachedPrompt they are priced at Prompt, and upper says the
// result is an upper bound of the real bill (it is exact when nothing was cached).
func (p Price) Cost(promptTokens, cachedTokens, completionTokens int64) (cost float64, upper bool) {
	cachedTokens = max(min(cachedTokens, promptTokens), 0)
	cached := p.CachedPrompt
	if cached == 0 && cachedTokens > 0 {
		cached, upper = p.Prompt, p.Prompt > 0
	}
	cost = (float64(promptTokens-cachedTokens)*p.Prompt + float64(cachedTokens)*cached + float64(completionTokens)*p.Completion) / 1e6
	return cost, upper
}

// Dir returns coplay's configuration directory: $XDG_CONFIG_HOME/coplay, or
// ~/.config/coplay.
func Dir() (string, error) {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "coplay"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("config: no home directory for the config file (set XDG_CONFIG_HOME or pass --config): %w", err)
	}
	return filepath.Join(home, ".config", "coplay"), nil
}

// DefaultPath returns the default configuration file, Dir()/config.toml.
func DefaultPath() (string, error) {
	d, err := Dir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, FileName), nil
}

// Load reads and checks the file at path. explicit says the person named the file
// (--config): then a missing file is an error; a missing default file gives an empty
// File (built-in profiles only). A file over 1 MiB, or a FIFO, device or directory, is
// refused unread.
func Load(path string, explicit bool) (*File, error) {
	data, err := infile.Read(path, infile.Small)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && !explicit {
			return Empty(), nil
		}
		return nil, fmt.Errorf("config: %w", err)
	}
	return Parse(path, data)
}

// Empty is the configuration when there is no file: the built-in profiles only.
func Empty() *File {
	f := &File{Prices: map[string]Price{}, Profiles: map[string]Profile{}}
	f.addBuiltins()
	return f
}

// addBuiltins adds the built-in profiles the file does not replace.
// A file's own NAME/... replaces every built-in NAME/..., whatever its experiments.
func (f *File) addBuiltins() {
	replaced := map[string]bool{}
	for _, p := range builtins() {
		replaced[p.Base()] = f.hasName(p.Base())
	}
	for _, p := range builtins() {
		if !replaced[p.Base()] {
			f.Profiles[p.Name] = p
		}
	}
}

// hasName reports whether a profile NAME/... exists.
func (f *File) hasName(name string) bool {
	for full := range f.Profiles {
		if strings.HasPrefix(full, name+"/") {
			return true
		}
	}
	return false
}

// ProfileNames lists every profile's full name, sorted.
func (f *File) ProfileNames() []string {
	out := make([]string, 0, len(f.Profiles))
	for k := range f.Profiles {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// PriceOf returns the price of model, if the file has one.
func (f *File) PriceOf(model string) (Price, bool) {
	if f == nil || model == "" {
		return Price{}, false
	}
	p, ok := f.Prices[model]
	return p, ok
}
