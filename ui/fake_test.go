package ui

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
)

// fakeAgent records the commands the screen sends; its events are fed by the test.
type fakeAgent struct {
	ch   chan agent.Event
	mu   sync.Mutex
	cmds []agent.Command
	err  error
}

func newFake() *fakeAgent { return &fakeAgent{ch: make(chan agent.Event, 64)} }

func (f *fakeAgent) Events() <-chan agent.Event { return f.ch }

func (f *fakeAgent) Send(c agent.Command) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	f.cmds = append(f.cmds, c)
	return nil
}

func (f *fakeAgent) commands() []agent.Command {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]agent.Command(nil), f.cmds...)
}

// t0 is the fixed time every test screen is drawn at.
var t0 = time.Date(2026, 11, 22, 15, 3, 0, 0, time.UTC)

type navigateArgs struct {
	ShipSymbol     string `json:"shipSymbol" jsonschema:"the ship to move"`
	WaypointSymbol string `json:"waypointSymbol" jsonschema:"where to go"`
}

type flightMode string

type flightModeArgs struct {
	ShipSymbol string     `json:"shipSymbol" jsonschema:"the ship"`
	FlightMode flightMode `json:"flightMode"`
}

// testTools is a small catalogue in the shape of the SpaceTraders one.
func testTools() []game.Tool {
	return []game.Tool{
		{Name: "navigate_ship", Kind: game.Act, Description: "fly a ship to a waypoint of its system", Schema: game.SchemaFor[navigateArgs](), DryRun: true},
		{Name: "set_flight_mode", Kind: game.Act, Description: "change a ship's flight mode",
			Schema: game.SchemaFor[flightModeArgs](game.WithEnum[flightMode]("how fast and how much fuel", "CRUISE", "BURN", "DRIFT", "STEALTH"))},
		{Name: "dock_ship", Kind: game.Act, Description: "dock", Schema: game.SchemaFor[struct {
			ShipSymbol string `json:"shipSymbol"`
		}]()},
	}
}

func testInfo() Info {
	return Info{
		Game:    "SpaceTraders (offline universe)",
		Brain:   "autopilot",
		Session: "spacetraders-2026-11-22-1503",
		Banner:  "Playing SpaceTraders (offline universe) with the autopilot; set a model with --model or COPLAY_MODEL, a real server with --token.",
		Tools:   testTools(),
	}
}

// newTestModel is a screen on fake with a fixed clock and no grace period.
func newTestModel(f *fakeAgent) *Model { return newTestModelInfo(f, nil) }

// newTestModelInfo is newTestModel with change applied to its Info first (nil: none).
func newTestModelInfo(f *fakeAgent, change func(*Info)) *Model {
	info := testInfo()
	if change != nil {
		change(&info)
	}
	m := New(f, info)
	m.Now = func() time.Time { return t0 }
	m.Grace = 0
	return m
}

// longObservation has more contracts than a pane holds.
func longObservation() *game.Observation {
	o := observation()
	var b strings.Builder
	b.WriteString(o.Summary + "\n\n## Contracts\n")
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&b, "- CONTRACT-%d: deliver %d COPPER_ORE to X1-DF55-A%d by 2026-11-2%dT18:00Z, pays %d,000 credits\n", i, 10*i, i, i, 5*i)
	}
	o.Summary = b.String()
	return o
}

// surveyArgs are the arguments of an extraction with a survey: long enough to fold.
const surveyArgs = `{"shipSymbol":"COPLAY-1","survey":{"signature":"X1-DF55-B7-3F1A2C","symbol":"X1-DF55-B7",` +
	`"deposits":[{"symbol":"IRON_ORE"},{"symbol":"IRON_ORE"},{"symbol":"COPPER_ORE"},{"symbol":"QUARTZ_SAND"},` +
	`{"symbol":"SILICON_CRYSTALS"},{"symbol":"IRON_ORE"}],"expiration":"2026-11-22T16:03:00Z","size":"MODERATE"}}`

