package cli

import (
	"github.com/coplayhq/coplay/agent/models"
	"github.com/coplayhq/coplay/config"
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
