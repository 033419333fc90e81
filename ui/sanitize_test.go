package ui

import (
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
)

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"plain, with\ttab\nand line": "plain, with\ttab\nand line",
		"\x1b[2Jcleared":             "[2Jcleared",
		"title\x1b]0;pwned\x07":      "title]0;pwned",
		"back\rspace\b":              "backspace",
		"Heron\u202egnol":            "Herongnol",
		"iso\u2066late\u2069":        "isolate",
		"c1 \u009b31m":               "c1 31m",
		"bad \x9b byte":              "bad \ufffd byte",
		"del\x7f":                    "del",
		"Ωμέγα ✓ 東京":                 "Ωμέγα ✓ 東京",
	} {
		if got := sanitize(in); got != want {
			t.Errorf("sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}

// An event is cleaned as a copy: what the journal and the other screens hold of it is
// left as it was, and what needed no change is not copied.
func TestCleanCopiesOnlyWhatChanges(t *testing.T) {
	obs := &game.Observation{Summary: "fine", Metrics: []game.Metric{{Name: "gold\x1b[31m", Value: 3}}}
	c := call("c1", "say", `{"text":"hi\u001b"}`)
	c.Args = json.RawMessage("{\"text\":\"raw\x1b\"}")
	ev := agent.Event{Type: agent.EventObservation, Seat: "Wr\x1ben", Observation: obs, Call: c}
	got := clean(ev)
	if got.Seat != "Wren" || got.Observation.Metrics[0].Name != "gold[31m" || string(got.Call.Args) != `{"text":"raw"}` {
		t.Errorf("cleaned %+v %+v %s", got, got.Observation.Metrics, got.Call.Args)
	}
	if obs.Metrics[0].Name != "gold\x1b[31m" || ev.Seat != "Wr\x1ben" || !strings.Contains(string(c.Args), "\x1b") {
		t.Error("clean changed the event it was given")
	}
	plain := agent.Event{Type: agent.EventObservation, Observation: &game.Observation{Summary: "fine"}}
	if clean(plain).Observation != plain.Observation {
		t.Error("an event with nothing to clean was copied")
	}
}

// What a seat's name, a game server and the model put on the screen does not reach the
// terminal as escape codes: no clear screen, no window title, no reordering.
func TestScreenDrawsNoForeignEscapes(t *testing.T) {
	f := newFake()
	m := newTestModelInfo(f, func(i *Info) {
		i.Seats = []SeatInfo{{Name: "Heron\x1b[2J", Model: "autopilot\x1b]0;pwned\x07"}, {Name: "Finch"}}
		i.Session = "s\u202eion"
	})
	ask := question(doorForm)
	ask.Seat, ask.Elicitation.Message, ask.Elicitation.Server = "Heron\x1b[2J", "Which door\x1b[2J?", "dun\x1b]0;x\x07geon"
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 120, Height: 40}}, events(seatEvents("Heron\x1b[2J",
		agent.Event{Type: agent.EventStarted, Text: "started\x1b[2J"},
		agent.Event{Type: agent.EventText, Text: "I will \x1b]0;pwned\x07 fly"},
		agent.Event{Type: agent.EventProposed, Call: call("Heron\x1b[2J/c1", "dock_ship", "{\"shipSymbol\":\"X\x1b[2J\"}")},
	), seatEvents("Ghost\x1b[31m", agent.Event{Type: agent.EventNotice, Text: "boo"}), []agent.Event{ask}))
	for _, screen := range []string{m.render(), m.title()} {
		for _, bad := range []string{"\x1b[2J", "\x1b]0;", "\x07", "\u202e"} {
			if strings.Contains(screen, bad) {
				t.Errorf("the screen writes %q:\n%q", bad, screen)
			}
		}
	}
	if s := screenOf(m); !strings.Contains(s, "Heron[2J") || !strings.Contains(s, "Ghost[31m") {
		t.Errorf("the seats are not shown, cleaned:\n%s", s)
	}
}

// BenchmarkClean is what cleaning costs an event the screen takes: a text delta, and an
// observation with a map (nothing to strip in either: the common case).
func BenchmarkClean(b *testing.B) {
	obs := agent.Event{Type: agent.EventObservation, Observation: longObservation()}
	delta := agent.Event{Type: agent.EventTextDelta, Text: "more words ", Seat: "Heron"}
	b.Run("delta", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			_ = clean(delta)
		}
	})
	b.Run("observation", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			_ = clean(obs)
		}
	})
}