// journalTail is what agent.RecentEvents gives for a session that played 40 steps:
// the end of step 40, with a note tool's bookkeeping, and a call still waiting.
func journalTail() []agent.Event {
	nav := call("c40", "navigate_ship", `{"shipSymbol":"COPLAY-1","waypointSymbol":"X1-DF55-B7"}`)
	notes := &agent.Call{ID: "n40", Tool: "update_notes", Args: json.RawMessage(`{"text":"## Goal\nmine"}`), Kind: game.Note}
	dock := call("c41", "dock_ship", `{"shipSymbol":"COPLAY-1"}`)
	return []agent.Event{
		{Seq: 900, Type: agent.EventStep, Step: 40},
		{Seq: 901, Step: 40, Type: agent.EventText, Text: "Fly to B7 and write down the plan."},
		{Seq: 902, Step: 40, Type: agent.EventProposed, Call: notes},
		{Seq: 903, Step: 40, Type: agent.EventDecision, Decision: &agent.Decision{CallID: "n40", Decision: agent.Auto, By: "policy"}},
		{Seq: 904, Step: 40, Type: agent.EventResult, Call: notes, Result: resultOf("notes v3 saved")},
		{Seq: 905, Step: 40, Type: agent.EventProposed, Call: nav},
		{Seq: 906, Step: 40, Type: agent.EventDecision, Decision: &agent.Decision{CallID: "c40", Decision: agent.Approve, By: "person"}},
		{Seq: 907, Step: 40, Type: agent.EventToolStart, Call: nav},
		{Seq: 908, Step: 40, Type: agent.EventResult, Call: nav, Result: resultOf(`{"nav":{"status":"IN_TRANSIT"}}`)},
		{Seq: 909, Type: agent.EventStep, Step: 41},
		{Seq: 910, Step: 41, Type: agent.EventProposed, Call: dock},
		{Seq: 911, Step: 41, Type: agent.EventState, State: agent.Stopped, Text: "stopped: stop command"},
	}
}

func observation() *game.Observation {
	return &game.Observation{
		Summary: "## COPLAY-1 (command frigate)\n- at **X1-DF55-A1** (planet), docked\n- fuel 380/400, cargo 12/40\n\n## COPLAY-2 (mining drone)\n- in transit to X1-DF55-B7 (asteroid field)\n\nContract: deliver 60 IRON_ORE to X1-DF55-A1, 18,000 credits.",
		Metrics: []game.Metric{{Name: "credits", Value: 175000}, {Name: "cargo", Value: 12, Unit: "units"}},
		Timers: []game.Timer{
			{Label: "COPLAY-2 arrives B7", Start: t0.Add(-48 * time.Second), End: t0.Add(72 * time.Second)},
			{Label: "COPLAY-1 cooldown", Start: t0.Add(-60 * time.Second), End: t0.Add(-1 * time.Second)},
		},
		Map: &game.Map{Title: "System X1-DF55", Points: []game.Point{
			{Label: "X1-DF55-A1", Kind: "PLANET", X: 0, Y: 0, Marks: []string{"COPLAY-1"}},
			{Label: "X1-DF55-A2", Kind: "MOON", X: 6, Y: 4},
			{Label: "X1-DF55-B7", Kind: "ASTEROID_FIELD", X: 40, Y: -22},
			{Label: "X1-DF55-C3", Kind: "ORBITAL_STATION", X: -30, Y: 18},
			{Label: "X1-DF55-J9", Kind: "JUMP_GATE", X: -45, Y: -35},
			{Label: "X1-DF55-G5", Kind: "GAS_GIANT", X: 25, Y: 30, Marks: []string{"COPLAY-2"}},
		}},
		Time: t0,
	}
}

func sampleNotes() *agent.NotesView {
	return &agent.NotesView{
		Version: 3,
		Text:    "## Goal\nFinish the IRON_ORE contract, then buy a second drone.\n\n## Known\n- B7 sells nothing, mine there\n- A1 buys IRON_ORE at 42",
		Plan: []agent.PlanStep{
			{ID: 1, Text: "Accept the IRON_ORE contract", Status: "done"},
			{ID: 2, Text: "Mine at B7 until the hold is full", Status: "doing"},
			{ID: 3, Text: "Deliver 60 IRON_ORE to A1", Status: "todo"},
		},
	}
}

