package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
)

// Issue 47: on an attached screen with the veto box open, the owner decided that call;
// the box closed with no word, and the next key typed as a reason ("a") approved
// another seat's call. Now the box stays open, says what happened, and takes no key as
// a decision until it is closed.

// attached is an attached screen (a second screen on the owner's game) at 80×24 with
// the opening and a call waiting.
func attached(t *testing.T, change func(*Info)) (*Model, *fakeAgent) {
	t.Helper()
	f := newFake()
	m := newTestModelInfo(f, func(i *Info) {
		i.Attached = true
		if change != nil {
			change(i)
		}
	})
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 80, Height: 24}}, events(opening(), proposal()))
	return m, f
}

func decided(id string, v agent.Verdict, via string) []tea.Msg {
	return events([]agent.Event{{Type: agent.EventDecision, Decision: &agent.Decision{CallID: id, Decision: v, By: "person", Via: via}}})
}

func TestVetoBoxSaysWhenTheOwnerDecides(t *testing.T) {
	m, f := attached(t, nil)
	drive(t, m, keys("v"), typeText("fuel"))
	// A second call waits too: a stray key must not decide it either.
	drive(t, m, events([]agent.Event{{Type: agent.EventProposed, Call: call("c2", "dock_ship", `{"shipSymbol":"COPLAY-1"}`)}}))
	drive(t, m, decided("c1", agent.Approve, "screen"))
	if m.openKind() != vetoDialog {
		t.Fatalf("the veto box closed (%v open)", m.openKind())
	}
	s := screenOf(m)
	for _, want := range []string{"approved on the other screen · esc closes", "reason› fuel",
		"approved on the other screen; nothing typed here is sent: esc close"} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen does not say %q:\n%s", want, s)
		}
	}
	drive(t, m, typeText(" is low"), keys("a", "enter", "v", "e", "ctrl+a", "A"))
	if cmds := f.commands(); len(cmds) != 0 {
		t.Fatalf("keys after the owner's decision sent %+v", cmds)
	}
	if m.openKind() != vetoDialog || !strings.Contains(m.hint, "nothing typed here is sent") {
		t.Fatalf("dialog %v, hint %q", m.openKind(), m.hint)
	}
	drive(t, m, keys("esc"))
	if m.openKind() != noDialog {
		t.Fatalf("esc did not close the box (%v open)", m.openKind())
	}
	// Closed, the screen is the screen: the person chooses the next call.
	drive(t, m, keys("a"))
	wantCommands(t, f, agent.Command{Cmd: agent.CmdDecide, CallID: "c2", Decision: agent.Approve})
}

// What happened is said as it happened: vetoed over SSH, edited, decided by a rule, and
// the edit box stays open on arguments edited on another screen.
func TestDialogsSayWhatHappenedElsewhere(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    agent.Decision
		want string
	}{
		{"ssh veto", agent.Decision{Decision: agent.Veto, By: "person", Via: "ssh:alice"}, "vetoed on ssh:alice"},
		{"attach", agent.Decision{Decision: agent.Approve, By: "person", Via: "attach"}, "approved on an attached screen"},
		{"stdin edit", agent.Decision{Decision: agent.Edit, By: "person", Via: "stdin"}, "edited and approved on the headless side (stdin)"},
		{"rule", agent.Decision{Decision: agent.Approve, By: "rule", Rule: "allow navigate_ship"}, "approved by a rule (allow navigate_ship)"},
	} {
		m, f := attached(t, nil)
		drive(t, m, keys("e"))
		d := tc.d
		d.CallID = "c1"
		drive(t, m, events([]agent.Event{{Type: agent.EventDecision, Decision: &d}}))
		if s := screenOf(m); m.openKind() != editDialog || !strings.Contains(s, tc.want) {
			t.Errorf("%s: dialog %v, want the editor saying %q:\n%s", tc.name, m.openKind(), tc.want, s)
		}
		drive(t, m, keys("ctrl+s"))
		if cmds := f.commands(); len(cmds) != 0 {
			t.Errorf("%s: the settled editor sent %+v", tc.name, cmds)
		}
	}

	m, f := attached(t, nil)
	drive(t, m, keys("v"))
	edited := call("c1", "navigate_ship", `{"shipSymbol":"COPLAY-1","waypointSymbol":"X1-DF55-A2"}`)
	drive(t, m, events([]agent.Event{{Type: agent.EventToolUpdated, Call: edited}}))
	if s := screenOf(m); m.openKind() != vetoDialog || !strings.Contains(s, "edited elsewhere") {
		t.Errorf("an edit on another screen: dialog %v:\n%s", m.openKind(), s)
	}
	drive(t, m, keys("enter"))
	if cmds := f.commands(); len(cmds) != 0 {
		t.Errorf("the veto of a call edited elsewhere was sent: %+v", cmds)
	}
	// This screen's own edit is no news to it.
	m, f = flightModeEdit(t)
	drive(t, m, keys("backspace", "backspace", "backspace", "backspace", "backspace", "backspace"), typeText("BURN"), keys("ctrl+s", "v"))
	if cmds := f.commands(); len(cmds) != 1 || cmds[0].Cmd != agent.CmdRevise {
		t.Fatalf("commands %+v, want the edit", cmds)
	}
	drive(t, m, events([]agent.Event{{Type: agent.EventToolUpdated, Call: call("c3", "set_flight_mode", `{"shipSymbol":"COPLAY-1","flightMode":"BURN"}`)}}))
	if m.settled != "" {
		t.Errorf("this screen's own edit settled its veto box: %q", m.settled)
	}
}

