package ui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
)

func toolMap() map[string]game.Tool {
	out := map[string]game.Tool{}
	for _, t := range testTools() {
		out[t.Name] = t
	}
	return out
}

func TestParseMove(t *testing.T) {
	tools := toolMap()
	for line, want := range map[string]string{
		"dock_ship":                     `{}`,
		"dock_ship shipSymbol=COPLAY-1": `{"shipSymbol":"COPLAY-1"}`,
		`set_flight_mode shipSymbol="A 1" flightMode=BURN`:      `{"shipSymbol":"A 1","flightMode":"BURN"}`,
		`set_flight_mode shipSymbol=12`:                         `{"shipSymbol":"12"}`, // a string field keeps a number as text
		`navigate_ship {"shipSymbol":"S","waypointSymbol":"W"}`: `{"shipSymbol":"S","waypointSymbol":"W"}`,
		`dock_ship units=5 ok=true list=[1, 2]`:                 `{"units":5,"ok":true,"list":[1, 2]}`,
	} {
		_, args, problem := parseMove(line, tools)
		if problem != "" || string(args) != want {
			t.Errorf("parseMove(%q) = %s, %q; want %s", line, args, problem, want)
		}
	}
	for _, line := range []string{"dock_ship shipSymbol", "dock_ship a=1 a=2", `navigate_ship {"x":`} {
		if _, _, problem := parseMove(line, tools); problem == "" {
			t.Errorf("parseMove(%q) found nothing wrong", line)
		}
	}
}

func TestCompleteMove(t *testing.T) {
	tools := toolMap()
	names := []string{"dock_ship", "navigate_ship", "set_flight_mode"}
	for _, c := range []struct{ line, want, choices string }{
		{"set_f", "set_flight_mode ", ""},
		{"nav", "navigate_ship ", ""},
		{"", "", "dock_ship navigate_ship set_flight_mode"},
		{"_ship", "_ship", "dock_ship navigate_ship"},
		{"set_flight_mode fl", "set_flight_mode flightMode=", ""},
		{"set_flight_mode ", "set_flight_mode ", "flightMode shipSymbol"},
		{"set_flight_mode flightMode=D", "set_flight_mode flightMode=DRIFT ", ""},
		{"set_flight_mode flightMode=DRIFT s", "set_flight_mode flightMode=DRIFT shipSymbol=", ""},
		{"set_flight_mode flightMode=", "set_flight_mode flightMode=", "CRUISE BURN DRIFT STEALTH"},
	} {
		got, choices := complete(c.line, tools, names)
		if got != c.want || strings.Join(choices, " ") != c.choices {
			t.Errorf("complete(%q) = %q %q; want %q %q", c.line, got, choices, c.want, c.choices)
		}
	}
}

// ":" opens the move line; tab completes the tool's name, its arguments' names and
// values; enter plays the move.
func TestMoveLinePlaysAMove(t *testing.T) {
	f := newFake()
	m := newTestModel(f)
	drive(t, m, events(opening()), keys(":"))
	if m.openKind() != moveDialog {
		t.Fatalf("%v is open, want the move line", m.openKind())
	}
	drive(t, m, typeText("set_f"), keys("tab"), typeText("fl"), keys("tab"), typeText("D"), keys("tab"),
		typeText("sh"), keys("tab"), typeText("COPLAY-1"))
	d := m.dlg.(*moveLine)
	if got := d.input.Value(); got != "set_flight_mode flightMode=DRIFT shipSymbol=COPLAY-1" {
		t.Fatalf("the move line reads %q", got)
	}
	if len(d.probs) != 0 || !strings.Contains(stripANSI(strings.Join(d.view(100, 30), "\n")), "✓ valid") {
		t.Errorf("problems %v", d.probs)
	}
	drive(t, m, keys("enter"))
	wantCommands(t, f, agent.Command{Cmd: agent.CmdPlay, Tool: "set_flight_mode", Args: json.RawMessage(`{"flightMode":"DRIFT","shipSymbol":"COPLAY-1"}`)})
	if m.openKind() != noDialog {
		t.Errorf("the move line stays open after the move was sent")
	}
}

