package ui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
)

const doorForm = `{"type":"object","properties":{
 "door":{"type":"string","enum":["left","middle","right"],"default":"middle","description":"which door"},
 "name":{"type":"string","title":"Your name"},
 "brave":{"type":"boolean"}},"required":["door","name"]}`

func question(schema string) agent.Event {
	return agent.Event{Type: agent.EventElicitation, Text: "dungeon asks: Which door do you open?",
		Elicitation: &agent.Elicitation{ID: "ask_1_1", Server: "dungeon", Message: "Which door do you open?", Schema: json.RawMessage(schema), NeedsOK: true}}
}

// A server's question is a form in the Pending pane: choices in a row with the default
// chosen, required fields marked, the keys to answer; choosing, typing and accepting
// send the answer command with the form's values.
func TestQuestionForm(t *testing.T) {
	f := newFake()
	m := newTestModel(f)
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 120, Height: 40}}, events(opening(), []agent.Event{question(doorForm)}))
	screen := stripANSI(m.render())
	for _, want := range []string{"Question from dungeon", "Which door do you open?", "left │ [middle] │ right", "Your name *", "a accept", "d decline", "c cancel"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q:\n%s", want, screen)
		}
	}
	drive(t, m, keys("a"))
	if len(f.commands()) != 0 || !strings.Contains(m.hint, "Your name is required") {
		t.Fatalf("accept without a required field: commands %+v, hint %q", f.commands(), m.hint)
	}
	drive(t, m, keys("space"), keys("down", "enter"), typeText("Ada"), keys("enter", "down", "space", "a"))
	want := agent.Command{Cmd: agent.CmdAnswer, ID: "ask_1_1", Action: "accept", Content: json.RawMessage(`{"brave":true,"door":"right","name":"Ada"}`)}
	wantCommands(t, f, want)
	drive(t, m, events([]agent.Event{{Type: agent.EventAnswered, Text: "dungeon: accept",
		Elicitation: &agent.Elicitation{ID: "ask_1_1", Action: "accept"}}}))
	if m.pendingShown() {
		t.Errorf("the question stays after its answer")
	}
}

// Decline and cancel send no content; a URL question shows the page.
func TestQuestionDeclineAndURL(t *testing.T) {
	f := newFake()
	m := newTestModel(f)
	url := agent.Event{Type: agent.EventElicitation, Elicitation: &agent.Elicitation{ID: "ask_1_2", Server: "dungeon",
		Message: "Sign the guild's book", URL: "https://example.test/guild", NeedsOK: true}}
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 120, Height: 40}}, events(opening(), []agent.Event{question(doorForm), url}))
	drive(t, m, keys("d"))
	drive(t, m, events([]agent.Event{{Type: agent.EventAnswered, Elicitation: &agent.Elicitation{ID: "ask_1_1", Action: "decline"}}}))
	screen := stripANSI(m.render())
	if !strings.Contains(screen, "open: https://example.test/guild") || !strings.Contains(screen, "o open the page") {
		t.Errorf("the URL question is not shown:\n%s", screen)
	}
	drive(t, m, keys("c"))
	wantCommands(t, f, agent.Command{Cmd: agent.CmdAnswer, ID: "ask_1_1", Action: "decline"},
		agent.Command{Cmd: agent.CmdAnswer, ID: "ask_1_2", Action: "cancel"})
}

// A request to use the model shows its messages and is approved with accept.
func TestSamplingRequestShown(t *testing.T) {
	f := newFake()
	m := newTestModel(f)
	req := agent.Event{Type: agent.EventSampling, Sampling: &agent.Sampling{ID: "sample_1_1", Server: "dungeon", MaxTokens: 50,
		Messages: []game.SampleMessage{{Role: "user", Text: "Describe the hall."}}, NeedsOK: true}}
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 120, Height: 40}}, events(opening(), []agent.Event{req}), keys("a"))
	screen := stripANSI(m.render())
	if !strings.Contains(screen, "dungeon asks to use your model") || !strings.Contains(screen, "user: Describe the hall.") {
		t.Errorf("the request is not shown:\n%s", screen)
	}
	wantCommands(t, f, agent.Command{Cmd: agent.CmdAnswer, ID: "sample_1_1", Action: "accept"})
}

// Progress is one log line, redrawn while it is the last; a server's log lines follow.
func TestProgressLine(t *testing.T) {
	f := newFake()
	m := newTestModel(f)
	var evs []agent.Event
	for i := 1; i <= 3; i++ {
		evs = append(evs, agent.Event{Type: agent.EventProgress, Progress: &agent.Progress{CallID: "c1", Server: "dungeon", Progress: float64(i), Total: 4, Message: "digging"}})
	}
	evs = append(evs, agent.Event{Type: agent.EventServerLog, Text: "[info] dungeon/mine: found a gem", ServerLog: &game.LogLine{Level: "info"}})
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 120, Height: 40}}, events(opening(), evs))
	log := logText(m, 100, 30)
	if strings.Count(log, "digging") != 1 || !strings.Contains(log, "███████████████░░░░░▏ 3/4 digging") || !strings.Contains(log, "found a gem") {
		t.Errorf("the log:\n%s", log)
	}
}

// A multiple choice (an array of an enum) is a row of boxes: the cursor moves with
// choose, space picks; defaults are picked to begin with.
func TestQuestionMultipleChoice(t *testing.T) {
	f := newFake()
	m := newTestModel(f)
	schema := `{"type":"object","properties":{"fish":{"type":"array","title":"Fish","items":{"anyOf":[
		{"const":"fish-1","title":"Tuna"},{"const":"fish-2","title":"Salmon"},{"const":"fish-3","title":"Trout"}]},"default":["fish-1"]}}}`
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 120, Height: 40}}, events(opening(), []agent.Event{question(schema)}))
	if screen := stripANSI(m.render()); !strings.Contains(screen, "›[x] Tuna  [ ] Salmon  [ ] Trout") {
		t.Errorf("the boxes are not shown:\n%s", screen)
	}
	drive(t, m, keys("right", "right", "space", "a"))
	wantCommands(t, f, agent.Command{Cmd: agent.CmdAnswer, ID: "ask_1_1", Action: "accept", Content: json.RawMessage(`{"fish":["fish-1","fish-3"]}`)})
}

// A form longer than the pane shows the fields around the selected one.
func TestLongFormFollowsTheSelection(t *testing.T) {
	f := newFake()
	m := newTestModel(f)
	props := []string{}
	for i := range 30 {
		props = append(props, fmt.Sprintf(`"field%02d":{"type":"string"}`, i))
	}
	drive(t, m, []tea.Msg{tea.WindowSizeMsg{Width: 120, Height: 30}}, events(opening(), []agent.Event{question(`{"type":"object","properties":{` + strings.Join(props, ",") + `}}`)}))
	for range 25 {
		drive(t, m, keys("down"))
	}
	screen := stripANSI(m.render())
	if !strings.Contains(screen, "▸ field25") || strings.Contains(screen, "field00") || !strings.Contains(screen, "a accept") {
		t.Errorf("the selected field or the keys are not on screen:\n%s", screen)
	}
}
