package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
)

// However many calls wait and however small the terminal, the keys to decide them
// stay on screen.
func TestPendingKeysStayVisibleWithManyCalls(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}, {100, 20}} {
		f := newFake()
		m := newTestModel(f)
		var evs []agent.Event
		for i := range 8 {
			c := call(fmt.Sprintf("c%d", i), "navigate_ship",
				`{"shipSymbol":"COPLAY-1","waypointSymbol":"X1-DF55-B7","note":"a long argument to make the call tall"}`)
			evs = append(evs, agent.Event{Type: agent.EventProposed, Call: c})
		}
		drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: size[0], Height: size[1]}}, events(opening(), evs))
		screen := stripANSI(m.render())
		if !strings.Contains(screen, "a approve") || !strings.Contains(screen, "v veto") {
			t.Errorf("%dx%d: the decision keys are not on screen:\n%s", size[0], size[1], screen)
		}
	}
}

// A resumed session's re-shown calls carry their step; the status bar shows it before
// any new step begins.
func TestStatusShowsTheStepOfResumedEvents(t *testing.T) {
	f := newFake()
	m := newTestModel(f)
	c := call("c1", "orbit_ship", `{"shipSymbol":"COPLAY-1"}`)
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 160, Height: 48}},
		events([]agent.Event{{Type: agent.EventStarted, Text: "resumed"}, {Type: agent.EventProposed, Step: 41, Call: c}}))
	if screen := stripANSI(m.render()); !strings.Contains(screen, "step 41") {
		t.Fatalf("status bar does not show step 41:\n%s", screen)
	}
}

// A call with a reason of its own (the autopilot's) shows that reason as its why, not the
// step's text, whose first lines are the same for every call (issue 41).
func TestPendingShowsTheCallsOwnWhy(t *testing.T) {
	m := newTestModel(newFake())
	c := call("c1", "set_flight_mode", `{"shipSymbol":"COPLAY-1","flightMode":"BURN"}`)
	c.Why = "Set COPLAY-1 to BURN for the 14-unit hop to X1-YS98-B1."
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 120, Height: 40}}, events([]agent.Event{
		{Type: agent.EventText, Text: "Autopilot here: I play by rules, with no language model.\n- Accept the contract.\n- " + c.Why},
		{Type: agent.EventProposed, Call: c},
	}))
	got := stripANSI(m.render())
	if !strings.Contains(got, "why: Set COPLAY-1 to BURN for the 14-unit hop") || strings.Contains(got, "why: Autopilot here") {
		t.Errorf("the pending call's why is not its own:\n%s", got)
	}
}
