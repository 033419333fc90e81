package ui

import (
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
)

// The league's golden screen: three seats, two of them waiting, drawn with the others
// by TestGoldenScreens (and reshaped by TestResizeKeepsShape).
func init() {
	screens["league"] = func() []tea.Msg { return events(leagueOpening(), leagueWaits()) }
	infoFor["league"] = leagueInfo
}

// leagueSeats are the seats of the test league: two autopilots and a model.
func leagueSeats() []SeatInfo {
	return []SeatInfo{{Name: "Heron", Model: "autopilot"}, {Name: "Finch", Model: "autopilot"}, {Name: "Lark", Model: "gpt-4o-mini"}}
}

func leagueInfo(i *Info) {
	i.Seats = leagueSeats()
	i.Brain = "league"
	i.Session = "spacetraders-2026-11-27-0231"
}

// seatEvents stamps evs with seat, as package league does.
func seatEvents(seat string, evs ...agent.Event) []agent.Event {
	for i := range evs {
		evs[i].Seat = seat
	}
	return evs
}

// seatObservation is the test world as seat sees it: its own ships, its own credits.
func seatObservation(seat string, credits float64) *game.Observation {
	o := observation()
	ship := strings.ToUpper(seat)
	o.Summary = strings.ReplaceAll(o.Summary, "COPLAY", ship)
	o.Metrics[0].Value = credits
	for i := range o.Map.Points {
		for j, mk := range o.Map.Points[i].Marks {
			o.Map.Points[i].Marks[j] = strings.ReplaceAll(mk, "COPLAY", ship)
		}
	}
	for i := range o.Timers {
		o.Timers[i].Label = strings.ReplaceAll(o.Timers[i].Label, "COPLAY", ship)
	}
	return o
}

// leagueOpening starts the three seats: each its world and a step, Heron its notes, Lark
// (a model) its spend and half a streamed message.
func leagueOpening() []agent.Event {
	var evs []agent.Event
	for i, seat := range []string{"Heron", "Finch", "Lark"} {
		evs = append(evs, seatEvents(seat,
			agent.Event{Type: agent.EventStarted, Text: "started: " + seat + " in the league"},
			agent.Event{Type: agent.EventObservation, Observation: seatObservation(seat, float64(150000+10000*i))},
			agent.Event{Type: agent.EventState, State: agent.Running},
			agent.Event{Type: agent.EventStep, Step: 3 + i},
		)...)
	}
	evs = append(evs, seatEvents("Heron", agent.Event{Type: agent.EventNotes, Notes: sampleNotes()})...)
	return append(evs, seatEvents("Lark",
		agent.Event{Type: agent.EventUsage, Usage: &agent.Usage{PromptTokens: 1800, CompletionTokens: 240, Cost: 0.0021, CostKnown: true}},
		agent.Event{Type: agent.EventTextDelta, Text: "LARK-1 is docked at A1; I will sell first"},
	)...)
}

// leagueWaits has Finch, then Heron, propose a call that waits for the person.
func leagueWaits() []agent.Event {
	finch := call("Finch/c1", "set_flight_mode", `{"shipSymbol":"FINCH-2","flightMode":"DRIFT"}`)
	heron := call("Heron/c1", "navigate_ship", `{"shipSymbol":"HERON-1","waypointSymbol":"X1-DF55-B7"}`)
	heron.Simulation = &game.Simulation{Summary: "uses 46 fuel (have 380), arrives 15:05:12"}
	evs := seatEvents("Finch",
		agent.Event{Type: agent.EventText, Text: "FINCH-2 drifts to save fuel."},
		agent.Event{Type: agent.EventProposed, Call: finch},
		agent.Event{Type: agent.EventState, State: agent.Deciding})
	return append(evs, seatEvents("Heron",
		agent.Event{Type: agent.EventText, Text: "HERON-1 flies to B7 to mine."},
		agent.Event{Type: agent.EventProposed, Call: heron},
		agent.Event{Type: agent.EventState, State: agent.Deciding})...)
}

