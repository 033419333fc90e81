package openai

import (
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/coplayhq/coplay/agent/models"
)

// Config says which endpoint and model a Brain talks to and how.
type Config struct {
	// BaseURL is the API root, ending in /v1 for most servers. Empty means the
	// preset's URL, or OpenAI's when there is no preset.
	BaseURL string
	// APIKey is sent as a bearer token. It stays in memory and is never written
	// anywhere, not even into error messages.
	APIKey string
	// Model is the model name the server knows, e.g. "gpt-4o-mini", "qwen2.5:7b".
	Model string
	// Preset names an entry of Presets; it fills BaseURL, Model and Dialect when they
	// are empty.
	Preset string
	// Dialect is the server's variant of the wire (models.DialectGemini: tool schemas
	// without the keywords Gemini refuses). "" is the preset's, or the plain wire.
	Dialect models.Dialect
	// HTTPClient, if set, is used for every request (its Transport, not its Timeout:
	// the brain applies Timeout itself). Nil means a fresh client.
	HTTPClient *http.Client
	// MaxRetries bounds the extra attempts after a retryable failure (429, 5xx,
	// timeout, dropped connection). 0 means DefaultMaxRetries; negative means none.
	MaxRetries int
	// Timeout bounds the wait for the server. For a stream it is the longest silence
	// allowed (before the first chunk and between chunks), so a long answer that keeps
	// coming is never cut; for a plain request it bounds the whole attempt.
	// 0 means DefaultTimeout.
	Timeout time.Duration
	// Stream asks for a streamed answer (text reaches Request.OnDelta as it comes).
	Stream bool
	// TextCalls reads the tool calls the model writes as text (--text-calls: a server
	// without a tool-call parser for its model). Without it they are read only from a
	// local server (the local presets) or a model the catalogue does not know: a model
	// the catalogue knows calls tools natively, whatever URL it is reached through, and
	// a call written in its text is prose (a quote, an example it will not run).
	TextCalls bool
	// Temperature, if set, is sent to the model. go-openai omits a zero temperature,
	// so 0 is sent as a tiny positive value, which samples the same way.
	Temperature *float32
	// PriceIn and PriceOut are dollars per million prompt and completion tokens, used
	// to fill Usage.Cost. Zero means the cost is unknown (left 0).
	PriceIn, PriceOut float64
	// PriceCached is dollars per million cached prompt tokens (the provider's price for
	// the part of a prompt it served from its cache). Zero means unknown: cached tokens
	// are then priced at PriceIn and Usage.CostUpper says the cost is an upper bound.
	PriceCached float64
}

// cost prices one call: the uncached prompt tokens at PriceIn, the cached ones at
// PriceCached, the completion at PriceOut, in dollars. upper is set when cached tokens
// were priced at PriceIn because PriceCached is unknown: the real bill is at most cost.
func (cfg Config) cost(prompt, cached, completion int) (cost float64, upper bool) {
	cached = max(min(cached, prompt), 0)
	priceCached := cfg.PriceCached
	if cached > 0 && priceCached == 0 && cfg.PriceIn > 0 {
		priceCached, upper = cfg.PriceIn, true
	}
	cost = (float64(prompt-cached)*cfg.PriceIn + float64(cached)*priceCached + float64(completion)*cfg.PriceOut) / 1e6
	return cost, upper
}

// Defaults for the zero values of Config.
const (
	DefaultMaxRetries = 3
	DefaultTimeout    = 2 * time.Minute
)

// Preset is a known server of the OpenAI wire: one of models.Presets.
type Preset = models.Preset

// Presets returns the known servers of the OpenAI wire by name (openai, openrouter,
// gemini, deepseek, mistral, groq, xai, ollama, lmstudio, vllm, llamacpp), from the one
// table in agent/models. The map is a copy; changing it changes nothing else.
func Presets() map[string]Preset {
	out := map[string]Preset{}
	for _, p := range models.Presets() {
		if p.Wire == models.WireOpenAI {
			out[p.Name] = p
		}
	}
	return out
}

