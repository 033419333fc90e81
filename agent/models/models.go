// Package models is coplay's catalogue of hosted models: prices (input, output, cache
// read, cache write), context windows and maximum output, for the providers coplay has
// presets for. It is read from charm.land/catwalk's embedded provider files (the
// catalogue crush maintains), so nothing is fetched at run time and nothing is typed by
// hand; a new catwalk version brings new models and prices.
//
// Decision: catwalk rather than a table of our own, because prices change every month
// and a maintained, versioned source is the only one that stays true; config.toml's
// [prices] still overrides it for a model that is missing or priced differently.
package models

import (
	"cmp"
	"slices"
	"strings"
	"sync"

	"charm.land/catwalk/pkg/catwalk"
	"charm.land/catwalk/pkg/embedded"
)

// Source names where the catalogue comes from, for `coplay models` and messages.
const Source = "catwalk v0.52.1"

// Price is dollars per million tokens. Zero means the catalogue does not say.
type Price struct {
	In         float64 `json:"in"`          // uncached prompt tokens
	Out        float64 `json:"out"`         // completion tokens
	CacheRead  float64 `json:"cache_read"`  // prompt tokens served from the provider's cache
	CacheWrite float64 `json:"cache_write"` // prompt tokens written into the cache (Anthropic)
}

// Known says the catalogue prices the model at all.
func (p Price) Known() bool { return p.In > 0 || p.Out > 0 }

// Model is one model as the catalogue knows it.
type Model struct {
	Provider  string `json:"provider"` // catwalk's provider id: openai, anthropic, gemini, openrouter, ...
	ID        string `json:"id"`       // the name the provider's API takes
	Name      string `json:"name"`     // a readable name
	Window    int    `json:"window"`   // context window in tokens
	MaxOutput int    `json:"max_output,omitempty"`
	Reasoning bool   `json:"reasoning,omitempty"` // the model thinks before it answers
	Price     Price  `json:"price"`
}

var (
	loadOnce sync.Once
	all      []Model
)

// load reads catwalk's embedded providers once. catwalk names the cache prices oddly:
// its cost_per_1m_in_cached is the price of writing the cache and cost_per_1m_out_cached
// the price of reading it (Anthropic's 1.25x and 0.1x the input price).
func load() {
	for _, p := range embedded.GetAll() {
		for _, m := range p.Models {
			all = append(all, fromCatwalk(p, m))
		}
	}
}

func fromCatwalk(p catwalk.Provider, m catwalk.Model) Model {
	return Model{
		Provider: string(p.ID), ID: m.ID, Name: m.Name,
		Window: int(m.ContextWindow), MaxOutput: int(m.DefaultMaxTokens), Reasoning: m.CanReason,
		Price: Price{In: m.CostPer1MIn, Out: m.CostPer1MOut, CacheRead: m.CostPer1MOutCached, CacheWrite: m.CostPer1MInCached},
	}
}

// All returns every model of the catalogue, by provider then id. The slice is a copy.
func All() []Model {
	loadOnce.Do(load)
	out := slices.Clone(all)
	slices.SortStableFunc(out, func(a, b Model) int {
		return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.ID, b.ID))
	})
	return out
}

// Of returns the models of one provider.
func Of(provider string) []Model {
	var out []Model
	for _, m := range All() {
		if m.Provider == provider {
			out = append(out, m)
		}
	}
	return out
}

// providerOf maps coplay's presets to catwalk's providers. A preset whose provider
// catwalk does not list (mistral) is looked up under OpenRouter's vendor prefix, whose
// prices are the vendor's own.
var providerOf = map[string]struct{ provider, vendor string }{
	"openai":     {"openai", "openai/"},
	"anthropic":  {"anthropic", "anthropic/"},
	"gemini":     {"gemini", "google/"},
	"deepseek":   {"deepseek", "deepseek/"},
	"groq":       {"groq", ""},
	"xai":        {"xai", "x-ai/"},
	"mistral":    {"", "mistralai/"},
	"openrouter": {"openrouter", ""},
}

// Lookup finds a model by the name a preset's API takes: in the preset's provider first,
// then under the provider's vendor prefix at OpenRouter, then in any provider that has
// exactly that id (a local server's "gpt-4o-mini" is still priced as OpenAI's), then,
// for a vendor-prefixed name (anthropic/claude-sonnet-4.6), at OpenRouter. Names are
// compared without case. ok is false when the catalogue does not know the model: a
// local model, a fine-tune, a name typed wrong.
func Lookup(preset, model string) (Model, bool) {
	model = strings.TrimSpace(model)
	if m, ok := LookupIn(preset, model); ok || model == "" {
		return m, ok
	}
	// Any provider that sells exactly this name, the model's own maker first.
	for _, provider := range []string{"openai", "anthropic", "gemini", "deepseek", "xai", "groq", "openrouter"} {
		if m, ok := find(provider, model); ok {
			return m, true
		}
	}
	return find("", model)
}

// LookupIn finds a model only where preset's server sells it: in the preset's provider,
// or under its vendor prefix at OpenRouter (mistral-large-2512 as
// mistralai/mistral-large-2512).
func LookupIn(preset, model string) (Model, bool) {
	p, ok := providerOf[strings.ToLower(preset)]
	if !ok || model == "" {
		return Model{}, false
	}
	if p.provider != "" {
		if m, ok := find(p.provider, model); ok {
			return m, true
		}
	}
	if p.vendor != "" && preset != "openrouter" {
		if m, ok := find("openrouter", p.vendor+model); ok {
			return m, true
		}
	}
	return Model{}, false
}

// find is the model of provider ("" = any) with id, without regard to case.
func find(provider, id string) (Model, bool) {
	loadOnce.Do(load)
	for _, m := range all {
		if (provider == "" || m.Provider == provider) && strings.EqualFold(m.ID, id) {
			return m, true
		}
	}
	return Model{}, false
}
