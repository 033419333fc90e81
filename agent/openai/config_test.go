package openai_test

import (
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent/brain/braintest"
	"github.com/coplayhq/coplay/agent/openai"
)

func TestConfigFromEnv(t *testing.T) {
	tests := []struct {
		name                   string
		env                    map[string]string
		model, preset          string
		wantURL, wantModel     string
		wantKey, wantErrSubstr string
	}{
		{name: "openai needs a key", preset: "openai", wantErrSubstr: "needs an API key: set OPENAI_API_KEY"},
		{name: "default is openai", env: map[string]string{"OPENAI_API_KEY": "k1"},
			wantURL: "https://api.openai.com/v1", wantModel: "gpt-4o-mini", wantKey: "k1"},
		{name: "ollama needs no key", preset: "ollama", wantURL: "http://localhost:11434/v1", wantModel: "qwen2.5:7b"},
		{name: "preset wins over OPENAI_BASE_URL", preset: "ollama", model: "llama3.1",
			env: map[string]string{"OPENAI_BASE_URL": "https://elsewhere.example/v1"}, wantURL: "http://localhost:11434/v1", wantModel: "llama3.1"},
		{name: "custom base URL", model: "m", env: map[string]string{"OPENAI_BASE_URL": "http://10.0.0.2:9000/v1"},
			wantURL: "http://10.0.0.2:9000/v1", wantModel: "m"},
		{name: "custom base URL needs a model", env: map[string]string{"OPENAI_BASE_URL": "http://10.0.0.2:9000/v1"},
			wantErrSubstr: "no model for OPENAI_BASE_URL http://10.0.0.2:9000/v1: pass --model"},
		{name: "vllm needs a model", preset: "vllm", wantErrSubstr: "no model for preset vllm"},
		{name: "openrouter key", preset: "OpenRouter", env: map[string]string{"OPENROUTER_API_KEY": "or", "OPENAI_API_KEY": "oa"},
			wantURL: "https://openrouter.ai/api/v1", wantModel: "openai/gpt-4o-mini", wantKey: "or"},
		{name: "openrouter missing key", preset: "openrouter", wantErrSubstr: "set OPENROUTER_API_KEY or OPENAI_API_KEY"},
		{name: "unknown preset", preset: "gemeni", wantErrSubstr: `unknown preset "gemeni" (known: deepseek, gemini, groq, llamacpp, lmstudio, mistral, ollama, openai, openrouter, vllm, xai)`},
		{name: "gemini reads its own key", preset: "gemini", env: map[string]string{"GEMINI_API_KEY": "g"},
			wantURL: "https://generativelanguage.googleapis.com/v1beta/openai", wantModel: "gemini-2.5-flash", wantKey: "g"},
		{name: "gemini never takes OpenAI's key", preset: "gemini", env: map[string]string{"OPENAI_API_KEY": "oa"},
			wantErrSubstr: `preset "gemini" (https://generativelanguage.googleapis.com/v1beta/openai) needs an API key: set GEMINI_API_KEY,`},
		{name: "deepseek", preset: "deepseek", env: map[string]string{"DEEPSEEK_API_KEY": "d"}, wantURL: "https://api.deepseek.com/v1", wantModel: "deepseek-v4-flash", wantKey: "d"},
		{name: "mistral missing key", preset: "mistral", wantErrSubstr: "set MISTRAL_API_KEY,"},
		{name: "groq missing key", preset: "groq", wantErrSubstr: "set GROQ_API_KEY,"},
		{name: "xai missing key", preset: "xai", wantErrSubstr: "set XAI_API_KEY,"},
		{name: "anthropic is not this wire", preset: "anthropic", wantErrSubstr: `unknown preset "anthropic"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, k := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENROUTER_API_KEY", "GEMINI_API_KEY", "DEEPSEEK_API_KEY", "MISTRAL_API_KEY", "GROQ_API_KEY", "XAI_API_KEY"} {
				t.Setenv(k, tt.env[k])
			}
			cfg, err := openai.ConfigFromEnv(tt.model, tt.preset)
			if tt.wantErrSubstr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErrSubstr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErrSubstr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.BaseURL != tt.wantURL || cfg.Model != tt.wantModel || cfg.APIKey != tt.wantKey || !cfg.Stream {
				t.Errorf("cfg = %v key %q, want %s %s key %q streaming", cfg, cfg.APIKey, tt.wantURL, tt.wantModel, tt.wantKey)
			}
			if _, err := openai.New(cfg); err != nil {
				t.Errorf("New(ConfigFromEnv()) = %v", err)
			}
		})
	}
}

func TestNewChecksConfig(t *testing.T) {
	braintest.Refuses(t, openai.New, []braintest.Refusal[openai.Config]{
		{Config: openai.Config{BaseURL: "localhost:11434/v1", Model: "m"}, Want: "want http:// or https://"},
		{Config: openai.Config{BaseURL: "http://x/v1"}, Want: "no model"},
		{Config: openai.Config{Preset: "nope", Model: "m"}, Want: "unknown preset"},
	})
	b, err := openai.New(openai.Config{Preset: "ollama"})
	if err != nil {
		t.Fatal(err)
	}
	if b.Name() != "qwen2.5:7b" || b.BaseURL() != "http://localhost:11434/v1" {
		t.Errorf("preset defaults not applied: %v", b)
	}
}

func TestPresetsIsACopy(t *testing.T) {
	p := openai.Presets()
	for _, name := range []string{"openai", "openrouter", "ollama", "lmstudio", "vllm", "llamacpp"} {
		if p[name].BaseURL == "" {
			t.Errorf("preset %s missing", name)
		}
	}
	if !p["openai"].NeedsKey || p["ollama"].NeedsKey {
		t.Error("openai must need a key and ollama must not")
	}
	delete(p, "openai")
	if _, ok := openai.Presets()["openai"]; !ok {
		t.Error("changing the returned map changed the presets")
	}
}
