package ui

import (
	"slices"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
)

// wideWithLongWorld is a 160×48 screen whose world pane holds more than it shows.
func wideWithLongWorld(t *testing.T) *Model {
	m := newTestModel(newFake())
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 160, Height: 48}}, events(opening(),
		[]agent.Event{{Type: agent.EventObservation, Observation: longObservation()}}))
	m.render()
	return m
}

func TestWorldScrollsWithKeysAndWheel(t *testing.T) {
	m := wideWithLongWorld(t)
	if strings.Contains(stripANSI(m.render()), "CONTRACT-8") {
		t.Fatal("the long world fits: the test needs a longer one")
	}
	drive(t, m, keys("1", "pgdown"))
	screen := stripANSI(m.render())
	if !strings.Contains(screen, "CONTRACT-8") {
		t.Errorf("pgdown on the focused world did not reach the last contract:\n%s", screen)
	}
	if !strings.Contains(screen, "● World · lines ") {
		t.Errorf("the focused, scrolled world does not say so in its title:\n%s", screen)
	}
	drive(t, m, keys("pgup"))
	if m.cur().world.scroll.top != 0 {
		t.Errorf("pgup: top %d, want 0", m.cur().world.scroll.top)
	}
	// The wheel scrolls the pane under the mouse, whichever has the focus.
	drive(t, m, keys("3"), []tea.Msg{tea.MouseWheelMsg{Button: tea.MouseWheelDown, X: 5, Y: 5}})
	if m.cur().world.scroll.top != 3 || m.cur().log.offset != 0 {
		t.Errorf("wheel over the world: world top %d, log offset %d", m.cur().world.scroll.top, m.cur().log.offset)
	}
}

func TestNotesScroll(t *testing.T) {
	m := newTestModel(newFake())
	long := sampleNotes()
	long.Text += "\n\n## Lessons\n" + strings.Repeat("- a lesson learned the hard way\n", 30) + "- THE LAST LESSON"
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 160, Height: 48}}, events(opening(), []agent.Event{{Type: agent.EventNotes, Notes: long}}))
	m.render()
	drive(t, m, keys("2", "pgdown", "pgdown", "pgdown"))
	if screen := stripANSI(m.render()); !strings.Contains(screen, "THE LAST LESSON") || !strings.Contains(screen, "● Notes & plan (v3) · lines") {
		t.Errorf("notes did not scroll to the end:\n%s", screen)
	}
}

