package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/coplayhq/coplay/game"
)

// Observe reads the configured operations, each only when not known fresh (read
// less than the TTL ago with no action since), summarised into one markdown text.
// The numbers at the top of each response (or of its "data" object) become metrics,
// so the screen can plot credits and the like. A read that fails is reported in the
// summary; error is only for a cancelled ctx.
func (g *Game) Observe(ctx context.Context) (game.Observation, error) {
	obs := game.Observation{Time: g.now()}
	if len(g.observe) == 0 {
		obs.Summary = "(No observation is configured for this game: use the read tools to look around.)"
		return obs, nil
	}
	per := outputLimit / len(g.observe)
	var b strings.Builder
	for _, op := range g.observe {
		c := g.read(ctx, op, per)
		if err := ctx.Err(); err != nil {
			return game.Observation{}, err
		}
		fmt.Fprintf(&b, "## %s\n%s\n\n", op.Name, c.text)
		for _, m := range c.metrics {
			if len(g.observe) > 1 {
				m.Name = op.Name + "." + m.Name
			}
			obs.Metrics = append(obs.Metrics, m)
		}
	}
	obs.Summary = strings.TrimRight(b.String(), "\n")
	return obs, nil
}

// read returns one observed operation, from the cache when still fresh.
func (g *Game) read(ctx context.Context, op *operation, limit int) cached {
	g.mu.Lock()
	c, ok := g.cache[op.Name]
	gen := g.gen
	now := g.now()
	g.mu.Unlock()
	if ok && c.gen == gen && now.Sub(c.at) < g.ttl {
		return c
	}
	resp, err := g.exchange(ctx, op, map[string]any{})
	if err != nil {
		return cached{text: "(could not read: " + g.scrub.String(err.Error()) + ")"}
	}
	resp.Body = []byte(g.scrub.String(string(resp.Body)))
	resp.ReadErr = g.scrub.String(resp.ReadErr)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.last[op.Name] = resp
	if resp.Status < 200 || resp.Status >= 300 {
		e := errorFrom(resp)
		return cached{text: fmt.Sprintf("(could not read: error %d: %s)", e.Code, e.Message)}
	}
	text, ms := observed(resp, op.Name, limit)
	c = cached{at: now, gen: gen, text: text, metrics: ms}
	g.cache[op.Name] = c
	return c
}

// observed reads an observed response once: its text and its metrics.
func observed(r *response, tool string, limit int) (string, []game.Metric) {
	root, ok := topObject(r.Body)
	if !ok {
		return successText(r, tool, limit), nil
	}
	return observedText(root, tool, limit), metrics(root)
}

// topObject decodes a JSON object body, descending into its "data" object when it has
// one (the usual envelope), with numbers kept exact.
func topObject(body []byte) (map[string]any, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var root map[string]any
	if dec.Decode(&root) != nil {
		return nil, false
	}
	if data, ok := root["data"].(map[string]any); ok {
		root = data
	}
	return root, true
}

// observedText renders an observed object for the world pane and the model: its fields
// one a line, as "- name: value", long values cut.
func observedText(root map[string]any, tool string, limit int) string {
	names := make([]string, 0, len(root))
	for k := range root {
		names = append(names, k)
	}
	sort.Strings(names)
	const valueMax = 160
	var b strings.Builder
	for _, k := range names {
		var v string
		switch x := root[k].(type) {
		case string:
			v = x
		case json.Number:
			v = x.String()
		case nil:
			v = "null"
		case []any:
			raw, _ := json.Marshal(x)
			v = fmt.Sprintf("%d item(s) %s", len(x), raw)
		default:
			raw, _ := json.Marshal(x)
			v = string(raw)
		}
		if len(v) > valueMax {
			v = v[:valueMax] + "…"
		}
		line := fmt.Sprintf("- %s: %s\n", k, v)
		if b.Len()+len(line) > limit {
			fmt.Fprintf(&b, "- … %d more field(s) (last_response {\"tool\": %q} shows them)\n", len(names)-strings.Count(b.String(), "\n"), tool)
			break
		}
		b.WriteString(line)
	}
	return strings.TrimRight(b.String(), "\n")
}

// metrics returns the numbers among an object's fields, by name.
func metrics(root map[string]any) []game.Metric {
	var out []game.Metric
	for name, v := range root {
		if n, ok := v.(json.Number); ok {
			if f, err := n.Float64(); err == nil {
				out = append(out, game.Metric{Name: name, Value: f})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
