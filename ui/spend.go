package ui

import (
	"fmt"

	"github.com/coplayhq/coplay/agent"
)

// spend is what the status bar knows of the model's bill beyond the token total.
type spend struct {
	prompt, cached int
	upper          bool // some cost counts cached tokens at the full price: it is at most that
}

// addUsage counts a model call's usage for the status bar.
func (m *Model) addUsage(u *agent.Usage) {
	if u == nil {
		return
	}
	m.tokens += u.PromptTokens + u.CompletionTokens
	m.cost += u.Cost
	m.spend.prompt += u.PromptTokens
	m.spend.cached += u.CachedTokens
	m.spend.upper = m.spend.upper || u.CostUpper
	if u.PromptTokens+u.CompletionTokens > 0 && !u.CostKnown {
		m.costUnknown = true // a model without a price: never show $0 for it
	}
}

// spendText is the status bar's bill: "41.2k tok · 88% cached · $0.0123", with "≤" when
// cached tokens were priced at the full rate and "cost unknown" for a model without a
// price.
//
// With a spend cap, the spend is shown against it: "41.2k/2.0M tok", "$0.0123/$1.50".
func (m *Model) spendText() string {
	cost := fmt.Sprintf("$%.4f", m.cost)
	if m.info.MaxCost > 0 {
		cost += fmt.Sprintf("/$%.2f", m.info.MaxCost)
	}
	switch {
	case m.costUnknown:
		cost = "cost unknown"
		if m.info.PriceFrom == "none" {
			cost += " (no price)"
		}
	case m.spend.upper:
		cost = "≤" + cost
	}
	if !m.costUnknown && (m.info.PriceFrom == "catalogue" || m.info.PriceFrom == "config") {
		cost += " (" + m.info.PriceFrom + ")"
	}
	s := ShortCount(int64(m.tokens))
	if m.info.MaxTokens > 0 {
		s += "/" + ShortCount(m.info.MaxTokens)
	}
	s += " tok"
	if m.spend.prompt > 0 && m.spend.cached > 0 {
		s += fmt.Sprintf(" · %d%% cached", m.spend.cached*100/m.spend.prompt)
	}
	return s + " · " + cost
}
