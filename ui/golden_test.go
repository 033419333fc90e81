package ui

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
)

// screens are the golden screens: what is fed to a fresh screen before it is drawn.
var screens = map[string]func() []tea.Msg{
	"first": func() []tea.Msg { return events(opening()) },
	"pending": func() []tea.Msg {
		return append(events(opening(), proposal()), eventMsg(agent.Event{Type: agent.EventProposed,
			Call: call("c2", "set_flight_mode", `{"shipSymbol":"COPLAY-2","flightMode":"DRIFT"}`)}))
	},
	"edit_invalid": func() []tea.Msg {
		// Open the editor, go to the end of the flightMode line, and replace CRUISE by
		// "cruise": a value the schema refuses, with the closest valid one suggested.
		msgs := events(opening(), []agent.Event{{Type: agent.EventProposed,
			Call: call("c3", "set_flight_mode", `{"shipSymbol":"COPLAY-1","flightMode":"CRUISE"}`)}})
		msgs = append(msgs, keys("e", "up", "end", "left", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace")...)
		msgs = append(msgs, typeText("cruise")...)
		return append(msgs, keyMsg("ctrl+s"))
	},
	"veto_reason": func() []tea.Msg {
		msgs := events(opening(), proposal())
		msgs = append(msgs, keyMsg("v"))
		return append(msgs, typeText("fuel is low, refuel first")...)
	},
	"help": func() []tea.Msg { return append(events(opening()), keyMsg("?")) },
	// The move line: a tool completed with tab, a flight mode the schema refuses.
	"move_line": func() []tea.Msg {
		msgs := append(events(opening()), keyMsg(":"))
		msgs = append(msgs, typeText("set_f")...)
		msgs = append(msgs, keyMsg("tab"))
		return append(msgs, typeText("shipSymbol=COPLAY-1 flightMode=WARP")...)
	},
	// The world pane focused (1) and scrolled a page down (pgdown): the contracts the
	// pane could not hold are reachable, and the title says where the window is.
	"scrolled_world": func() []tea.Msg {
		return append(events(opening(), []agent.Event{{Type: agent.EventObservation, Observation: longObservation()}}), keys("1", "pgdown")...)
	},
	// The rules dialog (R) with a rule from config.toml and one from the profile (see
	// infoFor), two session rules, the first session rule selected.
	"rules": func() []tea.Msg {
		return append(events(opening(), []agent.Event{{Type: agent.EventRules, Rules: []string{
			"allow set_flight_mode(flightMode=CRUISE)", "allow navigate_ship if fuel <= 100"}}}), keys("R", "j", "j")...)
	},
	// Adding a rule in the dialog: a typo is shown with its column as it is typed.
	"rule_input": func() []tea.Msg {
		msgs := append(events(opening()), keys("R", "a")...)
		return append(msgs, typeText("alow dock_ship")...)
	},
	// Edit, then review: the call waits with the edited arguments and the runner's new
	// dry run, a predicted failure.
	"edit_review": func() []tea.Msg {
		msgs := events(opening(), []agent.Event{{Type: agent.EventProposed,
			Call: call("c3", "set_flight_mode", `{"shipSymbol":"COPLAY-1","flightMode":"CRUISE"}`)}})
		msgs = append(msgs, keys("e", "up", "end", "left", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace")...)
		msgs = append(msgs, typeText("BURN")...)
		msgs = append(msgs, keyMsg("ctrl+s"))
		c := call("c3", "set_flight_mode", `{"shipSymbol":"COPLAY-1","flightMode":"BURN"}`)
		c.Simulation = &game.Simulation{Summary: "burns 2 fuel per unit of distance; next trip to B7 uses 92 fuel (have 380)"}
		return append(msgs, eventMsg(agent.Event{Type: agent.EventToolUpdated, Call: c}))
	},
	// A resumed session: the log opens with the journal's last entries (see infoFor).
	"resumed_log": func() []tea.Msg {
		return events([]agent.Event{
			{Type: agent.EventStarted, Text: "resumed spacetraders-2026-11-22-1503 at step 41"},
			{Type: agent.EventObservation, Observation: observation()},
			{Type: agent.EventNotes, Notes: sampleNotes()},
			{Type: agent.EventState, State: agent.Running},
			// The call still waiting is shown again with its journal seq: pending, not
			// logged twice.
			{Seq: 910, Step: 41, Type: agent.EventProposed, Call: call("c41", "dock_ship", `{"shipSymbol":"COPLAY-1"}`)},
		})
	},
	// A predicted failure is a failure (✗), and a long survey is folded so the
	// validation, the dry run and the keys stay in the pane.
	"predicted_failure": func() []tea.Msg {
		c := call("c5", "extract_resources", surveyArgs)
		c.Simulation = &game.Simulation{Summary: "would fail (4236): COPLAY-1 must be in orbit first", Fails: true}
		return events(opening(), []agent.Event{
			{Type: agent.EventText, Text: "The hold is empty and B7 has a survey with IRON_ORE deposits: extract with it."},
			{Type: agent.EventProposed, Call: c},
		})
	},
	"wait": func() []tea.Msg {
		return events(opening(), []agent.Event{
			{Type: agent.EventText, Text: "COPLAY-1 is docked at A1 with a free hold. I will fly it to B7 to mine"},
			{Type: agent.EventResult, Call: call("c0", "navigate_ship", `{}`), Result: &game.Result{Output: `{"nav":{"status":"IN_TRANSIT","route":{"arrival":"2026-11-22T15:04:12Z"}}}`}},
			{Type: agent.EventWaiting, Wait: &game.Wait{Until: t0.Add(72 * time.Second), Reason: "COPLAY-2 is in transit to B7"}},
			{Type: agent.EventState, State: agent.Sleeping},
		})
	},
}

// infoFor changes the Info of a golden screen's model.
var infoFor = map[string]func(*Info){
	"rules": func(i *Info) {
		i.Rules = []agent.FixedRule{{Line: "deny dock_ship: stay in orbit", From: "config.toml"},
			{Line: "allow navigate_ship(shipSymbol=COPLAY-*)  if fuel<=50", From: "profile looker/fast"}}
	},
	"resumed_log": func(i *Info) { i.History = journalTail() },
}

// TestGoldenScreens runs each screen through a real program (teatest) at a small and
// a large terminal size, and compares the final frame, without colour, to
// testdata/TestGoldenScreens/<screen>/<size>.golden. Update with -update.
func TestGoldenScreens(t *testing.T) {
	for name, feed := range screens {
		for _, size := range [][2]int{{80, 24}, {160, 48}} {
			t.Run(fmt.Sprintf("%s/%dx%d", name, size[0], size[1]), func(t *testing.T) {
				f := newFake()
				m := newTestModelInfo(f, infoFor[name])
				m.events = nil // events are sent in order with the keys below
				tm := teatest.NewTestModel(t, m,
					teatest.WithInitialTermSize(size[0], size[1]),
					teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
				for _, msg := range feed() {
					tm.Send(msg)
				}
				if err := tm.Quit(); err != nil {
					t.Fatal(err)
				}
				final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*Model)
				screen := stripANSI(final.render())
				checkShape(t, screen, size[0], size[1])
				golden.RequireEqual(t, []byte(screen))
			})
		}
	}
}

// checkShape asserts the screen fills the terminal exactly: no line too long, none
// missing.
func checkShape(t *testing.T, screen string, w, h int) {
	t.Helper()
	lines := strings.Split(screen, "\n")
	if len(lines) != h {
		t.Errorf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if n := widthOf(l); n != w {
			t.Errorf("line %d is %d columns, want %d: %q", i+1, n, w, l)
		}
	}
}

// TestResizeKeepsShape draws every screen at sizes from tiny to huge.
func TestResizeKeepsShape(t *testing.T) {
	for name, feed := range screens {
		m := newTestModel(newFake())
		drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 80, Height: 24}}, feed())
		for _, size := range [][2]int{{80, 24}, {100, 30}, {119, 40}, {120, 40}, {200, 60}, {40, 12}, {20, 6}} {
			drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: size[0], Height: size[1]}})
			var b bytes.Buffer
			b.WriteString(stripANSI(m.render()))
			t.Run(fmt.Sprintf("%s/%dx%d", name, size[0], size[1]), func(t *testing.T) {
				checkShape(t, b.String(), size[0], size[1])
			})
		}
	}
}
