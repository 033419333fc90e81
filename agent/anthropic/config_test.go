package anthropic_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent/anthropic"
)

func TestConfigFromEnv(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("ANTHROPIC_BASE_URL", "")
	_, err := anthropic.ConfigFromEnv("")
	if err == nil || !strings.Contains(err.Error(), "set ANTHROPIC_API_KEY") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v, want one line naming ANTHROPIC_API_KEY", err)
	}

	t.Setenv("ANTHROPIC_API_KEY", testKey)
	cfg, err := anthropic.ConfigFromEnv("")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.APIKey != testKey || cfg.BaseURL != anthropic.DefaultBaseURL || cfg.Model != anthropic.DefaultModel || !cfg.Stream {
		t.Errorf("cfg = %v", cfg)
	}
	t.Setenv("ANTHROPIC_BASE_URL", "https://proxy.example/anthropic")
	cfg, err = anthropic.ConfigFromEnv("claude-haiku-4-5")
	if err != nil {
		t.Fatal(err)
	}
	b, err := anthropic.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if b.BaseURL() != "https://proxy.example/anthropic" || b.Name() != "claude-haiku-4-5" {
		t.Errorf("brain at %s for %s", b.BaseURL(), b.Name())
	}
	if s := fmt.Sprintf("%v %+v %#v", cfg, b, b); strings.Contains(s, testKey) {
		t.Errorf("printing a Config or a Brain shows the key: %s", s)
	}
}

func TestNewChecksConfig(t *testing.T) {
	for _, tt := range []struct {
		cfg  anthropic.Config
		want string
	}{
		{anthropic.Config{Model: "m", BaseURL: "api.anthropic.com"}, "want http:// or https://"},
		{anthropic.Config{}, "no model"},
		{anthropic.Config{Model: "m", ThinkingBudget: 500}, "below the API's minimum of 1024"},
		{anthropic.Config{Model: "m", ThinkingBudget: 4096, MaxTokens: 4096}, "must be more than the thinking budget"},
		{anthropic.Config{Model: "m", PriceIn: -1}, "cannot be negative"},
	} {
		if _, err := anthropic.New(tt.cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New(%v) = %v, want %q", tt.cfg, err, tt.want)
		}
	}
	b, err := anthropic.New(anthropic.Config{Model: "m", BaseURL: "http://127.0.0.1:9/v1/"})
	if err != nil || b.BaseURL() != "http://127.0.0.1:9" {
		t.Errorf("a base URL ending in /v1: %v %v, want the root", b, err)
	}
}
