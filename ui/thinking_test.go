package ui

import (
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
)

// The model's reasoning shows in the log dimmed (the muted style, not the text's) and
// folded to a few lines, and the streamed message it follows still finishes in place.
func TestThinkingDimmedFoldedAndTextFinishes(t *testing.T) {
	m := newTestModel(newFake())
	m.handleEvent(m.cur(), agent.Event{Type: agent.EventTextDelta, Text: "I will orbit"})
	m.handleEvent(m.cur(), agent.Event{Type: agent.EventThinking, Text: "one\ntwo\nthree\nfour\nfive"})
	m.handleEvent(m.cur(), agent.Event{Type: agent.EventText, Text: "I will orbit first."})
	var think, text *entry
	for _, e := range m.cur().log.entries {
		switch e.kind {
		case kindThinking:
			think = e
		case kindText:
			text = e
		}
	}
	if think == nil || text == nil {
		t.Fatalf("log has thinking %v and text %v", think, text)
	}
	if text.streaming || text.text != "I will orbit first." || m.cur().log.entries[len(m.cur().log.entries)-1] != text {
		t.Errorf("the streamed message did not finish in place: %+v", text)
	}
	if !strings.Contains(think.text, "three") || strings.Contains(think.text, "four") || !strings.Contains(think.text, "2 more lines of thinking") {
		t.Errorf("thinking not folded to 3 lines: %q", think.text)
	}
	lines := m.cur().log.wrapped(think, 60)
	want := m.st.muted.Render("x")
	pre := want[:strings.Index(want, "x")]
	if pre == "" || !strings.HasPrefix(lines[0], pre) {
		t.Errorf("thinking line %q is not in the muted style (%q)", lines[0], pre)
	}
	textPre := m.st.text.Render("x")
	if textPre[:strings.Index(textPre, "x")] == pre {
		t.Fatal("muted and text styles render alike: the test cannot tell dimmed from plain")
	}
}

// A call read from the model's text says so in the log.
func TestProposedFromTextMarked(t *testing.T) {
	m := newTestModel(newFake())
	m.handleEvent(m.cur(), agent.Event{Type: agent.EventProposed, Call: &agent.Call{ID: "c1", Tool: "dock_ship", Args: []byte(`{"shipSymbol":"COPLAY-1"}`), FromText: true}})
	m.handleEvent(m.cur(), agent.Event{Type: agent.EventProposed, Call: &agent.Call{ID: "c2", Tool: "dock_ship", Args: []byte(`{"shipSymbol":"COPLAY-2"}`)}})
	var marked []string
	for _, e := range m.cur().log.entries {
		if strings.Contains(e.text, "read from the model's text") {
			marked = append(marked, e.text)
		}
	}
	if len(marked) != 1 || !strings.Contains(marked[0], "COPLAY-1") {
		t.Errorf("calls marked as read from text: %q", marked)
	}
}
