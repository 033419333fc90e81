package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/keymap"
)

// Issue 41: at 80×24 the key hints were cut ("↓/j next ca…") and the status bar dropped
// the game and the session. Now the keys pack tighter rather than being cut, and the tab
// bar names the game and the session.
func TestEightyColumnsKeepKeysGameAndSession(t *testing.T) {
	m := newTestModel(newFake())
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 80, Height: 24}}, screens["pending"]())
	got := stripANSI(m.render())
	for _, want := range []string{"↓/j next call", "SpaceTraders", "spacetraders-2026-11-22-1503", "autopilot: no model configured"} {
		if !strings.Contains(got, want) {
			t.Errorf("the 80×24 screen does not show %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "…│") {
		t.Errorf("a line is cut:\n%s", got)
	}
}

// The first screen says in one line what the person can do, and that changes with what
// the agent waits for.
func TestHintSaysWhatToDoNow(t *testing.T) {
	for _, tc := range []struct {
		name string
		feed []tea.Msg
		want string
	}{
		{"playing", screens["first"](), "the agent plays: / advise · p pause · : your move · enter read the log whole · m map legend"},
		{"a call waits", screens["pending"](), "decide the call above: a approve · v veto · e edit · enter see it whole"},
		{"idle", events(opening(), []agent.Event{{Type: agent.EventState, State: agent.Idle, Text: "the model ended its turn"}}),
			"the agent waits for you: p resume · / advise"},
	} {
		m := newTestModel(newFake())
		drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 120, Height: 40}}, tc.feed)
		lines := strings.Split(stripANSI(m.render()), "\n")
		if hint := lines[len(lines)-2]; !strings.Contains(hint, tc.want) {
			t.Errorf("%s: the hint line is %q, want %q", tc.name, hint, tc.want)
		}
	}
}

// A read-only screen says so where the decision keys would be, and offers none.
func TestWatchScreenHintIsReadOnly(t *testing.T) {
	km := keymap.Default()
	lead, keys := nextMoves(km, situation{state: agent.Deciding, calls: true, watch: true})
	if !strings.Contains(lead, "watching only") {
		t.Fatalf("lead = %q", lead)
	}
	for _, k := range keys {
		if k.Help().Desc == "approve" || k.Help().Desc == "veto" || k.Help().Desc == "advise" {
			t.Errorf("a read-only screen offers %q", k.Help().Desc)
		}
	}
}