// preset finds an OpenAI-wire preset by name, without regard to case.
func preset(name string) (Preset, bool) {
	p, ok := models.PresetNamed(name)
	return p, ok && p.Wire == models.WireOpenAI
}

// presetNames lists the presets in a stable order, for messages.
func presetNames() string {
	names := make([]string, 0)
	for k := range Presets() {
		names = append(names, k)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// ConfigFromEnv builds a streaming Config from the environment and the command line.
//
// preset picks a server from Presets; its URL wins over OPENAI_BASE_URL, because a
// flag on the command line is more deliberate than a variable left in a shell profile.
// With no preset, OPENAI_BASE_URL is used when set, else OpenAI's URL. The key comes
// from the preset's own variable (GEMINI_API_KEY, OPENROUTER_API_KEY), and for OpenAI,
// OpenRouter, local servers and a custom URL from OPENAI_API_KEY; another company's
// preset never reads OPENAI_API_KEY. model, when empty, is the preset's default. It
// fails when the preset is unknown, when the server needs a key and none is set, or
// when no model can be chosen.
func ConfigFromEnv(model, name string) (Config, error) {
	cfg := Config{Model: model, Preset: name, Stream: true}
	var p Preset
	switch {
	case name != "":
		var ok bool
		p, ok = preset(name)
		if !ok {
			return Config{}, fmt.Errorf("openai: unknown preset %q (known: %s)", name, presetNames())
		}
		cfg.Preset = p.Name
	case os.Getenv("OPENAI_BASE_URL") != "":
		// A custom server: whether it needs a key is its business.
		p = Preset{BaseURL: os.Getenv("OPENAI_BASE_URL"), OpenAIKey: true}
	default:
		p, _ = preset("openai")
		cfg.Preset = p.Name
	}
	cfg.BaseURL = p.BaseURL
	cfg.APIKey = p.Key(os.Getenv)
	if p.NeedsKey && cfg.APIKey == "" {
		return Config{}, fmt.Errorf("openai: preset %q (%s) needs an API key: set %s, or pick a local preset such as ollama", p.Name, p.BaseURL, p.KeyVars())
	}
	if cfg.Model == "" {
		cfg.Model = p.Model
	}
	if cfg.Model == "" {
		where := "OPENAI_BASE_URL " + p.BaseURL
		if p.Name != "" {
			where = "preset " + p.Name
		}
		return Config{}, fmt.Errorf("openai: no model for %s: pass --model with a name the server knows", where)
	}
	return cfg, nil
}

// withDefaults fills the zero values of cfg from its preset and the package defaults.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.Preset != "" {
		p, ok := preset(cfg.Preset)
		if !ok {
			return cfg, fmt.Errorf("openai: unknown preset %q (known: %s)", cfg.Preset, presetNames())
		}
		if cfg.BaseURL == "" {
			cfg.BaseURL = p.BaseURL
		}
		if cfg.Model == "" {
			cfg.Model = p.Model
		}
		if cfg.Dialect == "" {
			cfg.Dialect = p.Dialect
		}
	}
	if cfg.BaseURL == "" {
		p, _ := preset("openai")
		cfg.BaseURL = p.BaseURL
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if !strings.HasPrefix(cfg.BaseURL, "http://") && !strings.HasPrefix(cfg.BaseURL, "https://") {
		return cfg, fmt.Errorf("openai: base URL %q: want http:// or https://", cfg.BaseURL)
	}
	if cfg.Model == "" {
		return cfg, fmt.Errorf("openai: no model for %s: set Config.Model (--model)", cfg.BaseURL)
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = DefaultMaxRetries
	} else if cfg.MaxRetries < 0 {
		cfg.MaxRetries = 0
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	return cfg, nil
}

// readsTextCalls says whether answers are scanned for calls written as text: set by
// the person (TextCalls), a local preset's server, or a model the catalogue does not
// know (a local model, a fine-tune).
func (cfg Config) readsTextCalls() bool {
	if cfg.TextCalls {
		return true
	}
	if p, ok := preset(cfg.Preset); ok && p.Local {
		return true
	}
	_, known := models.Lookup(cfg.Preset, cfg.Model)
	return !known
}
