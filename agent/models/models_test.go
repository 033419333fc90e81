package models_test

import (
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent/models"
)

func TestCatalogueHoldsPricedModelsWithWindows(t *testing.T) {
	n := 0
	for _, m := range models.All() {
		if m.Window > 0 && m.Price.Known() {
			n++
		}
	}
	if n < 50 {
		t.Errorf("%d models have a window and a price, want at least 50", n)
	}
	m, ok := models.Lookup("", "gpt-4o-mini")
	if !ok || m.Provider != "openai" || m.Price.In != 0.15 || m.Price.Out != 0.6 || m.Price.CacheRead != 0.075 || m.Window != 128000 {
		t.Errorf("gpt-4o-mini = %+v, %v; want OpenAI's, $0.15/$0.60/$0.075 cached, 128k", m, ok)
	}
	claude := 0
	for _, m := range models.Of("anthropic") {
		if strings.HasPrefix(m.ID, "claude-") && m.Price.Known() && m.Window > 0 {
			claude++
			// Anthropic bills a cache write at 1.25x and a cache read at 0.1x the input price.
			if m.Price.CacheWrite < m.Price.In || m.Price.CacheRead >= m.Price.In {
				t.Errorf("%s: cache write %g and read %g for input %g", m.ID, m.Price.CacheWrite, m.Price.CacheRead, m.Price.In)
			}
		}
	}
	if claude < 3 {
		t.Errorf("%d Claude models in the catalogue", claude)
	}
}

// Every hosted preset's default model is one the catalogue prices, so --max-cost works
// with no config at all.
func TestPresetDefaultsArePriced(t *testing.T) {
	for _, p := range models.Presets() {
		if p.Local {
			continue
		}
		m, ok := models.Lookup(p.Name, p.Model)
		if !ok || !m.Price.Known() || m.Window == 0 {
			t.Errorf("preset %s: default model %q = %+v, %v; want a priced model with a window", p.Name, p.Model, m, ok)
		}
		if p.KeyEnv == "" || !p.NeedsKey {
			t.Errorf("preset %s: a hosted preset needs a key variable", p.Name)
		}
	}
}

func TestLookup(t *testing.T) {
	for _, tc := range []struct {
		preset, model, provider, id string
	}{
		{"mistral", "mistral-large-2512", "openrouter", "mistralai/mistral-large-2512"}, // catwalk has no Mistral of its own
		{"openrouter", "anthropic/claude-sonnet-4.6", "openrouter", "anthropic/claude-sonnet-4.6"},
		{"", "anthropic/claude-sonnet-4.6", "openrouter", "anthropic/claude-sonnet-4.6"},
		{"ollama", "GPT-4o-mini", "openai", "gpt-4o-mini"}, // any provider that sells the name, case aside
		{"anthropic", "claude-sonnet-4-6", "anthropic", "claude-sonnet-4-6"},
	} {
		m, ok := models.Lookup(tc.preset, tc.model)
		if !ok || m.Provider != tc.provider || m.ID != tc.id {
			t.Errorf("Lookup(%q, %q) = %s/%s, %v; want %s/%s", tc.preset, tc.model, m.Provider, m.ID, ok, tc.provider, tc.id)
		}
	}
	for _, name := range []string{"", "qwen2.5:7b", "my-finetune"} {
		if m, ok := models.Lookup("ollama", name); ok {
			t.Errorf("Lookup(ollama, %q) = %+v, want unknown", name, m)
		}
	}
}

func TestPresetKey(t *testing.T) {
	env := map[string]string{"OPENAI_API_KEY": "oa", "OPENROUTER_API_KEY": ""}
	get := func(k string) string { return env[k] }
	gem, _ := models.PresetNamed("GEMINI")
	if k := gem.Key(get); k != "" {
		t.Errorf("gemini took %q: another company's key must never be sent to Google", k)
	}
	or, _ := models.PresetNamed("openrouter")
	if k := or.Key(get); k != "oa" || or.KeyVars() != "OPENROUTER_API_KEY or OPENAI_API_KEY" {
		t.Errorf("openrouter key %q, vars %q", k, or.KeyVars())
	}
}
