package ui

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
)

// setup is a screen at 80×24 with the opening and one pending navigation.
func setup(t *testing.T) (*Model, *fakeAgent) {
	t.Helper()
	f := newFake()
	m := newTestModel(f)
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 80, Height: 24}}, events(opening(), proposal()))
	if len(m.cur().calls.pending) != 1 {
		t.Fatalf("%d pending calls, want 1", len(m.cur().calls.pending))
	}
	return m, f
}

// setupGrace is setup with a grace period of 400 ms and a clock the test moves (now).
func setupGrace(t *testing.T) (m *Model, f *fakeAgent, now *time.Time) {
	t.Helper()
	f = newFake()
	m = newTestModel(f)
	now = new(time.Time)
	*now = t0
	m.Now = func() time.Time { return *now }
	m.Grace = 400 * time.Millisecond
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 80, Height: 24}}, events(opening(), proposal()))
	return m, f, now
}

// logText is the log as drawn width w and h lines high, without colours.
func logText(m *Model, w, h int) string {
	return stripANSI(strings.Join(m.cur().log.render(w, h), "\n"))
}

func wantCommands(t *testing.T, f *fakeAgent, want ...agent.Command) {
	t.Helper()
	got := f.commands()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("agent received\n%+v\nwant\n%+v", got, want)
	}
}

func TestApprove(t *testing.T) {
	m, f := setup(t)
	drive(t, m, keys("a"))
	wantCommands(t, f, agent.Command{Cmd: agent.CmdDecide, CallID: "c1", Decision: agent.Approve})
	if len(m.cur().calls.pending) != 0 {
		t.Errorf("call still pending after approval")
	}
	drive(t, m, keys("a"))
	if len(f.commands()) != 1 {
		t.Errorf("a second approve with nothing pending sent %v", f.commands())
	}
}

func TestVetoWithReason(t *testing.T) {
	m, f := setup(t)
	drive(t, m, keys("v"), typeText("  fuel is low, refuel first "), keys("enter"))
	wantCommands(t, f, agent.Command{Cmd: agent.CmdDecide, CallID: "c1", Decision: agent.Veto, Reason: "fuel is low, refuel first"})
	if m.openKind() != noDialog {
		t.Errorf("dialog %v still open", m.openKind())
	}
}

func TestVetoWithoutReasonAndCancel(t *testing.T) {
	m, f := setup(t)
	drive(t, m, keys("v", "x", "esc"))
	wantCommands(t, f)
	if len(m.cur().calls.pending) != 1 {
		t.Fatal("cancelled veto dropped the call")
	}
	drive(t, m, keys("v", "enter"))
	wantCommands(t, f, agent.Command{Cmd: agent.CmdDecide, CallID: "c1", Decision: agent.Veto})
}

// flightModeEdit proposes a flight mode change and opens the editor with the cursor
// just after CRUISE.
func flightModeEdit(t *testing.T) (*Model, *fakeAgent) {
	f := newFake()
	m := newTestModel(f)
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 80, Height: 24}}, events(opening(), []agent.Event{{Type: agent.EventProposed,
		Call: call("c3", "set_flight_mode", `{"shipSymbol":"COPLAY-1","flightMode":"CRUISE"}`)}}))
	drive(t, m, keys("e", "up", "end", "left"))
	if m.openKind() != editDialog {
		t.Fatalf("dialog = %v, want the editor", m.openKind())
	}
	return m, f
}