// opening is a realistic start: banner, world, notes, a step and half a streamed
// message.
func opening() []agent.Event {
	credits := []float64{150000, 152500, 151000, 160000, 158000, 175000}
	var evs []agent.Event
	evs = append(evs, agent.Event{Type: agent.EventStarted, Text: "started: autopilot on SpaceTraders (offline universe)"})
	for _, c := range credits {
		o := observation()
		o.Metrics[0].Value = c
		evs = append(evs, agent.Event{Type: agent.EventObservation, Observation: o})
	}
	evs = append(evs,
		agent.Event{Type: agent.EventNotes, Notes: sampleNotes()},
		agent.Event{Type: agent.EventState, State: agent.Running},
		agent.Event{Type: agent.EventStep, Step: 7},
		agent.Event{Type: agent.EventUsage, Usage: &agent.Usage{PromptTokens: 1800, CompletionTokens: 240, Cost: 0.0021, CostKnown: true}},
		agent.Event{Type: agent.EventTextDelta, Text: "COPLAY-1 is docked at A1 with a free hold. "},
		agent.Event{Type: agent.EventTextDelta, Text: "I will fly it to B7 to mine"},
	)
	return evs
}

func call(id, tool, args string) *agent.Call {
	return &agent.Call{ID: id, Tool: tool, Args: json.RawMessage(args), Kind: game.Act, NeedsOK: true}
}

// proposal finishes the streamed text and proposes a navigation with a dry run.
func proposal() []agent.Event {
	c := call("c1", "navigate_ship", `{"shipSymbol":"COPLAY-1","waypointSymbol":"X1-DF55-B7"}`)
	c.Simulation = &game.Simulation{Summary: "uses 46 fuel (have 380), arrives 15:05:12"}
	return []agent.Event{
		{Type: agent.EventTextDelta, Text: " IRON_ORE for the contract."},
		{Type: agent.EventText, Text: "COPLAY-1 is docked at A1 with a free hold. I will fly it to B7 to mine IRON_ORE for the contract."},
		{Type: agent.EventProposed, Call: c},
		{Type: agent.EventState, State: agent.Deciding},
	}
}

// keyMsg turns a key name as the keymap writes it into a key press.
func keyMsg(k string) tea.KeyPressMsg {
	special := map[string]rune{
		"enter": tea.KeyEnter, "esc": tea.KeyEscape, "backspace": tea.KeyBackspace, "up": tea.KeyUp,
		"down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight, "end": tea.KeyEnd, "tab": tea.KeyTab,
		"pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown,
	}
	if c, ok := special[k]; ok {
		return tea.KeyPressMsg{Code: c}
	}
	if len(k) > 5 && k[:5] == "ctrl+" {
		return tea.KeyPressMsg{Code: rune(k[5]), Mod: tea.ModCtrl}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// typeText turns text into key presses.
func typeText(s string) []tea.Msg {
	var out []tea.Msg
	for _, r := range s {
		out = append(out, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	return out
}

func keys(ks ...string) []tea.Msg {
	out := make([]tea.Msg, len(ks))
	for i, k := range ks {
		out[i] = keyMsg(k)
	}
	return out
}

func events(evs ...[]agent.Event) []tea.Msg {
	var out []tea.Msg
	for _, group := range evs {
		for _, e := range group {
			out = append(out, eventMsg(e))
		}
	}
	return out
}

// drive feeds msgs through Update, as the program would.
func drive(t *testing.T, m *Model, msgs ...[]tea.Msg) {
	t.Helper()
	for _, group := range msgs {
		for _, msg := range group {
			m.Update(msg)
		}
	}
}

func resultOf(out string) *game.Result { return &game.Result{Output: out} }

func mustDuration(t *testing.T, s string) time.Duration {
	t.Helper()
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// editorOf is the edit dialog open on m; the test fails when another one (or none) is.
func editorOf(t *testing.T, m *Model) *argsEditor {
	t.Helper()
	d, ok := m.dlg.(*argsEditor)
	if !ok {
		t.Fatalf("dialog %v is open, want the editor", m.openKind())
	}
	return d
}