// A move that does not fit is shown wrong as it is typed, and enter sends nothing.
func TestMoveLineRefusesABadMove(t *testing.T) {
	f := newFake()
	m := newTestModel(f)
	drive(t, m, events(opening()), keys(":"), typeText("set_flight_mode flightMode=WARP shipSymbol=S"), keys("enter"))
	d := m.dlg.(*moveLine)
	if len(d.probs) == 0 || !strings.Contains(d.probs[0], "flightMode") {
		t.Errorf("problems %v", d.probs)
	}
	drive(t, m, keys("esc"))
	wantCommands(t, f)
}

// A deny rule that matches is shown, and the move needs a second enter: it goes with
// force.
func TestMoveLineAgainstADenyRule(t *testing.T) {
	f := newFake()
	m := newTestModelInfo(f, func(i *Info) {
		i.Rules = []agent.FixedRule{{Line: "deny dock_ship: stay in orbit", From: "config.toml"}}
	})
	drive(t, m, events(opening()), keys(":"), typeText("dock_ship shipSymbol=S"), keys("enter"))
	if len(f.commands()) != 0 || !strings.Contains(m.hint, "deny dock_ship") {
		t.Fatalf("first enter: sent %v, hint %q", f.commands(), m.hint)
	}
	drive(t, m, keys("enter"))
	wantCommands(t, f, agent.Command{Cmd: agent.CmdPlay, Tool: "dock_ship", Args: json.RawMessage(`{"shipSymbol":"S"}`), Force: true})
}

// previewAgent is the fake with dry runs.
type previewAgent struct{ *fakeAgent }

func (previewAgent) Preview(_ context.Context, _, tool string, args json.RawMessage) agent.MovePreview {
	return agent.MovePreview{Simulation: &game.Simulation{Summary: "would fly " + string(args)}}
}

// The dry run shows where the tool has one.
func TestMoveLineShowsTheDryRun(t *testing.T) {
	f := newFake()
	m := New(previewAgent{f}, testInfo())
	drive(t, m, events(opening()), keys(":"), typeText("navigate_ship shipSymbol=S waypointSymbol=W"))
	d := m.dlg.(*moveLine)
	var cmd tea.Cmd = m.preview(actPreview{tool: "navigate_ship", args: d.args, key: d.asked})
	m.Update(cmd())
	if got := stripANSI(strings.Join(d.view(100, 30), "\n")); !strings.Contains(got, `dry run: would fly {"shipSymbol":"S","waypointSymbol":"W"}`) {
		t.Errorf("the move line:\n%s", got)
	}
}

// T takes the wheel and, once the runner says the person holds it, hands it back; the
// status bar says who plays. "?" in the advice line asks a question.
func TestWheelAndQuestion(t *testing.T) {
	f := newFake()
	m := newTestModel(f)
	drive(t, m, events(opening()), keys("T"))
	drive(t, m, events([]agent.Event{{Type: agent.EventWheel, Plays: agent.PlaysPerson, Text: "the person holds the wheel"},
		{Type: agent.EventState, State: agent.PersonPlays, Text: "the person holds the wheel"}}))
	if bar := stripANSI(m.renderStatus(160)); !strings.Contains(bar, "you play") {
		t.Errorf("status bar: %s", bar)
	}
	drive(t, m, keys("T"), keys("/"), typeText("?why drift?"), keys("enter"))
	wantCommands(t, f, agent.Command{Cmd: agent.CmdTakeOver, On: true}, agent.Command{Cmd: agent.CmdTakeOver},
		agent.Command{Cmd: agent.CmdAsk, Text: "why drift?"})
	drive(t, m, events([]agent.Event{{Type: agent.EventQuestion, Text: "why drift?"}, {Type: agent.EventReply, Text: "To save fuel."},
		{Type: agent.EventToolStart, Call: &agent.Call{ID: "m1", Tool: "dock_ship", Args: json.RawMessage(`{}`), By: agent.ByPerson}},
		{Type: agent.EventResult, Call: &agent.Call{ID: "m1", Tool: "dock_ship", By: agent.ByPerson}, Result: resultOf("docked")}}))
	log := logText(m, 100, 40)
	for _, want := range []string{"you asked: why drift?", "answer: To save fuel.", "you play: dock_ship"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
}

// A watch-only screen opens no move line and takes no wheel.
func TestWatchOnlyScreenPlaysNoMove(t *testing.T) {
	f := newFake()
	m := newTestModelInfo(f, func(i *Info) { i.ReadOnly = true })
	drive(t, m, events(opening()), keys(":", "T"))
	if m.openKind() != noDialog {
		t.Errorf("%v opened", m.openKind())
	}
	wantCommands(t, f)
}
