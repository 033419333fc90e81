package cli

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/anthropic"
	"github.com/coplayhq/coplay/agent/models"
	"github.com/coplayhq/coplay/agent/openai"
	"github.com/coplayhq/coplay/config"
	"github.com/coplayhq/coplay/secret"
)

// Where a model's price comes from, for the status bar, `coplay models` and messages.
const (
	priceFromConfig    = "config"    // config.toml's [prices]
	priceFromCatalogue = "catalogue" // the model catalogue (agent/models)
	priceFromNone      = "none"      // nobody knows: the cost is unknown
)

// modelPrice is the price of model on preset: config.toml's [prices] first (the
// person's word wins), then the catalogue. from says which; a zero Price is unknown.
func (o *options) modelPrice(preset, model string) (price config.Price, from string) {
	if p, ok := o.pr.file.PriceOf(model); ok {
		return p, priceFromConfig
	}
	if m, ok := models.Lookup(preset, model); ok && m.Price.Known() {
		return config.Price{Prompt: m.Price.In, Completion: m.Price.Out, CachedPrompt: m.Price.CacheRead}, priceFromCatalogue
	}
	return config.Price{}, priceFromNone
}

// modelWindow is the catalogue's context window of model on preset, in tokens (0 =
// unknown: a local model learns it from its server, or the defaults apply).
func modelWindow(preset, model string) int {
	if m, ok := models.Lookup(preset, model); ok {
		return m.Window
	}
	return 0
}

// priceWords says where a price came from, for the banner and the status bar.
func priceWords(from string) string {
	switch from {
	case priceFromConfig:
		return "from config.toml"
	case priceFromCatalogue:
		return "from the model catalogue"
	}
	return "unknown (add [prices] to config.toml)"
}

// wantsAnthropic says the options name a model of the Anthropic wire (--preset anthropic,
// or preset = "anthropic" in config.toml).
func (o *options) wantsAnthropic() bool {
	p, ok := models.PresetNamed(o.preset)
	return ok && p.Wire == models.WireAnthropic
}

// anthropicConfig is the anthropic.Config for --preset anthropic: the key from
// ANTHROPIC_API_KEY (or the profile's api_key_env), the URL from --model-url, base_url,
// ANTHROPIC_BASE_URL or Anthropic's; the model and its prices and window from the
// catalogue unless config.toml prices it; --thinking.
func (o *options) anthropicConfig() (anthropic.Config, error) {
	p, _ := models.PresetNamed("anthropic")
	model := cmp.Or(o.model, p.Model)
	var cfg anthropic.Config
	if o.pr.keyEnv != "" {
		cfg = anthropic.Config{APIKey: os.Getenv(o.pr.keyEnv), Model: model, Stream: true, BaseURL: cmp.Or(os.Getenv(anthropic.BaseURLEnv), p.BaseURL)}
		if cfg.APIKey == "" {
			return cfg, fmt.Errorf("%s names the environment variable %s for the model's key, and it is not set", o.configWhere(), o.pr.keyEnv)
		}
	} else {
		var err error
		if cfg, err = anthropic.ConfigFromEnv(model); err != nil {
			return cfg, errors.New(strings.TrimPrefix(err.Error(), "anthropic: "))
		}
	}
	if u := cmp.Or(o.modelURL, o.pr.baseURL); u != "" {
		cfg.BaseURL = u
	}
	if t := o.pr.temperature; t != nil {
		f := float32(*t)
		cfg.Temperature = &f
	}
	cfg.ThinkingBudget = o.thinking
	if o.pr.maxTokens > 0 {
		cfg.MaxTokens = o.pr.maxTokens
	}
	if err := o.plainHTTP(cfg.BaseURL, cfg.APIKey, cmp.Or(o.pr.keyEnv, anthropic.KeyEnv)); err != nil {
		return cfg, err
	}
	price, _ := o.modelPrice("anthropic", cfg.Model)
	cfg.PriceIn, cfg.PriceOut, cfg.PriceCached = price.Prompt, price.Completion, price.CachedPrompt
	if m, ok := models.Lookup("anthropic", cfg.Model); ok {
		if _, fromConfig := o.pr.file.PriceOf(cfg.Model); !fromConfig {
			cfg.PriceCacheWrite = m.Price.CacheWrite
		}
		if cfg.ThinkingBudget > 0 && cfg.MaxTokens == 0 && m.MaxOutput > 0 {
			cfg.MaxTokens = min(m.MaxOutput, cfg.ThinkingBudget+16384)
		}
	}
	return cfg, nil
}

// plainHTTP refuses to send key to baseURL over plain http when its host, as written,
// is not this machine, unless the person allowed it (--allow-plain-http,
// allow_plain_http): the key would cross the network unencrypted. A local server
// (localhost, 127.0.0.0/8, ::1) is the common case and needs no leave; so does a
// request without a key. It is checked before the notebook is opened, so no
// connection is ever made.
func (o *options) plainHTTP(baseURL, key, keyName string) error {
	if key == "" || o.allowPlainHTTP || !secret.PlainHTTP(baseURL) {
		return nil
	}
	from := "the model URL"
	switch {
	case o.modelURL != "":
		from = "--model-url"
	case o.pr.baseURL != "":
		from = o.configWhere() + "'s base_url"
	}
	return usagef("%s %s is plain http to a host that is not this machine: the key in %s would travel unencrypted. Use https; or, if you mean it (a server on your own network), allow it with --allow-plain-http (or allow_plain_http = true in config.toml's [defaults])",
		from, secret.RedactURL(baseURL), keyName)
}

// modelBrain builds the brain of a model, on the wire its preset speaks, and says which
// model it is, where its price comes from and its context window (0 = unknown).
func (o *options) modelBrain() (b agent.Brain, model, priceFrom string, window int, err error) {
	var provider string // what the price and the window are looked up under
	if o.wantsAnthropic() {
		var cfg anthropic.Config
		if cfg, err = o.anthropicConfig(); err == nil {
			b, err = anthropic.New(cfg)
		}
		provider, model = "anthropic", cfg.Model
	} else {
		var cfg openai.Config
		if cfg, err = o.modelConfig(); err == nil {
			b, err = openai.New(cfg)
		}
		provider, model = cfg.Preset, cfg.Model
	}
	if err != nil {
		return nil, "", "", 0, err
	}
	_, from := o.modelPrice(provider, model)
	return b, model, from, modelWindow(provider, model), nil
}

// modelPriced says whether the options' model has a price (for --max-cost), and its name.
func (o *options) modelPriced() (model string, priced bool, err error) {
	if o.wantsAnthropic() {
		cfg, err := o.anthropicConfig()
		return cfg.Model, cfg.PriceIn > 0 || cfg.PriceOut > 0, err
	}
	cfg, err := o.modelConfig()
	return cfg.Model, cfg.PriceIn > 0 || cfg.PriceOut > 0, err
}