// Edit, review, approve: ctrl+s sends the new arguments for review without deciding;
// the call waits, approving is held until the runner's new dry run arrives, and then a
// approves it.
func TestEditReviewApprove(t *testing.T) {
	m, f := flightModeEdit(t)
	drive(t, m, keys("backspace", "backspace", "backspace", "backspace", "backspace", "backspace"), typeText("BURN"), keys("ctrl+s"))
	burn := json.RawMessage(`{"shipSymbol":"COPLAY-1","flightMode":"BURN"}`)
	revise := agent.Command{Cmd: agent.CmdRevise, CallID: "c3", Args: burn}
	wantCommands(t, f, revise)
	if m.openKind() != noDialog || len(m.cur().calls.pending) != 1 {
		t.Fatalf("after submitting: dialog %v, %d pending", m.openKind(), len(m.cur().calls.pending))
	}
	screen := stripANSI(m.render())
	for _, want := range []string{`"flightMode": "BURN"`, "the runner is checking it", "waiting for the runner's new dry run"} {
		if !strings.Contains(screen, want) {
			t.Errorf("pending pane under review lacks %q:\n%s", want, screen)
		}
	}
	drive(t, m, keys("a"))
	wantCommands(t, f, revise) // not before the new dry run
	c := call("c3", "set_flight_mode", string(burn))
	c.Simulation = &game.Simulation{Summary: "would fail (4236): COPLAY-1 must be in orbit first", Fails: true}
	drive(t, m, events([]agent.Event{{Type: agent.EventToolUpdated, Call: c}}))
	screen = stripANSI(m.render())
	for _, want := range []string{"edited: review, then approve", "✗ dry run: would fail (4236)"} {
		if !strings.Contains(screen, want) {
			t.Errorf("reviewed call lacks %q:\n%s", want, screen)
		}
	}
	drive(t, m, keys("a"))
	wantCommands(t, f, revise, agent.Command{Cmd: agent.CmdDecide, CallID: "c3", Decision: agent.Approve})
	if len(m.cur().calls.pending) != 0 {
		t.Error("approved call still pending")
	}
}

// A revision the runner refuses (an error while it is out) puts the old arguments back.
func TestEditRefusedByRunner(t *testing.T) {
	m, _ := flightModeEdit(t)
	drive(t, m, keys("backspace", "backspace", "backspace", "backspace", "backspace", "backspace"), typeText("BURN"), keys("ctrl+s"))
	drive(t, m, events([]agent.Event{{Type: agent.EventError, Text: "revise c3: no such call waiting"}}))
	if got := compactJSON(m.cur().calls.pending[0].call.Args); got != `{"shipSymbol":"COPLAY-1","flightMode":"CRUISE"}` || m.cur().calls.pending[0].revising {
		t.Errorf("after a refused revision: args %s, revising %v", got, m.cur().calls.pending[0].revising)
	}
}

func TestEditRefusedWhileInvalid(t *testing.T) {
	m, f := flightModeEdit(t)
	drive(t, m, keys("backspace", "backspace", "backspace", "backspace", "backspace", "backspace"), typeText("cruise"))
	if len(editorOf(t, m).probs) != 1 || !strings.Contains(editorOf(t, m).probs[0], "did you mean CRUISE") {
		t.Fatalf("problems shown while typing = %q", editorOf(t, m).probs)
	}
	drive(t, m, keys("ctrl+s"))
	wantCommands(t, f)
	if m.openKind() != editDialog || !editorOf(t, m).refused {
		t.Fatalf("invalid edit was not refused in place (dialog %v)", m.openKind())
	}
	// Broken JSON is refused too.
	drive(t, m, keys("end", "backspace", "ctrl+s"))
	if !strings.Contains(strings.Join(editorOf(t, m).probs, " "), "invalid JSON") {
		t.Errorf("problems for broken JSON = %q", editorOf(t, m).probs)
	}
	wantCommands(t, f)
	// Fixed, it goes through.
	drive(t, m, typeText(`"`), keys("left"), keys("backspace", "backspace", "backspace", "backspace", "backspace", "backspace"), typeText("DRIFT"), keys("ctrl+s"))
	wantCommands(t, f, agent.Command{Cmd: agent.CmdRevise, CallID: "c3",
		Args: json.RawMessage(`{"shipSymbol":"COPLAY-1","flightMode":"DRIFT"}`)})
}

func TestEditCancel(t *testing.T) {
	m, f := flightModeEdit(t)
	drive(t, m, typeText("xyz"), keys("esc"))
	wantCommands(t, f)
	if m.openKind() != noDialog || len(m.cur().calls.pending) != 1 {
		t.Errorf("after esc: dialog %v, %d pending", m.openKind(), len(m.cur().calls.pending))
	}
}

