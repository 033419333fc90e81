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

// BenchmarkLeagueFrame draws a league's 160×48 screen with every seat full of history
// (a thousand log entries, a world, notes, a call waiting) while one seat streams: each
// op hands a delta to a seat in turn and renders a frame. Compare seats=1 with seats=6:
// the goal is a frame with 6 seats in at most 2 ms.
func BenchmarkLeagueFrame(b *testing.B) {
	for _, n := range []int{1, 6} {
		for _, size := range [][2]int{{80, 24}, {160, 48}} {
			b.Run(fmt.Sprintf("seats=%d/%dx%d", n, size[0], size[1]), func(b *testing.B) {
				names := []string{"Heron", "Finch", "Lark", "Wren", "Crow", "Kite"}[:n]
				var infos []SeatInfo
				for _, name := range names {
					infos = append(infos, SeatInfo{Name: name, Model: "autopilot"})
				}
				m := newTestModelInfo(newFake(), func(i *Info) { i.Seats = infos })
				m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				for _, name := range names {
					feed := func(ev agent.Event) { ev.Seat = name; m.Update(eventMsg(ev)) }
					for _, e := range opening() {
						feed(e)
					}
					for i := range 1000 {
						feed(agent.Event{Type: agent.EventResult, Call: call(fmt.Sprint(name, "/c", i), "navigate_ship", `{}`),
							Result: resultOf(fmt.Sprintf(`{"nav":{"status":"IN_TRANSIT","step":%d}}`, i))})
					}
					feed(agent.Event{Type: agent.EventProposed, Call: call(name+"/w1", "dock_ship", `{"shipSymbol":"COPLAY-1"}`)})
					feed(agent.Event{Type: agent.EventState, State: agent.Deciding})
				}
				m.render()
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					ev := agent.Event{Type: agent.EventTextDelta, Text: "more words ", Seat: names[i%n]}
					if i%100 == 99 {
						ev.Type, ev.Text = agent.EventText, "" // a message is about a hundred deltas long
					}
					m.Update(eventMsg(ev))
					_ = m.View()
				}
			})
		}
	}
}