// In a league the box stays on its seat's call, and a stray "a" approves no other
// seat's call.
func TestLeagueVetoBoxDecidedElsewhere(t *testing.T) {
	m, f := newLeague(t, 80, 24)
	m.info.Attached = true
	drive(t, m, keys("v")) // Finch's call, the oldest
	drive(t, m, events(seatEvents("Finch", agent.Event{Type: agent.EventDecision,
		Decision: &agent.Decision{CallID: "Finch/c1", Decision: agent.Approve, By: "person", Via: "screen"}})))
	drive(t, m, typeText("a"), keys("a"))
	if cmds := f.commands(); len(cmds) != 0 {
		t.Fatalf("a stray key decided %+v", cmds)
	}
	if !strings.Contains(screenOf(m), "approved on the other screen") {
		t.Errorf("the box does not say so:\n%s", screenOf(m))
	}
}

// With no dialog open, the selected call taken by another screen leaves the selection on
// a call the person did not choose: the decision keys wait a grace period, and the hint
// says what happened.
func TestSelectedCallDecidedElsewhereHoldsTheKeys(t *testing.T) {
	m, f, now := setupGrace(t)
	*now = now.Add(time.Second) // the grace period of the calls' arrival is over
	drive(t, m, events([]agent.Event{{Type: agent.EventProposed, Call: call("c2", "dock_ship", `{"shipSymbol":"COPLAY-1"}`)}}))
	*now = now.Add(time.Second)
	drive(t, m, decided("c1", agent.Approve, "ssh:alice"))
	if !strings.Contains(m.hint, "navigate_ship was approved on ssh:alice") {
		t.Errorf("hint %q", m.hint)
	}
	drive(t, m, keys("a"))
	if cmds := f.commands(); len(cmds) != 0 {
		t.Fatalf("a key right after the selected call went elsewhere decided %+v", cmds)
	}
	*now = now.Add(time.Second)
	drive(t, m, keys("a"))
	wantCommands(t, f, agent.Command{Cmd: agent.CmdDecide, CallID: "c2", Decision: agent.Approve})
}

// Quitting a second screen asks to detach, and sends no stop: the game plays on.
func TestAttachedScreenDetaches(t *testing.T) {
	m, f := attached(t, nil)
	drive(t, m, keys("q"))
	if m.openKind() != quitDialog || !strings.Contains(screenOf(m), "Detach? The game plays on.") {
		t.Fatalf("q on an attached screen:\n%s", screenOf(m))
	}
	_, cmd := m.Update(keyMsg("y"))
	if cmd == nil {
		t.Fatal("y did not quit")
	}
	if cmds := f.commands(); len(cmds) != 0 {
		t.Errorf("detaching sent %+v", cmds)
	}
	// Nothing waiting: it still asks.
	f = newFake()
	m = newTestModelInfo(f, func(i *Info) { i.Attached = true })
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 80, Height: 24}}, keys("ctrl+c"))
	if m.openKind() != quitDialog {
		t.Errorf("ctrl+c on an idle attached screen: %v open", m.openKind())
	}
}