func TestAlwaysAllow(t *testing.T) {
	m, f := setup(t)
	drive(t, m, keys("A"))
	wantCommands(t, f,
		agent.Command{Cmd: agent.CmdRule, Rule: "allow navigate_ship"},
		agent.Command{Cmd: agent.CmdDecide, CallID: "c1", Decision: agent.Approve})
}

func TestApproveAllAndSelection(t *testing.T) {
	m, f := setup(t)
	drive(t, m, events([]agent.Event{
		{Type: agent.EventProposed, Call: call("c2", "dock_ship", `{"shipSymbol":"COPLAY-2"}`)},
		{Type: agent.EventProposed, Call: call("c4", "dock_ship", `{"shipSymbol":"COPLAY-3"}`)},
	}))
	drive(t, m, keys("j", "j", "j", "k", "a"))
	wantCommands(t, f, agent.Command{Cmd: agent.CmdDecide, CallID: "c2", Decision: agent.Approve})
	drive(t, m, keys("ctrl+a"))
	wantCommands(t, f,
		agent.Command{Cmd: agent.CmdDecide, CallID: "c2", Decision: agent.Approve},
		agent.Command{Cmd: agent.CmdDecide, CallID: "c1", Decision: agent.Approve},
		agent.Command{Cmd: agent.CmdDecide, CallID: "c4", Decision: agent.Approve})
}

func TestAdviceNeverDecides(t *testing.T) {
	m, f := setup(t)
	drive(t, m, keys("/"), typeText("approve later, mine at B7 first"), keys("enter"))
	wantCommands(t, f, agent.Command{Cmd: agent.CmdAdvise, Text: "approve later, mine at B7 first"})
	if len(m.cur().calls.pending) != 1 {
		t.Fatal("typing advice decided the pending call")
	}
	// The advice is in the log and the notes pane, once, even after the agent echoes it.
	drive(t, m, events([]agent.Event{{Type: agent.EventAdvice, Text: "approve later, mine at B7 first"}}))
	screen := logText(m, 78, 40)
	if n := strings.Count(screen, "mine at B7 first"); n != 1 {
		t.Errorf("advice appears %d times in the log:\n%s", n, screen)
	}
	if len(m.cur().notes.queued) != 1 {
		t.Errorf("notes pane shows %d queued advice, want 1", len(m.cur().notes.queued))
	}
	drive(t, m, events([]agent.Event{{Type: agent.EventNotes, Notes: sampleNotes()}}))
	if len(m.cur().notes.queued) != 0 {
		t.Error("queued advice kept after the notes changed")
	}
	// esc leaves the input; keys decide again.
	drive(t, m, keys("esc", "a"))
	if got := f.commands(); len(got) != 2 || got[1].Decision != agent.Approve {
		t.Errorf("after esc, a sent %+v", got)
	}
}

func TestGracePeriodSwallowsDecisionKeys(t *testing.T) {
	m, f, now := setupGrace(t)
	*now = now.Add(100 * time.Millisecond)
	drive(t, m, keys("a"))
	wantCommands(t, f)
	if !strings.Contains(stripANSI(m.render()), "ignored") {
		t.Error("no hint that the key was swallowed")
	}
	*now = now.Add(400 * time.Millisecond)
	drive(t, m, keys("a"))
	wantCommands(t, f, agent.Command{Cmd: agent.CmdDecide, CallID: "c1", Decision: agent.Approve})
}

func TestQuitAsksWhileCallsWait(t *testing.T) {
	m, f := setup(t)
	_, cmd := m.Update(keyMsg("q"))
	if cmd != nil || m.openKind() != quitDialog {
		t.Fatalf("q with a pending call: dialog %v, cmd %v", m.openKind(), cmd)
	}
	drive(t, m, keys("n"))
	if m.openKind() != noDialog {
		t.Fatal("n did not close the question")
	}
	_, cmd = m.Update(keyMsg("ctrl+c"))
	if cmd != nil || m.openKind() != quitDialog {
		t.Fatal("ctrl+c quit without asking")
	}
	_, cmd = m.Update(keyMsg("y"))
	if cmd == nil {
		t.Fatal("y did not quit")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("y did not return tea.Quit")
	}
	wantCommands(t, f, agent.Command{Cmd: agent.CmdStop})
}

