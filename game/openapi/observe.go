package openapi

import (
	"context"
	"fmt"
	"strings"

	"github.com/coplayhq/coplay/game"
)

// Observe reads the configured operations, each only when not known fresh (read
// less than the TTL ago with no action since), summarised into one markdown text.
// A read that fails is reported in the summary; error is only for a cancelled ctx.
func (g *Game) Observe(ctx context.Context) (game.Observation, error) {
	obs := game.Observation{Time: g.now()}
	if len(g.observe) == 0 {
		obs.Summary = "(No observation is configured for this game: use the read tools to look around.)"
		return obs, nil
	}
	per := outputLimit / len(g.observe)
	var b strings.Builder
	for _, op := range g.observe {
		text := g.read(ctx, op, per)
		if err := ctx.Err(); err != nil {
			return game.Observation{}, err
		}
		fmt.Fprintf(&b, "## %s\n%s\n\n", op.Name, text)
	}
	obs.Summary = strings.TrimRight(b.String(), "\n")
	return obs, nil
}

// read returns one observed operation's summary, from the cache when still fresh.
func (g *Game) read(ctx context.Context, op *operation, limit int) string {
	g.mu.Lock()
	c, ok := g.cache[op.Name]
	gen := g.gen
	now := g.now()
	g.mu.Unlock()
	if ok && c.gen == gen && now.Sub(c.at) < g.ttl {
		return c.text
	}
	resp, err := g.exchange(ctx, op, map[string]any{})
	if err != nil {
		return "(could not read: " + g.scrub.scrub(err.Error()) + ")"
	}
	resp.Body = []byte(g.scrub.scrub(string(resp.Body)))
	g.mu.Lock()
	defer g.mu.Unlock()
	g.last[op.Name] = resp
	if resp.Status < 200 || resp.Status >= 300 {
		e := errorFrom(resp)
		return fmt.Sprintf("(could not read: error %d: %s)", e.Code, e.Message)
	}
	text := successText(resp, op.Name, limit)
	g.cache[op.Name] = cached{at: now, gen: gen, text: text}
	return text
}
