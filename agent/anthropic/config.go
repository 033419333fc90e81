package anthropic

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/coplayhq/coplay/agent/client"
)

// Defaults for the zero values of Config.
const (
	// DefaultBaseURL is Anthropic's API root; requests go to DefaultBaseURL + "/v1/messages".
	DefaultBaseURL = "https://api.anthropic.com"
	// DefaultModel is the model ConfigFromEnv picks when none is given.
	DefaultModel      = "claude-sonnet-4-5"
	DefaultMaxRetries = client.DefaultMaxRetries
	DefaultTimeout    = client.DefaultTimeout
	// DefaultMaxTokens bounds the answer when Config.MaxTokens is 0: enough for text
	// and a handful of tool calls. With thinking on, the thinking budget is added.
	DefaultMaxTokens = 8192
	// MinThinkingBudget is the smallest thinking budget the Messages API accepts.
	MinThinkingBudget = 1024
)

// The variables ConfigFromEnv reads.
const (
	KeyEnv     = "ANTHROPIC_API_KEY"
	BaseURLEnv = "ANTHROPIC_BASE_URL"
)

// Anthropic's documented price multipliers for the prompt cache (5-minute entries):
// a cache write costs 1.25 times the input price, a cache read 0.1 times.
const (
	cacheWriteFactor = 1.25
	cacheReadFactor  = 0.1
)

// Config says which Claude model the brain talks to, where, and how.
type Config struct {
	// APIKey is sent as the x-api-key header. It stays in memory and is never written
	// anywhere, not even into error messages.
	APIKey string
	// BaseURL is the API root, without /v1 (a trailing /v1 is dropped, since the SDK
	// adds it). Empty means DefaultBaseURL; the caller passes ANTHROPIC_BASE_URL's value
	// when it is set (ConfigFromEnv does).
	BaseURL string
	// Model is the model name, e.g. "claude-sonnet-4-5".
	Model string
	// HTTPClient, if set, is used for every request (its Transport, not its Timeout:
	// the brain applies Timeout itself). Nil means a fresh client.
	HTTPClient *http.Client
	// MaxRetries bounds the extra attempts after a retryable failure (429, 529, 5xx,
	// timeout, dropped connection). 0 means DefaultMaxRetries; negative means none.
	MaxRetries int
	// Timeout bounds the wait for the server. For a stream it is the longest silence
	// allowed (before the first event and between events); for a plain request it
	// bounds the whole attempt. 0 means DefaultTimeout.
	Timeout time.Duration
	// Stream asks for a streamed answer (text reaches Request.OnDelta as it comes).
	Stream bool
	// Temperature, if set, is sent to the model, except with thinking on: the API
	// refuses a temperature then.
	Temperature *float32
	// MaxTokens bounds the answer, thinking included (max_tokens). 0 means
	// DefaultMaxTokens, plus ThinkingBudget when thinking is on; the caller may pass the
	// model's maximum output from a catalogue. With thinking on it must exceed
	// ThinkingBudget.
	MaxTokens int
	// ThinkingBudget turns extended thinking on with this many tokens for reasoning
	// (budget_tokens, at least MinThinkingBudget). 0 means off.
	ThinkingBudget int
	// PriceIn and PriceOut are dollars per million input and output tokens, used to
	// fill Usage.Cost. Zero means the cost is unknown (left 0).
	PriceIn, PriceOut float64
	// PriceCached is dollars per million tokens read from the prompt cache. Zero means
	// Anthropic's documented 0.1 times PriceIn.
	PriceCached float64
	// PriceCacheWrite is dollars per million tokens written to the prompt cache. Zero
	// means Anthropic's documented 1.25 times PriceIn (5-minute cache entries).
	PriceCacheWrite float64
}