func TestQuitAsksWhileExecuting(t *testing.T) {
	f := newFake()
	m := newTestModel(f)
	drive(t, m, events([]agent.Event{{Type: agent.EventToolStart, Call: call("c9", "dock_ship", `{}`)}}))
	drive(t, m, keys("q"))
	if m.openKind() != quitDialog {
		t.Fatal("quit did not ask while a call runs")
	}
	drive(t, m, keys("esc"), events([]agent.Event{{Type: agent.EventResult, Call: call("c9", "dock_ship", `{}`), Result: nil}}))
	_, cmd := m.Update(keyMsg("q"))
	if cmd == nil {
		t.Fatal("q did not quit once nothing runs")
	}
}

func TestPauseResume(t *testing.T) {
	m, f := setup(t)
	drive(t, m, keys("p", "p"))
	wantCommands(t, f, agent.Command{Cmd: agent.CmdPause}, agent.Command{Cmd: agent.CmdResume})
}

// Idle (the turn is over) is left with one key, and the log says which (issue 41: p
// paused an idle agent, and only a second p resumed it).
func TestPauseKeyResumesFromIdle(t *testing.T) {
	f := newFake()
	m := newTestModel(f)
	drive(t, m, events([]agent.Event{{Type: agent.EventState, State: agent.Idle, Text: "the model ended its turn; waiting for advice or resume"}}))
	if got := logText(m, 120, 5); !strings.Contains(got, "(p resumes, / gives advice)") {
		t.Errorf("the idle line does not say which key resumes:\n%s", got)
	}
	drive(t, m, keys("p"))
	wantCommands(t, f, agent.Command{Cmd: agent.CmdResume})
}

func TestSendFailureKeepsCall(t *testing.T) {
	m, f := setup(t)
	f.err = errors.New("runner stopped")
	drive(t, m, keys("a"))
	wantPendingLogged(t, m, 1, "call dropped although the decision was not delivered", "runner stopped", "send error not logged")
}

func TestAgentDecisionRemovesPending(t *testing.T) {
	m, _ := setup(t)
	drive(t, m, events([]agent.Event{{Type: agent.EventDecision, Decision: &agent.Decision{CallID: "c1", Decision: agent.Approve, By: "rule"}}}))
	wantPendingLogged(t, m, 0, "call decided by the agent still pending", "approved navigate_ship (rule)", "decision not logged")
}

// wantPendingLogged fails (at once) when n calls do not wait, and (going on) when the
// log's last lines do not say logged.
func wantPendingLogged(t *testing.T, m *Model, n int, notPending, logged, notLogged string) {
	t.Helper()
	if len(m.cur().calls.pending) != n {
		t.Fatal(notPending)
	}
	if !strings.Contains(logText(m, 78, 5), logged) {
		t.Error(notLogged)
	}
}

func TestHelpToggles(t *testing.T) {
	m, _ := setup(t)
	drive(t, m, keys("?"))
	if m.openKind() != helpDialog {
		t.Fatal("? did not open help")
	}
	drive(t, m, keys("a"))
	if len(m.cur().calls.pending) != 1 {
		t.Fatal("a decided while help was open")
	}
	drive(t, m, keys("?"))
	if m.openKind() != noDialog {
		t.Fatal("? did not close help")
	}
}

func TestNarrowTabs(t *testing.T) {
	m, _ := setup(t)
	for _, want := range []string{"Notes & plan (v3)", "Log", "World"} {
		drive(t, m, keys("]"))
		if got := stripANSI(m.render()); !strings.Contains(got, "╭─ ● "+want) {
			t.Errorf("after ], no %q pane:\n%s", want, got)
		}
	}
}

