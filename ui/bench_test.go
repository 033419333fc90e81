package ui

import (
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
)

// BenchmarkRender draws the full 160×48 screen with a long log while the model
// streams: each op appends a delta to the streaming message and renders a frame.
// Compare entries=100 with entries=10000: a frame must cost the same.
func BenchmarkRender(b *testing.B) {
	for _, n := range []int{100, 10000} {
		for _, size := range [][2]int{{80, 24}, {160, 48}} {
			b.Run(fmt.Sprintf("entries=%d/%dx%d", n, size[0], size[1]), func(b *testing.B) {
				m := newTestModel(newFake())
				m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				for _, e := range opening() {
					m.Update(eventMsg(e))
				}
				for i := range n {
					m.Update(eventMsg(agent.Event{Type: agent.EventResult, Call: call(fmt.Sprint("c", i), "navigate_ship", `{}`),
						Result: resultOf(fmt.Sprintf(`{"nav":{"status":"IN_TRANSIT","step":%d}}`, i))}))
				}
				m.Update(eventMsg(agent.Event{Type: agent.EventTextDelta, Text: "Streaming: "}))
				m.render()
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					if i%100 == 99 {
						// A message is about a hundred deltas long; then the next one starts.
						m.Update(eventMsg(agent.Event{Type: agent.EventText}))
					}
					m.Update(eventMsg(agent.Event{Type: agent.EventTextDelta, Text: "more words "}))
					_ = m.View()
				}
			})
		}
	}
}
