package ui

import (
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
)

// The status bar says where the price behind the cost comes from.
func TestSpendNamesThePriceSource(t *testing.T) {
	for _, tc := range []struct {
		from string
		cost bool
		want string
	}{
		{"catalogue", true, "$0.0015 (catalogue)"},
		{"config", true, "$0.0015 (config)"},
		{"none", false, "cost unknown (no price)"},
		{"", true, "$0.0015"},
	} {
		var bill spend
		bill.add(&agent.Usage{PromptTokens: 10000, CompletionTokens: 10, Cost: 0.0015, CostKnown: tc.cost})
		if got := bill.text(&Info{PriceFrom: tc.from}); !strings.HasSuffix(got, tc.want) {
			t.Errorf("price from %q: %q, want it to end in %q", tc.from, got, tc.want)
		}
	}
}
