package openai

import (
	"fmt"

	"github.com/coplayhq/coplay/agent/client"
)

// The key must not reach a log through a careless %+v of a Config or a Brain, so both
// print themselves without it.

// Format prints the Config with the key replaced by "[set]" or "[none]".
func (cfg Config) Format(f fmt.State, verb rune) {
	key, temp := client.Shown(cfg.APIKey, cfg.Temperature)
	fmt.Fprintf(f, "openai.Config{BaseURL: %q, APIKey: %s, Model: %q, Preset: %q, MaxRetries: %d, Timeout: %s, Stream: %t, Temperature: %s, PriceIn: %g, PriceOut: %g, PriceCached: %g}",
		cfg.BaseURL, key, cfg.Model, cfg.Preset, cfg.MaxRetries, cfg.Timeout, cfg.Stream, temp, cfg.PriceIn, cfg.PriceOut, cfg.PriceCached)
}

// Format prints the Brain as its Config, without the key.
func (b *Brain) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "openai.Brain{%v}", b.cfg)
}
