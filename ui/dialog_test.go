package ui

import (
	"encoding/json"
	"reflect"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/keymap"
)

// feedDialog types msgs into d, as the Model routes them, and returns the last action.
func feedDialog(d dialog, msgs ...[]tea.Msg) action {
	var last action
	for _, group := range msgs {
		for _, msg := range group {
			if _, a := d.update(msg); a != nil {
				last = a
			}
		}
	}
	return last
}

// A dialog is a model of its own: it changes only its own state and says what the
// screen must do, without an agent to send to.
func TestDialogsReturnActions(t *testing.T) {
	st, km := newStyles(true), keymap.Default()
	call := agent.Call{ID: "c1", Tool: "navigate_ship", Args: json.RawMessage(`{"shipSymbol":"COPLAY-1"}`)}

	veto, _ := newVetoPrompt(&st, km, call, 80)
	got := feedDialog(veto, typeText("  too far  "), keys("enter"))
	want := actDecide{Cmd: agent.CmdDecide, CallID: "c1", Decision: agent.Veto, Reason: "too far"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("veto: %#v, want %#v", got, want)
	}
	veto, _ = newVetoPrompt(&st, km, call, 80)
	if got := feedDialog(veto, keys("esc")); got != actClose {
		t.Errorf("veto esc: %#v, want close", got)
	}

	ed, _ := newArgsEditor(&st, km, nil, call, 80, 24)
	if got := feedDialog(ed, keys("end", "backspace", "ctrl+s")); got != nil || !ed.refused {
		t.Errorf("broken JSON: %#v, refused %v", got, ed.refused)
	}
	got = feedDialog(ed, typeText("}"), keys("ctrl+s"))
	if r, ok := got.(actRevise); !ok || r.id != "c1" || string(r.args) != `{"shipSymbol":"COPLAY-1"}` {
		t.Errorf("fixed JSON: %#v, want a revision of c1", got)
	}

	rules := newRuleBook(&st, km, Info{})
	got = feedDialog(rules, keys("+"), typeText("allow dock_ship"), keys("enter"))
	if !reflect.DeepEqual(got, actRule{line: "allow dock_ship"}) {
		t.Errorf("new rule: %#v", got)
	}
	help, ok := feedDialog(rules, keys("esc", "?")).(actOpen)
	if !ok || help.d.kind() != helpDialog {
		t.Fatalf("? in the rules: %#v, want the help", help)
	}
	if back := feedDialog(help.d, keys("?")); back != (actOpen{rules}) {
		t.Errorf("closing the help: %#v, want the rules back", back)
	}
}
