package anthropic_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent/anthropic"
	"github.com/coplayhq/coplay/agent/brain/braintest"
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
	braintest.Refuses(t, anthropic.New, []braintest.Refusal[anthropic.Config]{
		{Config: anthropic.Config{Model: "m", BaseURL: "api.anthropic.com"}, Want: "want http:// or https://"},
		{Config: anthropic.Config{}, Want: "no model"},
		{Config: anthropic.Config{Model: "m", ThinkingBudget: 500}, Want: "below the API's minimum of 1024"},
		{Config: anthropic.Config{Model: "m", ThinkingBudget: 4096, MaxTokens: 4096}, Want: "must be more than the thinking budget"},
		{Config: anthropic.Config{Model: "m", PriceIn: -1}, Want: "cannot be negative"},
	})
	b, err := anthropic.New(anthropic.Config{Model: "m", BaseURL: "http://127.0.0.1:9/v1/"})
	if err != nil || b.BaseURL() != "http://127.0.0.1:9" {
		t.Errorf("a base URL ending in /v1: %v %v, want the root", b, err)
	}
}
