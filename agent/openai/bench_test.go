package openai_test

import (
	"context"
	"testing"

	"github.com/coplayhq/coplay/agent/openai"
)

const benchCassette = `{"repeat": true, "steps": [{"text": "Orbiting first, then heading to the asteroid to mine iron ore for the contract.",
  "calls": [{"tool": "orbit_ship", "args": {"shipSymbol": "COPLAY-1"}},
            {"tool": "navigate_ship", "args": {"shipSymbol": "COPLAY-1", "waypointSymbol": "X1-A1-B7"}}]}]}`

// BenchmarkNext is one model call over loopback against llmtest: request encoding,
// SSE parsing and reassembly of text and two tool calls.
func BenchmarkNext(b *testing.B) {
	for _, stream := range []bool{true, false} {
		name := "plain"
		if stream {
			name = "stream"
		}
		b.Run(name, func(b *testing.B) {
			_, brain, _ := script(b, benchCassette, func(c *openai.Config) { c.Stream = stream })
			req := request(b)
			req.OnDelta = func(string) {}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := brain.Next(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