// [ and ] and the number keys move the focus visibly on a wide screen, and switch the
// tab on a narrow one.
func TestFocusKeys(t *testing.T) {
	m := wideWithLongWorld(t)
	for _, c := range []struct{ key, want string }{{"]", "● Notes & plan"}, {"]", "● Log"}, {"]", "● World"}, {"[", "● Log"}, {"2", "● Notes & plan"}, {"1", "● World"}} {
		drive(t, m, keys(c.key))
		screen := stripANSI(m.render())
		if !strings.Contains(screen, c.want) || strings.Count(screen, "● ") != 1 {
			t.Errorf("after %s: want one focused pane %q:\n%s", c.key, c.want, screen)
		}
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	for _, c := range []struct{ key, want string }{{"2", "[2 Notes & plan]"}, {"3", "[3 Log]"}, {"1", "[1 World]"}} {
		drive(t, m, keys(c.key))
		if screen := stripANSI(m.render()); !strings.Contains(screen, c.want) {
			t.Errorf("narrow, after %s: no %q:\n%s", c.key, c.want, screen)
		}
	}
}

// After advice is sent the keys decide again: the next a approves.
func TestAdviceThenApprove(t *testing.T) {
	m, f := setup(t)
	drive(t, m, keys("/"), typeText("sell the ore first"), keys("enter", "a"))
	wantCommands(t, f, agent.Command{Cmd: agent.CmdAdvise, Text: "sell the ore first"},
		agent.Command{Cmd: agent.CmdDecide, CallID: "c1", Decision: agent.Approve})
	if m.advice.focus {
		t.Error("the advice input kept the focus after sending")
	}
}

func TestRulesDialogRemoves(t *testing.T) {
	m, f := setup(t)
	drive(t, m, events([]agent.Event{{Type: agent.EventRules, Rules: []string{"allow dock_ship", "allow navigate_ship"}}}))
	drive(t, m, keys("R"))
	screen := stripANSI(m.render())
	if !strings.Contains(screen, "Approval rules") || !strings.Contains(screen, "allow dock_ship") {
		t.Fatalf("rules dialog:\n%s", screen)
	}
	drive(t, m, keys("j", "x"))
	wantCommands(t, f, agent.Command{Cmd: agent.CmdUnrule, Rule: "allow navigate_ship"})
	if len(m.cur().rules.session) != 1 || m.cur().rules.session[0] != "allow dock_ship" || len(m.cur().calls.pending) != 1 {
		t.Errorf("after removing: rules %v, %d pending", m.cur().rules.session, len(m.cur().calls.pending))
	}
	drive(t, m, keys("esc"))
	if m.openKind() != noDialog {
		t.Error("esc did not close the rules dialog")
	}
	// Allowing a tool from a pending call lists its rule at once.
	drive(t, m, keys("A"))
	if len(m.cur().rules.session) != 2 || m.cur().rules.session[1] != "allow navigate_ship" {
		t.Errorf("after A: rules %v", m.cur().rules.session)
	}
}

func TestRulesDialogAddsAndEdits(t *testing.T) {
	f := newFake()
	m := newTestModelInfo(f, func(i *Info) {
		i.Rules = []agent.FixedRule{{Line: "deny dock_ship: stay in orbit", From: "config.toml"}}
	})
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 120, Height: 40}})
	drive(t, m, keys("R", "a"))
	drive(t, m, typeText("alow dock_ship"))
	screen := stripANSI(m.render())
	if !strings.Contains(screen, "column 1: expected allow, ask or deny") || !strings.Contains(screen, "did you mean allow?") {
		t.Fatalf("a typo is not explained as typed:\n%s", screen)
	}
	drive(t, m, keys("enter")) // refused: nothing is sent
	wantCommands(t, f)
	// Fix it: "alow" → "allow", with a tool the game does not have first.
	drive(t, m, keys("home", "right", "right"), typeText("l"), keys("end"), typeText("x"))
	if screen := stripANSI(m.render()); !strings.Contains(screen, `no tool "dock_shipx"; did you mean dock_ship?`) {
		t.Fatalf("an unknown tool is not refused with the closest names:\n%s", screen)
	}
	drive(t, m, keys("backspace"), typeText("(shipSymbol = COPLAY-1 )"), keys("enter"))
	wantCommands(t, f, agent.Command{Cmd: agent.CmdRule, Rule: "allow dock_ship(shipSymbol=COPLAY-1)"})
	if m.cur().rules.editing || len(m.cur().rules.session) != 1 {
		t.Fatalf("after adding: editing %v, rules %v", m.cur().rules.editing, m.cur().rules.session)
	}
	// The config file's rule is listed but cannot be edited or removed here.
	drive(t, m, keys("k", "x", "e"))
	if m.cur().rules.editing || !strings.Contains(m.hint, "comes from config.toml") {
		t.Fatalf("a config rule was opened for editing (hint %q)", m.hint)
	}
	// Edit the session rule: the new one replaces it.
	drive(t, m, keys("j", "e"))
	if m.cur().rules.input.Value() != "allow dock_ship(shipSymbol=COPLAY-1)" {
		t.Fatalf("edit input = %q, want the rule prefilled", m.cur().rules.input.Value())
	}
	drive(t, m, keys("end", "backspace", "backspace"), typeText("*)"), keys("enter"))
	wantCommands(t, f, agent.Command{Cmd: agent.CmdRule, Rule: "allow dock_ship(shipSymbol=COPLAY-1)"},
		agent.Command{Cmd: agent.CmdUnrule, Rule: "allow dock_ship(shipSymbol=COPLAY-1)"},
		agent.Command{Cmd: agent.CmdRule, Rule: "allow dock_ship(shipSymbol=COPLAY-*)"})
	if len(m.cur().rules.session) != 1 || m.cur().rules.session[0] != "allow dock_ship(shipSymbol=COPLAY-*)" {
		t.Fatalf("after editing: rules %v", m.cur().rules.session)
	}
	// q is typed into the input, not a quit.
	drive(t, m, keys("a"), typeText("q"))
	if m.openKind() != rulesDialog || m.cur().rules.input.Value() != "q" {
		t.Fatalf("q in the rule input: dialog %v, input %q", m.openKind(), m.cur().rules.input.Value())
	}
}