// newLeague is a three-seat league's screen at w×h with the opening and both waits fed.
func newLeague(t *testing.T, w, h int) (*Model, *fakeAgent) {
	t.Helper()
	f := newFake()
	m := newTestModelInfo(f, leagueInfo)
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: w, Height: h}}, events(leagueOpening(), leagueWaits()))
	return m, f
}

func screenOf(m *Model) string { return stripANSI(m.render()) }

// The panes show the focused seat; the next-seat key shows the next one's log, world
// and notes, and going round again finds the first as it was left.
func TestLeagueFocusShowsTheSeatsPanes(t *testing.T) {
	m, _ := newLeague(t, 160, 48)
	drive(t, m, events(seatEvents("Finch", agent.Event{Type: agent.EventNotice, Text: "Finch hears a rumour"})))
	s := screenOf(m)
	for _, want := range []string{"HERON-1 flies to B7", "HERON-1 (command frigate)", "Notes & plan (v3)", "[Heron ● waits for you"} {
		if !strings.Contains(s, want) {
			t.Errorf("Heron's screen lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "Finch hears a rumour") || strings.Contains(s, "FINCH-1 (command frigate)") {
		t.Errorf("Heron's log shows Finch's entries:\n%s", s)
	}
	drive(t, m, keys("s"))
	s = screenOf(m)
	for _, want := range []string{"Finch hears a rumour", "FINCH-2 drifts", "FINCH-1 (command frigate)", "[Finch ● waits for you", "no notes yet"} {
		if !strings.Contains(s, want) {
			t.Errorf("Finch's screen lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "HERON-1 flies to B7 to mine.\n") || strings.Contains(s, "HERON-1 (command frigate)") {
		t.Errorf("Finch's panes show Heron's:\n%s", s)
	}
	drive(t, m, keys("s", "s"))
	if s = screenOf(m); !strings.Contains(s, "HERON-1 flies to B7") || !strings.Contains(s, "Notes & plan (v3)") {
		t.Errorf("back on Heron, its panes are lost:\n%s", s)
	}
}

// The Pending pane is the whole queue: both seats' calls, oldest first, labelled.
func TestLeagueQueueListsEverySeat(t *testing.T) {
	m, _ := newLeague(t, 160, 48)
	s := screenOf(m)
	// The panes show Heron, the first seat, while Finch's call is the oldest: the title
	// says so plainly.
	for _, want := range []string{"Pending decisions, every seat (2) · the panes show Heron", "Finch: set_flight_mode", "Heron: navigate_ship"} {
		if !strings.Contains(s, want) {
			t.Errorf("the Pending pane lacks %q:\n%s", want, s)
		}
	}
	// The oldest is selected, and stays selected when Heron's call comes to wait: a
	// call that comes never moves the selection under the person's finger.
	if !strings.Contains(s, "▸ Finch: set_flight_mode  (act, 1 of 2)") {
		t.Errorf("Finch's call is not selected:\n%s", s)
	}
	q := m.seats.queue()
	if len(q) != 2 || q[0].call.ID != "Finch/c1" || q[1].call.ID != "Heron/c1" {
		t.Errorf("queue %v, want Finch's call then Heron's", q)
	}
	// Choosing a call shows its seat's panes.
	drive(t, m, keys("up"))
	if s := screenOf(m); m.seats.focus != 1 || !strings.Contains(s, "Pending decisions, every seat, oldest first (2)") || !strings.Contains(s, "FINCH-2 drifts") {
		t.Errorf("the panes did not follow Finch's call (focus %d):\n%s", m.seats.focus, s)
	}
	drive(t, m, keys("down"))
	if m.seats.focus != 0 {
		t.Errorf("the panes did not follow Heron's call (focus %d)", m.seats.focus)
	}
	drive(t, m, keys("up"))
	// The whole view is of the selected call, named with its seat.
	drive(t, m, keys("enter"))
	if s := screenOf(m); !strings.Contains(s, "Call Finch: set_flight_mode, waiting for a decision") {
		t.Errorf("enter does not show Finch's call whole:\n%s", s)
	}
}

// Approving Finch's call while Heron is focused sends a decide for Finch's league id
// and leaves Heron's call waiting; a veto of Finch's call through its dialog too.
func TestLeagueDecideAnotherSeatsCall(t *testing.T) {
	m, f := newLeague(t, 160, 48)
	drive(t, m, keys("up", "a"))
	cmds := f.commands()
	if len(cmds) != 1 || cmds[0].Cmd != agent.CmdDecide || cmds[0].CallID != "Finch/c1" || cmds[0].Decision != agent.Approve {
		t.Fatalf("commands %+v, want one approve of Finch/c1", cmds)
	}
	q := m.seats.queue()
	if len(q) != 1 || q[0].call.ID != "Heron/c1" {
		t.Fatalf("queue %v, want Heron's call still waiting", q)
	}
	if m.seats.focus != 1 {
		t.Errorf("the panes show seat %d, want Finch's (1), whose call was chosen", m.seats.focus)
	}
	// The league's decision echo is Finch's: it lands in Finch's log, not Heron's.
	drive(t, m, events(seatEvents("Finch", agent.Event{Type: agent.EventDecision,
		Decision: &agent.Decision{CallID: "Finch/c1", Decision: agent.Approve, By: "person"}})))
	seatLog := func(i int) string { return stripANSI(strings.Join(m.seats.list[i].log.render(100, 40), "\n")) }
	if strings.Contains(seatLog(0), "approved set_flight_mode") || !strings.Contains(seatLog(1), "approved set_flight_mode") {
		t.Errorf("Finch's decision is not in Finch's log alone:\nHeron:\n%s\nFinch:\n%s", seatLog(0), seatLog(1))
	}

	m, f = newLeague(t, 160, 48)
	drive(t, m, keys("up", "v"))
	drive(t, m, typeText("stay put"), keys("enter"))
	cmds = f.commands()
	if len(cmds) != 1 || cmds[0].CallID != "Finch/c1" || cmds[0].Decision != agent.Veto || cmds[0].Reason != "stay put" {
		t.Fatalf("commands %+v, want a veto of Finch/c1", cmds)
	}
	if q := m.seats.queue(); len(q) != 1 || q[0].call.ID != "Heron/c1" {
		t.Fatalf("queue %v after the veto, want Heron's call only", q)
	}

	// Approve all approves the whole queue, whichever seat is shown.
	m, f = newLeague(t, 160, 48)
	drive(t, m, keys("s", "s", "ctrl+a"))
	var ids []string
	for _, c := range f.commands() {
		ids = append(ids, string(c.Cmd)+" "+c.CallID)
	}
	if !slices.Equal(ids, []string{"decide Finch/c1", "decide Heron/c1"}) || len(m.seats.queue()) != 0 {
		t.Errorf("approve all sent %q, leaving %d waiting", ids, len(m.seats.queue()))
	}
}

// Advice goes to the focused seat, to every seat with @all, to one with @NAME; an
// unknown name sends nothing, says so, and keeps the text.
func TestLeagueAdviceRouting(t *testing.T) {
	m, f := newLeague(t, 160, 48)
	send := func(text string) {
		drive(t, m, keys("/"), typeText(text), keys("enter"))
	}
	send("mine first")
	if m.hint != "" {
		t.Errorf("advice to the seat shown says %q: its log shows it", m.hint)
	}
	send("@all stay out of C3")
	if !strings.Contains(m.hint, "advice sent to every seat (Heron, Finch, Lark): stay out of C3") {
		t.Errorf("@all is confirmed as %q", m.hint)
	}
	send("@finch refuel")
	if s := screenOf(m); !strings.Contains(s, "advice sent to Finch") {
		t.Errorf("@finch is not confirmed on this screen:\n%s", s)
	}
	var got []string
	for _, c := range f.commands() {
		if c.Cmd != agent.CmdAdvise {
			t.Errorf("unexpected command %+v", c)
		}
		got = append(got, c.Seat+":"+c.Text)
	}
	want := []string{"Heron:mine first", "Heron:stay out of C3", "Finch:stay out of C3", "Lark:stay out of C3", "Finch:refuel"}
	if !slices.Equal(got, want) {
		t.Errorf("advice sent %q, want %q", got, want)
	}
	// Each seat's notes queue its own advice: Finch's both, Heron's not Finch's.
	if s := screenOf(m); !strings.Contains(s, "advice: stay out of C3") || strings.Contains(s, "advice: refuel") {
		t.Errorf("Heron's notes are wrong:\n%s", s)
	}
	// The seats' echoes are not logged twice.
	drive(t, m, events(seatEvents("Finch", agent.Event{Type: agent.EventAdvice, Text: "refuel"}),
		seatEvents("Lark", agent.Event{Type: agent.EventAdvice, Text: "stay out of C3"})))
	drive(t, m, keys("s"))
	if s := screenOf(m); strings.Count(s, "you: refuel") != 1 || strings.Count(s, "you: stay out of C3") != 1 {
		t.Errorf("Finch's log should hold each advice once:\n%s", s)
	}

	n := len(f.commands())
	send("@Crow hold")
	if len(f.commands()) != n {
		t.Errorf("advice to an unknown seat was sent: %+v", f.commands()[n:])
	}
	if !strings.Contains(m.hint, `no seat "Crow"`) || !strings.Contains(m.hint, "Heron, Finch, Lark") {
		t.Errorf("hint %q does not name the seats", m.hint)
	}
	if !m.advice.focus || m.advice.input.Value() != "@Crow hold" {
		t.Errorf("the input lost the advice: focus %v, %q", m.advice.focus, m.advice.input.Value())
	}
	// The input keeps the advice line; the hint shows in the seat bar's place.
	if s := screenOf(m); !strings.Contains(s, `! no seat "Crow"`) || !strings.Contains(s, "advice› @Crow hold") {
		t.Errorf("the screen does not show the hint and the input:\n%s", s)
	}
}

// The commands for "the agent" go to the focused seat; stop goes to every seat.
func TestLeagueCommandsNameTheFocusedSeat(t *testing.T) {
	m, f := newLeague(t, 160, 48)
	drive(t, m, keys("s", "p", "K"))
	cmds := f.commands()
	if len(cmds) != 2 || cmds[0].Cmd != agent.CmdPause || cmds[0].Seat != "Finch" || cmds[1].Cmd != agent.CmdKeepPlaying || cmds[1].Seat != "Finch" {
		t.Errorf("commands %+v, want pause and keep_playing for Finch", cmds)
	}
	// Allowing Heron's tool always is a rule for Heron, sent while Finch is focused.
	drive(t, m, keys("down", "A"))
	cmds = f.commands()[2:]
	if len(cmds) != 2 || cmds[0].Cmd != agent.CmdRule || cmds[0].Seat != "Heron" || cmds[1].CallID != "Heron/c1" {
		t.Errorf("commands %+v, want a rule for Heron and the approval of Heron/c1", cmds)
	}
	drive(t, m, keys("q", "y"))
	if last := f.commands()[len(f.commands())-1]; last.Cmd != agent.CmdStop || last.Seat != "" {
		t.Errorf("quitting sent %+v, want a stop for every seat", last)
	}
}

// The next-waiting key focuses the next seat that waits, its call selected.
func TestLeagueNextWaiting(t *testing.T) {
	m, _ := newLeague(t, 80, 24)
	drive(t, m, keys("w"))
	if m.seats.focus != 1 {
		t.Fatalf("focus %d, want Finch (1)", m.seats.focus)
	}
	if p, _ := m.seats.selected(); p.call.ID != "Finch/c1" {
		t.Errorf("selected %s, want Finch/c1", p.call.ID)
	}
	drive(t, m, keys("w"))
	if m.seats.focus != 0 {
		t.Errorf("focus %d, want Heron (0): Lark does not wait", m.seats.focus)
	}
	m, _ = newLeague(t, 80, 24)
	drive(t, m, keys("a", "w", "a", "w"))
	if !strings.Contains(m.hint, "no seat waits for you") {
		t.Errorf("hint %q with nothing waiting", m.hint)
	}
}

// Notifications name the seat; the window title counts the whole queue.
func TestLeagueNotificationNamesTheSeat(t *testing.T) {
	m, _ := newLeague(t, 160, 48)
	key, text := m.needed()
	if !strings.HasPrefix(key, "Finch:") || text != "Finch waits for your decision: set_flight_mode (and 1 more seat(s))" {
		t.Errorf("needed() = %q, %q", key, text)
	}
	if got := m.title(); !strings.HasPrefix(got, "(2 waiting)") {
		t.Errorf("title %q", got)
	}
}

// At 80×24 the seat bar keeps every seat's name, state and calls waiting, and the hint
// names the seat keys.
func TestLeagueNarrowBarAndHint(t *testing.T) {
	m, _ := newLeague(t, 80, 24)
	lines := strings.Split(screenOf(m), "\n")
	bar, hint := lines[len(lines)-3], lines[len(lines)-2]
	for _, want := range []string{"Heron", "Finch", "Lark", "●1", "▶"} {
		if !strings.Contains(bar, want) {
			t.Errorf("seat bar %q lacks %q", bar, want)
		}
	}
	if !strings.Contains(hint, "w next waiting") && !strings.Contains(hint, "s next seat") {
		t.Errorf("hint %q names no seat key", hint)
	}
	drive(t, m, keys("a", "s"))
	if hint := strings.Split(screenOf(m), "\n")[23-1]; !strings.Contains(hint, "s next seat") {
		t.Errorf("hint on Finch %q", hint)
	}
}

// A league's screen fills the terminal exactly at any size, the seat bar included.
func TestLeagueKeepsShape(t *testing.T) {
	m, _ := newLeague(t, 80, 24)
	for _, size := range [][2]int{{80, 24}, {100, 30}, {119, 40}, {120, 40}, {200, 60}, {40, 12}, {20, 6}, {20, 5}, {20, 3}} {
		drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: size[0], Height: size[1]}})
		checkShape(t, screenOf(m), size[0], size[1])
	}
}

// A server's question to a seat not in focus counts in the seat bar, names the seat in
// the notification, and the next-waiting key shows it in the Pending pane; answering it
// sends the league's id.
func TestLeagueQuestionOfAnotherSeat(t *testing.T) {
	f := newFake()
	m := newTestModelInfo(f, leagueInfo)
	q := question(doorForm)
	q.Seat, q.Elicitation.ID = "Lark", "Lark/ask_1_1"
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 80, Height: 24}}, events(leagueOpening(), []agent.Event{q}))
	if bar := strings.Split(screenOf(m), "\n")[21]; !strings.Contains(bar, "Lark ▶ running · 1 waiting") {
		t.Errorf("seat bar %q does not count Lark's question", bar)
	}
	if _, text := m.needed(); text != "Lark: dungeon asks: Which door do you open?" {
		t.Errorf("notification %q", text)
	}
	drive(t, m, keys("w"))
	if s := screenOf(m); m.seats.focus != 2 || !strings.Contains(s, "Which door do you open?") {
		t.Fatalf("w did not show Lark's question (focus %d):\n%s", m.seats.focus, s)
	}
	drive(t, m, keys("d"))
	cmds := f.commands()
	if len(cmds) != 1 || cmds[0].Cmd != agent.CmdAnswer || cmds[0].ID != "Lark/ask_1_1" || cmds[0].Action != "decline" {
		t.Errorf("commands %+v, want the answer to Lark/ask_1_1", cmds)
	}
}

// A seat the screen was not told of gets a place of its own, and when the league ends
// every seat shows stopped.
func TestLeagueNewSeatAndTheEnd(t *testing.T) {
	m, _ := newLeague(t, 160, 48)
	drive(t, m, events(seatEvents("Wren", agent.Event{Type: agent.EventState, State: agent.Idle})), []tea.Msg{closedMsg{}})
	if len(m.seats.list) != 4 || m.seats.list[3].Name != "Wren" {
		t.Fatalf("seats %v, want Wren added", m.seats.names())
	}
	bar := strings.Split(screenOf(m), "\n")[45]
	if strings.Count(bar, "■") != 4 {
		t.Errorf("seat bar %q: every seat should be stopped", bar)
	}
}