// A field being typed whose question is answered on another screen keeps the keys: the
// rest of the name typed does not approve the call waiting behind it.
func TestQuestionAnsweredElsewhereKeepsTheInput(t *testing.T) {
	m, f := attached(t, nil)
	drive(t, m, events([]agent.Event{question(doorForm)}), keys("down", "enter"), typeText("Ad"))
	drive(t, m, events([]agent.Event{{Type: agent.EventAnswered, Text: "dungeon: decline",
		Elicitation: &agent.Elicitation{ID: "ask_1_1", Action: "decline"}}}))
	if s := screenOf(m); !strings.Contains(s, "the question was answered elsewhere; nothing typed here is sent") {
		t.Errorf("the hint does not say so:\n%s", s)
	}
	drive(t, m, typeText("a"), keys("enter", "a"))
	if cmds := f.commands(); len(cmds) != 0 {
		t.Fatalf("typing after the answer sent %+v", cmds)
	}
	drive(t, m, keys("esc", "a"))
	wantCommands(t, f, agent.Command{Cmd: agent.CmdDecide, CallID: "c1", Decision: agent.Approve})
}

// A watch-only screen (a watch key over SSH) opens nothing it cannot do, offers no key
// that steers, and its hint fits at 80 columns whole.
func TestWatchScreenOpensNothingThatSteers(t *testing.T) {
	m, f := attached(t, func(i *Info) { i.ReadOnly = true })
	lines := strings.Split(screenOf(m), "\n")
	if hint := strings.TrimSpace(lines[len(lines)-2]); hint != "a call waits (watching only): enter see it whole · q detach · ? all keys" {
		t.Errorf("the hint at 80 columns is %q", hint)
	}
	s := screenOf(m)
	if strings.Contains(s, "a approve") || !strings.Contains(s, "read-only, deciding needs a steering key") {
		t.Errorf("the Pending pane offers decisions:\n%s", s)
	}
	for _, k := range []string{"a", "v", "e", "A", "ctrl+a", "/", "p", "K"} {
		drive(t, m, keys(k))
		if m.openKind() != noDialog || m.advice.focus || !strings.Contains(m.hint, "only watches") {
			t.Errorf("%s on a watch screen: dialog %v, advice %v, hint %q", k, m.openKind(), m.advice.focus, m.hint)
		}
		drive(t, m, keys("esc"))
	}
	drive(t, m, keys("R", "a"))
	if b, ok := m.dlg.(*ruleBook); !ok || b.editing || !strings.Contains(m.hint, "only watches") {
		t.Errorf("the rules dialog let a watcher type a rule (dialog %v)", m.openKind())
	}
	if s := screenOf(m); !strings.Contains(s, "read-only: rules need a steering key") {
		t.Errorf("the rules dialog does not say it is read-only:\n%s", s)
	}
	drive(t, m, keys("esc", "?"))
	if s := screenOf(m); strings.Contains(s, "approve") || !strings.Contains(s, "only watches") || !strings.Contains(s, "next pane") {
		t.Errorf("the help offers what a watcher cannot do:\n%s", s)
	}
	// A server's question is shown, not answered.
	drive(t, m, keys("esc"), events([]agent.Event{question(doorForm)}), keys("down", "a", "d"))
	if s := screenOf(m); !strings.Contains(s, "read-only: answering needs a steering key") {
		t.Errorf("the question offers answers:\n%s", s)
	}
	drive(t, m, keys("enter")) // the whole view, not a field to type into
	if m.cur().ask.editing || m.openKind() != detailDialog {
		t.Errorf("enter on a question: editing %v, dialog %v", m.cur().ask.editing, m.openKind())
	}
	if cmds := f.commands(); len(cmds) != 0 {
		t.Errorf("a watch screen sent %+v", cmds)
	}
}

// Advice given on another screen names where, as decisions do; the screen's own is
// logged once, as "you".
func TestAdviceNamesWhereItWasGiven(t *testing.T) {
	m, _ := setup(t)
	drive(t, m, keys("/"), typeText("mine first"), keys("enter"))
	drive(t, m, events([]agent.Event{
		{Type: agent.EventAdvice, Text: "mine first", Via: "screen"},
		{Type: agent.EventAdvice, Text: "sell the ore", Via: "ssh:alice"},
		{Type: agent.EventAdvice, Text: "refuel", Via: "stdin"},
	}))
	log := logText(m, 100, 30)
	for _, want := range []string{"you: mine first", "advice (on ssh:alice): sell the ore", "advice (on stdin): refuel"} {
		if strings.Count(log, want) != 1 {
			t.Errorf("the log should say %q once:\n%s", want, log)
		}
	}
	// On an attached screen, the owner's advice is the other screen's.
	m, _ = attached(t, nil)
	drive(t, m, events([]agent.Event{{Type: agent.EventAdvice, Text: "hold", Via: "screen"}}))
	if log := logText(m, 100, 30); !strings.Contains(log, "advice (on the other screen): hold") {
		t.Errorf("the attached screen's log:\n%s", log)
	}
}