func TestRuleDecisionsInTheLog(t *testing.T) {
	m, _ := setup(t)
	drive(t, m, events([]agent.Event{
		{Type: agent.EventProposed, Call: call("c7", "dock_ship", `{"shipSymbol":"COPLAY-1"}`)},
		{Type: agent.EventDecision, Decision: &agent.Decision{CallID: "c7", Decision: agent.Veto, By: "rule", Rule: "deny dock_ship: stay in orbit", Reason: "stay in orbit"}},
		{Type: agent.EventProposed, Call: call("c8", "navigate_ship", `{"shipSymbol":"COPLAY-1","waypointSymbol":"X1-B2"}`)},
		{Type: agent.EventDecision, Decision: &agent.Decision{CallID: "c8", Decision: agent.Approve, By: "rule", Rule: "allow navigate_ship if fuel <= 100"}},
	}))
	var text []string
	for _, e := range m.cur().log.entries {
		text = append(text, e.text)
	}
	all := strings.Join(text, "\n")
	for _, want := range []string{"denied by rule: deny dock_ship: stay in orbit", "by rule: allow navigate_ship if fuel <= 100"} {
		if !strings.Contains(all, want) {
			t.Errorf("the log lacks %q:\n%s", want, all)
		}
	}
	for _, p := range m.cur().calls.pending {
		if p.call.ID == "c7" || p.call.ID == "c8" {
			t.Errorf("call %s decided by a rule is still pending", p.call.ID)
		}
	}
}

func TestDeferredCallPendsWhenNoRuleDecides(t *testing.T) {
	m, _ := setup(t)
	c := call("c9", "navigate_ship", `{"shipSymbol":"COPLAY-1","waypointSymbol":"X1-B2"}`)
	c.NeedsOK, c.Deferred = false, true
	drive(t, m, events([]agent.Event{{Type: agent.EventProposed, Call: c}}))
	n := len(m.cur().calls.pending)
	c2 := *c
	c2.NeedsOK, c2.Deferred = true, false
	drive(t, m, events([]agent.Event{{Type: agent.EventToolUpdated, Call: &c2}}))
	if len(m.cur().calls.pending) != n+1 || m.cur().calls.pending[len(m.cur().calls.pending)-1].call.ID != "c9" {
		t.Fatalf("a deferred call put to the person is not pending: %d pending", len(m.cur().calls.pending))
	}
}

func TestLogHidesNotebookBookkeeping(t *testing.T) {
	m := newTestModel(newFake())
	note := &agent.Call{ID: "n1", Tool: "update_notes", Args: []byte(`{"text":"NOTEBOOK TEXT"}`), Kind: game.Note}
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 160, Height: 48}}, events([]agent.Event{
		{Type: agent.EventProposed, Call: note},
		{Type: agent.EventDecision, Decision: &agent.Decision{CallID: "n1", Decision: agent.Auto, By: "policy"}},
		{Type: agent.EventResult, Call: note, Result: resultOf("notes v2 SAVED")},
		{Type: agent.EventProposed, Call: call("c1", "dock_ship", `{"shipSymbol":"COPLAY-1"}`)},
	}))
	log := func() string { return logText(m, 90, 20) }
	if !strings.Contains(log(), "NOTEBOOK TEXT") {
		t.Fatal("bookkeeping not in the log at first")
	}
	drive(t, m, keys("b"))
	got := log()
	if strings.Contains(got, "NOTEBOOK TEXT") || strings.Contains(got, "SAVED") || strings.Contains(got, "auto update_notes") || !strings.Contains(got, "dock_ship") {
		t.Errorf("with bookkeeping hidden the log shows:\n%s", got)
	}
	if !strings.Contains(stripANSI(m.render()), "notebook hidden") {
		t.Error("the log's title does not say bookkeeping is hidden")
	}
	drive(t, m, keys("b"))
	if !strings.Contains(log(), "NOTEBOOK TEXT") {
		t.Error("b did not show the bookkeeping again")
	}
}