// ConfigFromEnv builds a streaming Config for model (DefaultModel when empty) from the
// environment: the key from ANTHROPIC_API_KEY, the base URL from ANTHROPIC_BASE_URL or
// Anthropic's. It fails, in one line naming the variable, when the key is not set.
func ConfigFromEnv(model string) (Config, error) {
	cfg := Config{
		APIKey:  strings.TrimSpace(os.Getenv(KeyEnv)),
		BaseURL: strings.TrimSpace(os.Getenv(BaseURLEnv)),
		Model:   model,
		Stream:  true,
	}
	if cfg.APIKey == "" {
		return Config{}, fmt.Errorf("anthropic: Claude needs an API key: set %s (from console.anthropic.com)", KeyEnv)
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.Model == "" {
		cfg.Model = DefaultModel
	}
	return cfg, nil
}

// withDefaults fills the zero values of cfg and checks the rest.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	// The SDK puts /v1/messages after the root; a root copied from an OpenAI-style
	// setting ends in /v1 already.
	cfg.BaseURL = strings.TrimSuffix(cfg.BaseURL, "/v1")
	if !strings.HasPrefix(cfg.BaseURL, "http://") && !strings.HasPrefix(cfg.BaseURL, "https://") {
		return cfg, fmt.Errorf("anthropic: base URL %q: want http:// or https://", cfg.BaseURL)
	}
	if cfg.Model == "" {
		return cfg, fmt.Errorf("anthropic: no model for %s: set Config.Model (--model), e.g. %s", cfg.BaseURL, DefaultModel)
	}
	cfg.MaxRetries, cfg.Timeout = client.Attempts(cfg.MaxRetries, cfg.Timeout)
	switch {
	case cfg.ThinkingBudget < 0:
		return cfg, fmt.Errorf("anthropic: thinking budget %d: want 0 (off) or at least %d tokens", cfg.ThinkingBudget, MinThinkingBudget)
	case cfg.ThinkingBudget > 0 && cfg.ThinkingBudget < MinThinkingBudget:
		return cfg, fmt.Errorf("anthropic: thinking budget %d is below the API's minimum of %d tokens", cfg.ThinkingBudget, MinThinkingBudget)
	case cfg.MaxTokens < 0:
		return cfg, fmt.Errorf("anthropic: max tokens %d: want 0 (the default) or more", cfg.MaxTokens)
	case cfg.MaxTokens == 0:
		cfg.MaxTokens = DefaultMaxTokens + cfg.ThinkingBudget
	case cfg.ThinkingBudget > 0 && cfg.MaxTokens <= cfg.ThinkingBudget:
		return cfg, fmt.Errorf("anthropic: max tokens %d must be more than the thinking budget %d (the answer comes after the thinking)", cfg.MaxTokens, cfg.ThinkingBudget)
	}
	for _, p := range []float64{cfg.PriceIn, cfg.PriceOut, cfg.PriceCached, cfg.PriceCacheWrite} {
		if p < 0 {
			return cfg, errors.New("anthropic: a price cannot be negative")
		}
	}
	return cfg, nil
}

// priceKnown says some price is set, so Usage.Cost is the real price of a call.
func (cfg Config) priceKnown() bool {
	return cfg.PriceIn > 0 || cfg.PriceOut > 0 || cfg.PriceCached > 0 || cfg.PriceCacheWrite > 0
}

// cost prices one call in dollars: the plain input tokens at PriceIn, cache reads at
// PriceCached, cache writes at PriceCacheWrite, the output at PriceOut. Unset cache
// prices follow Anthropic's documented multipliers of PriceIn, which hold for every
// Claude model, so the cost is exact rather than an upper bound.
func (cfg Config) cost(input, cacheRead, cacheWrite, output int) float64 {
	read, write := cfg.PriceCached, cfg.PriceCacheWrite
	if read == 0 {
		read = cfg.PriceIn * cacheReadFactor
	}
	if write == 0 {
		write = cfg.PriceIn * cacheWriteFactor
	}
	return (float64(input)*cfg.PriceIn + float64(cacheRead)*read + float64(cacheWrite)*write + float64(output)*cfg.PriceOut) / 1e6
}

// Format prints the Config with the key replaced by "[set]" or "[none]", so that a
// careless %v of a Config or a Brain never shows it.
func (cfg Config) Format(f fmt.State, verb rune) {
	key, temp := client.Shown(cfg.APIKey, cfg.Temperature)
	fmt.Fprintf(f, "anthropic.Config{BaseURL: %q, APIKey: %s, Model: %q, MaxRetries: %d, Timeout: %s, Stream: %t, Temperature: %s, MaxTokens: %d, ThinkingBudget: %d, PriceIn: %g, PriceOut: %g, PriceCached: %g, PriceCacheWrite: %g}",
		cfg.BaseURL, key, cfg.Model, cfg.MaxRetries, cfg.Timeout, cfg.Stream, temp, cfg.MaxTokens, cfg.ThinkingBudget, cfg.PriceIn, cfg.PriceOut, cfg.PriceCached, cfg.PriceCacheWrite)
}
