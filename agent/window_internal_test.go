package agent

import (
	"testing"

	"github.com/coplayhq/coplay/agent/catalog"
)

// A large window keeps today's prompt exactly; a small one narrows the prompt, the tools
// and the index; a budget the person set smaller stays.
func TestFitWindow(t *testing.T) {
	t.Parallel()
	for _, w := range []int{0, 128_000, 200_000, 1_000_000} {
		cfg := Config{ContextWindow: w}
		fitWindow(&cfg)
		if cfg.windowFitted() || cfg.PromptBudget != 0 || cfg.ToolBudget != 0 || indexBudget(cfg) != 0 {
			t.Errorf("window %d changed the budgets: %+v", w, cfg)
		}
	}
	cfg := Config{ContextWindow: 8192}
	fitWindow(&cfg)
	if !cfg.windowFitted() || cfg.PromptBudget >= DefaultPromptBudget || cfg.ToolBudget >= catalog.DefaultBudget ||
		indexBudget(cfg) >= catalog.DefaultIndexBudget || indexBudget(cfg) <= 0 {
		t.Errorf("window 8192: prompt %d, tools %d, index %d", cfg.PromptBudget, cfg.ToolBudget, indexBudget(cfg))
	}
	// (8192 - 2048 for the answer) tokens at 3 characters, tools two fifths of it.
	if cfg.PromptBudget+cfg.ToolBudget != (8192-2048)*charsPerToken {
		t.Errorf("window 8192: %d + %d characters", cfg.PromptBudget, cfg.ToolBudget)
	}
	mine := Config{ContextWindow: 8192, ToolBudget: 2000, PromptBudget: 5000}
	fitWindow(&mine)
	if mine.ToolBudget != 2000 || mine.PromptBudget != 5000 {
		t.Errorf("the person's smaller budgets were changed: %+v", mine)
	}
}