// A resumed session's log starts with the journal; the calls the runner shows again
// (same seq) become pending without being logged twice.
func TestResumedLog(t *testing.T) {
	f := newFake()
	m := newTestModelInfo(f, func(i *Info) { i.History = journalTail() })
	dock := call("c41", "dock_ship", `{"shipSymbol":"COPLAY-1"}`)
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 160, Height: 48}}, events([]agent.Event{
		{Type: agent.EventStarted, Text: "resumed"},
		{Seq: 910, Step: 41, Type: agent.EventProposed, Call: dock},
	}))
	log := logText(m, 90, 40)
	for _, want := range []string{"earlier in this session", "Fly to B7", "approved navigate_ship", "── resumed"} {
		if !strings.Contains(log, want) {
			t.Errorf("resumed log lacks %q:\n%s", want, log)
		}
	}
	if n := strings.Count(log, "dock_ship"); n != 1 {
		t.Errorf("dock_ship is in the log %d times:\n%s", n, log)
	}
	if len(m.cur().calls.pending) != 1 || m.cur().calls.pending[0].call.ID != "c41" || len(m.cur().calls.executing) != 0 {
		t.Errorf("pending %v, executing %v", m.cur().calls.pending, m.cur().calls.executing)
	}
	if m.layout.tab != tabLog {
		t.Error("a resumed screen does not open on the log")
	}
}

// tool_updated redraws a waiting call: its new dry run, and new arguments.
func TestToolUpdated(t *testing.T) {
	m, _ := setup(t)
	c := call("c1", "navigate_ship", `{"shipSymbol":"COPLAY-1","waypointSymbol":"X1-DF55-A2"}`)
	c.Simulation = &game.Simulation{Summary: "would fail (4203): needs 90 fuel, has 12", Fails: true}
	drive(t, m, events([]agent.Event{{Type: agent.EventToolUpdated, Call: c}}))
	screen := stripANSI(m.render())
	for _, want := range []string{`"waypointSymbol": "X1-DF55-A2"`, "✗ dry run: would fail (4203)"} {
		if !strings.Contains(screen, want) {
			t.Errorf("updated call lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "✓ dry run") {
		t.Errorf("the old dry run is still drawn:\n%s", screen)
	}
}

// A dry run whose prediction flips restarts the grace period: a key pressed for the
// old prediction does not decide the new one.
func TestToolUpdatedRestartsGraceWhenThePredictionFlips(t *testing.T) {
	m, f, now := setupGrace(t)
	*now = now.Add(time.Second)
	c := call("c1", "navigate_ship", `{"shipSymbol":"COPLAY-1","waypointSymbol":"X1-DF55-B7"}`)
	c.Simulation = &game.Simulation{Summary: "would fail (4203): needs 90 fuel, has 12", Fails: true}
	drive(t, m, events([]agent.Event{{Type: agent.EventToolUpdated, Call: c}}), keys("a"))
	wantCommands(t, f)
	*now = now.Add(time.Second)
	drive(t, m, keys("a"))
	wantCommands(t, f, agent.Command{Cmd: agent.CmdDecide, CallID: "c1", Decision: agent.Approve})
}

func TestStateTextSaysTheStateOnce(t *testing.T) {
	for _, c := range []struct {
		s          agent.State
		text, want string
	}{
		{agent.Paused, "paused: resume to go on", "paused: resume to go on"},
		{agent.Paused, "resume to go on", "paused: resume to go on"},
		{agent.Deciding, "waiting for decision: 2 calls", "waiting for decision: 2 calls"},
		{agent.Idle, "the turn ended", "idle: the turn ended"},
	} {
		if got := stateText(c.s, c.text); got != c.want {
			t.Errorf("stateText(%s, %q) = %q, want %q", c.s, c.text, got, c.want)
		}
	}
}

// The brain stays in the status bar at every width.
func TestBrainStaysInStatus(t *testing.T) {
	m, _ := setup(t)
	for _, w := range []int{80, 100, 160} {
		m.Update(tea.WindowSizeMsg{Width: w, Height: 24})
		if !strings.Contains(stripANSI(m.renderStatus(w)), "autopilot: no model configured") {
			t.Errorf("width %d: status %q", w, stripANSI(m.renderStatus(w)))
		}
	}
}

// A long argument list is folded so the validation, the dry run and the keys show; z
// unfolds it.
func TestPendingFoldsLongArguments(t *testing.T) {
	f := newFake()
	m := newTestModel(f)
	c := call("c5", "extract_resources", surveyArgs)
	c.Simulation = &game.Simulation{Summary: "would fail (4236): COPLAY-1 must be in orbit first", Fails: true}
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 80, Height: 24}}, events(opening(), []agent.Event{
		{Type: agent.EventText, Text: "Extract with the survey."}, {Type: agent.EventProposed, Call: c}}))
	screen := stripANSI(m.render())
	for _, want := range []string{"why: Extract with the survey.", "more lines · z unfolds", "✓ arguments valid", "✗ dry run: would fail", "a approve"} {
		if !strings.Contains(screen, want) {
			t.Errorf("folded pending pane lacks %q:\n%s", want, screen)
		}
	}
	before := strings.Count(screen, `"symbol"`)
	drive(t, m, keys("z"))
	screen = stripANSI(m.render())
	if after := strings.Count(screen, `"symbol"`); after <= before+3 {
		t.Errorf("z did not unfold (%d symbol lines, was %d):\n%s", after, before, screen)
	}
	for _, want := range []string{"✗ dry run: would fail", "a approve"} {
		if !strings.Contains(screen, want) {
			t.Errorf("unfolded pending pane lacks %q:\n%s", want, screen)
		}
	}
}