// TestEventsFromChannel runs the real program with events arriving on the agent's
// channel and keys typed by the person, and checks what the agent receives.
func TestEventsFromChannel(t *testing.T) {
	f := newFake()
	m := newTestModel(f)
	tm := newProgram(t, m)
	for _, e := range append(opening(), proposal()...) {
		f.ch <- e
	}
	waitFor(t, func() bool { return strings.Contains(stripANSI(tm.view()), "Pending decision (1)") })
	tm.Send(keyMsg("a"))
	waitFor(t, func() bool { return len(f.commands()) == 1 })
	close(f.ch)
	waitFor(t, func() bool {
		v := stripANSI(tm.view())
		return strings.Contains(v, "│ stopped │") || strings.Contains(v, "│stopped│")
	})
	tm.Send(keyMsg("q"))
	tm.WaitFinished(t, finalTimeout)
	wantCommands(t, f, agent.Command{Cmd: agent.CmdDecide, CallID: "c1", Decision: agent.Approve})
}

// TestStatusBarSaysCostUnknownWithoutAPrice: a model whose price is not configured
// shows "cost unknown", never $0; a priced one shows its cost.
func TestStatusBarSaysCostUnknownWithoutAPrice(t *testing.T) {
	for _, tc := range []struct {
		usage agent.Usage
		want  string
	}{
		{agent.Usage{PromptTokens: 900, CompletionTokens: 10}, "cost unknown"},
		{agent.Usage{PromptTokens: 900, CompletionTokens: 10, Cost: 0.0125, CostKnown: true}, "$0.0125"},
	} {
		m := newTestModel(newFake())
		m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
		u := tc.usage
		m.Update(eventMsg(agent.Event{Type: agent.EventUsage, Usage: &u}))
		v := m.View().Content
		if !strings.Contains(v, tc.want) || (tc.want == "cost unknown" && strings.Contains(v, "$0.0000")) {
			t.Errorf("status bar after %+v does not say %q:\n%s", tc.usage, tc.want, v[strings.LastIndex(v, "\n")+1:])
		}
	}
}

// On an 80-column terminal, with a model deciding and play handed over, the status bar
// still shows the tokens, the cached share and the cost: it packs tighter before it
// drops the bill. At 160 columns it keeps its roomy form.
func TestStatusBarKeepsTheBillAt80Columns(t *testing.T) {
	m := newTestModelInfo(newFake(), func(i *Info) { i.Brain = "gpt-4o-mini" })
	on := true
	u := agent.Usage{PromptTokens: 41_000, CompletionTokens: 200, CachedTokens: 36_080, Cost: 0.0123, CostKnown: true}
	m.Update(eventMsg(agent.Event{Type: agent.EventUsage, Usage: &u}))
	m.Update(eventMsg(agent.Event{Type: agent.EventKeepPlaying, KeepPlaying: &on}))
	m.Update(eventMsg(agent.Event{Type: agent.EventState, State: agent.Deciding}))
	for _, tc := range []struct {
		w    int
		want []string
	}{
		{80, []string{"gpt-4o-mini", "deciding", "keep playing", "41.2k tok 88% cached $0.0123", "? help"}},
		{160, []string{"gpt-4o-mini │ step", "waiting for decision", "41.2k tok · 88% cached · $0.0123"}},
	} {
		status := stripANSI(m.renderStatus(tc.w))
		if widthOf(status) > tc.w {
			t.Errorf("width %d: the status bar is %d wide", tc.w, widthOf(status))
		}
		for _, w := range tc.want {
			if !strings.Contains(status, w) {
				t.Errorf("width %d: status %q lacks %q", tc.w, status, w)
			}
		}
	}
}

// With spend caps, the status bar shows the spend against them, so a person leaving it
// to play overnight sees how far the run is from its stop.
func TestStatusBarShowsTheSpendCaps(t *testing.T) {
	m := newTestModelInfo(newFake(), func(i *Info) { i.MaxTokens, i.MaxCost = 2_000_000, 1.5 })
	u := agent.Usage{PromptTokens: 41_000, CompletionTokens: 200, CachedTokens: 36_080, Cost: 0.0123, CostKnown: true}
	m.Update(eventMsg(agent.Event{Type: agent.EventUsage, Usage: &u}))
	if s := stripANSI(m.renderStatus(160)); !strings.Contains(s, "41.2k/2.0M tok · 88% cached · $0.0123/$1.50") {
		t.Errorf("status %q does not show the spend against the caps", s)
	}
}
