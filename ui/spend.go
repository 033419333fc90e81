package ui

import (
	"fmt"

	"github.com/coplayhq/coplay/agent"
)

// spend is what the status bar knows of the model's bill.
type spend struct {
	tokens         int
	cost           float64
	unknown        bool // a model without a known price was used: the status bar says so, not $0
	prompt, cached int
	upper          bool // some cost counts cached tokens at the full price: it is at most that
}

// add counts a model call's usage.
func (s *spend) add(u *agent.Usage) {
	if u == nil {
		return
	}
	s.tokens += u.PromptTokens + u.CompletionTokens
	s.cost += u.Cost
	s.prompt += u.PromptTokens
	s.cached += u.CachedTokens
	s.upper = s.upper || u.CostUpper
	if u.PromptTokens+u.CompletionTokens > 0 && !u.CostKnown {
		s.unknown = true // a model without a price: never show $0 for it
	}
}

// text is the status bar's bill: "41.2k tok · 88% cached · $0.0123", with "≤" when
// cached tokens were priced at the full rate and "cost unknown" for a model without a
// price.
//
// With a spend cap (in info), the spend is shown against it: "41.2k/2.0M tok",
// "$0.0123/$1.50".
func (s *spend) text(info *Info) string {
	cost := fmt.Sprintf("$%.4f", s.cost)
	if info.MaxCost > 0 {
		cost += fmt.Sprintf("/$%.2f", info.MaxCost)
	}
	switch {
	case s.unknown:
		cost = "cost unknown"
		if info.PriceFrom == "none" {
			cost += " (no price)"
		}
	case s.upper:
		cost = "≤" + cost
	}
	if !s.unknown && (info.PriceFrom == "catalogue" || info.PriceFrom == "config") {
		cost += " (" + info.PriceFrom + ")"
	}
	t := ShortCount(int64(s.tokens))
	if info.MaxTokens > 0 {
		t += "/" + ShortCount(info.MaxTokens)
	}
	t += " tok"
	if s.prompt > 0 && s.cached > 0 {
		t += fmt.Sprintf(" · %d%% cached", s.cached*100/s.prompt)
	}
	return t + " · " + cost
}