// Every binding is in the help, and on a small terminal the help scrolls to reach them;
// the seat keys are in a league's help only.
func TestHelpShowsEveryKeyAtAnySize(t *testing.T) {
	for _, league := range []bool{false, true} {
		for _, size := range [][2]int{{80, 24}, {160, 48}} {
			m := newTestModelInfo(newFake(), func(i *Info) {
				if league {
					i.Seats = leagueSeats()
				}
			})
			drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: size[0], Height: size[1]}}, events(opening()), keys("?"))
			seen := ""
			for range 10 {
				seen += stripANSI(m.render())
				drive(t, m, keys("pgdown"))
			}
			for _, a := range m.keys.Actions() {
				h := a.Binding.Help()
				switch shown, leagueKey := strings.Contains(seen, h.Desc), slices.ContainsFunc(m.keys.LeagueHelp(), func(b key.Binding) bool { return b.Help() == h }); {
				case !shown && (league || !leagueKey):
					t.Errorf("%dx%d, league %v: help never shows %q (%s)", size[0], size[1], league, h.Desc, a.Name)
				case shown && leagueKey && !league:
					t.Errorf("%dx%d: a lone agent's help shows the league's %q", size[0], size[1], h.Desc)
				}
			}
		}
	}
}

// Five rows with a call waiting leave the pane under the Pending pane one row: it draws
// what fits rather than panicking.
func TestFiveRowsWithACallWaiting(t *testing.T) {
	m := newTestModel(newFake())
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 20, Height: 5}}, events(opening(), proposal()), keys("1"))
	checkShape(t, stripANSI(m.render()), 20, 5)
}

// Where the session is served over SSH, and a missing watch-keys file, stay in the
// status bar at 160 columns, not only in the log's first lines.
func TestServedStaysInStatus(t *testing.T) {
	t.Parallel()
	m := newTestModelInfo(newFake(), func(i *Info) { i.Served = "ssh 127.0.0.1:2222 · no watch keys" })
	for _, w := range []int{120, 160} {
		m.Update(tea.WindowSizeMsg{Width: w, Height: 48})
		if s := stripANSI(m.renderStatus(w)); !strings.Contains(s, "ssh 127.0.0.1:2222 · no watch keys") {
			t.Errorf("width %d: status %q", w, s)
		}
	}
}
