package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
)

// longResult is a result whose output the log folds to its first lines.
func longResult() []agent.Event {
	var out []string
	for i := 1; i <= 12; i++ {
		out = append(out, fmt.Sprintf("market line %d", i))
	}
	return []agent.Event{
		{Type: agent.EventProposed, Call: &agent.Call{ID: "r1", Tool: "observe_detail", Kind: game.Read, Args: []byte(`{"view":"market"}`)}},
		{Type: agent.EventResult, Call: &agent.Call{ID: "r1", Tool: "observe_detail", Kind: game.Read}, Result: &game.Result{Output: strings.Join(out, "\n")}},
	}
}

// Issue 41: the log folds a result to its first lines and nothing showed the rest. The
// details key shows the entry at the bottom of the log whole, the pane keys walk to the
// entries before it, and the copy key puts the whole text on the clipboard.
func TestWholeViewOfALogEntry(t *testing.T) {
	m := newTestModel(newFake())
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 120, Height: 40}}, events(opening(), longResult()))
	if got := stripANSI(m.render()); !strings.Contains(got, "… 6 more lines") || strings.Contains(got, "market line 12") {
		t.Fatalf("the log does not fold the result:\n%s", got)
	}
	drive(t, m, keys("enter"))
	got := stripANSI(m.render())
	if m.openKind() != detailDialog || !strings.Contains(got, "a result") || !strings.Contains(got, "market line 12") {
		t.Fatalf("enter does not show the result whole:\n%s", got)
	}
	_, cmd := m.Update(keyMsg("c"))
	if cmd == nil {
		t.Fatal("the copy key gives no command")
	}
	if msg := cmd(); fmt.Sprint(msg) != m.dlg.(*detailView).text || !strings.Contains(fmt.Sprintf("%T", msg), "Clipboard") {
		t.Errorf("the copy key sends %T %q, want the clipboard set to the whole entry", msg, fmt.Sprint(msg))
	}
	if got := stripANSI(m.render()); !strings.Contains(got, "copied") {
		t.Errorf("copying says nothing:\n%s", got)
	}
	drive(t, m, keys("["))
	if got := stripANSI(m.render()); !strings.Contains(got, "observe_detail {") || !strings.Contains(got, "a call") {
		t.Errorf("[ does not show the entry before (the call):\n%s", got)
	}
	offset := m.cur().log.offset
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelUp, X: 100, Y: 30})
	if m.cur().log.offset != offset {
		t.Error("the wheel scrolled the log under the whole view")
	}
	drive(t, m, keys("esc"))
	if m.openKind() == detailDialog {
		t.Error("esc does not close the whole view")
	}
}

// The details key on a waiting call shows it whole: its reason, its arguments with their
// line breaks, its dry run.
func TestWholeViewOfAPendingCall(t *testing.T) {
	m := newTestModel(newFake())
	c := call("n1", "update_notes", `{"section":"Situation","text":"- COPLAY-1 at A1\n- COPLAY-2 at A3"}`)
	c.Simulation = &game.Simulation{Summary: "rewrites the section"}
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 80, Height: 24}}, events(opening(), []agent.Event{
		{Type: agent.EventText, Text: "Write down where the ships are."},
		{Type: agent.EventProposed, Call: c},
	}), keys("enter"))
	got := stripANSI(m.render())
	for _, want := range []string{"Call update_notes", "Write down where the ships are.", "\"text\": \"- COPLAY-1 at A1", "│- COPLAY-2 at A3\"", "dry run: rewrites the section"} {
		if !strings.Contains(got, want) {
			t.Errorf("the whole view does not show %q:\n%s", want, got)
		}
	}
	if len(f(m)) != 0 {
		t.Errorf("enter on a waiting call sent %v", f(m))
	}
}

// f is what the screen sent its fake agent.
func f(m *Model) []agent.Command { return m.agent.(*fakeAgent).commands() }

// Issue 41: in replay the Pending pane ended "… 17 more lines" and the step's calls could
// not be seen; the details key shows them all.
func TestReplayShowsTheStepsCallsWhole(t *testing.T) {
	rp := testReplay(3)
	st := &rp.Steps[2]
	for i := range 20 {
		st.Calls = append(st.Calls, agent.ReplayCall{ID: fmt.Sprint("x", i), Tool: "navigate_ship", Args: []byte(fmt.Sprintf(`{"n":%d}`, i)),
			Decision: &agent.Decision{Decision: agent.Approve, By: "person"}, Result: &game.Result{Output: fmt.Sprintf("went %d", i)}})
	}
	r := NewReplay(rp, testInfo())
	r.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	if got := stripANSI(r.render()); !strings.Contains(got, "more lines · enter shows the step's calls whole") {
		t.Fatalf("the folded Pending pane does not say how to see the rest:\n%s", got)
	}
	r.Update(keyPress("enter"))
	for range 200 {
		r.Update(tea.KeyPressMsg{Code: tea.KeyDown})
	}
	if got := stripANSI(r.render()); !strings.Contains(got, "went 19") || !strings.Contains(got, "Step 3: 21 call(s)") {
		t.Errorf("the whole view does not reach the step's last call:\n%s", got)
	}
	r.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	if r.m.openKind() == detailDialog {
		t.Error("esc does not close the whole view on the replay screen")
	}
}

// The map's legend is one key away: m opens it, naming the symbols on this map.
func TestMapLegend(t *testing.T) {
	m := newTestModel(newFake())
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 120, Height: 40}}, events(opening()), keys("m"))
	got := stripANSI(m.render())
	for _, want := range []string{"Map legend", "X  jump gate", "@  a ship is there", "Ships: COPLAY-1 at X1-DF55-A1"} {
		if !strings.Contains(got, want) {
			t.Errorf("the legend does not say %q:\n%s", want, got)
		}
	}
	drive(t, m, keys("m"))
	if m.openKind() == legendDialog {
		t.Error("m does not close the legend")
	}
}
