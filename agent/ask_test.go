package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
)

// doorSchema is a form with three choices (a default), a name without default
// (required in doorStrict) and a number with a default.
const doorSchema = `{"type":"object","properties":{
 "door":{"type":"string","enum":["left","middle","right"],"default":"middle","description":"which door"},
 "name":{"type":"string","title":"Your name"},
 "torches":{"type":"integer","minimum":0,"maximum":3,"default":1}},
 "required":["door"]}`

const doorStrict = `{"type":"object","properties":{
 "door":{"type":"string","enum":["left","middle","right"],"default":"middle"},
 "name":{"type":"string"}},"required":["door","name"]}`

// askGame is a game whose tools reach the runner's Host the way an MCP server's
// requests do: ask puts a question and returns the answer, narrate borrows the model,
// dig reports progress and logs. All are Read tools, so no decision is asked first.
type askGame struct {
	schema string
	delay  time.Duration // dig's time between reports
}

func (g *askGame) Info() game.Info { return game.Info{Name: "ask", Title: "Ask (test)"} }

func (g *askGame) Tools() []game.Tool {
	return []game.Tool{
		{Name: "ask", Kind: game.Read, Description: "ask the person", Schema: game.SchemaFor[noArgs]()},
		{Name: "narrate", Kind: game.Read, Description: "narrate with the model", Schema: game.SchemaFor[noArgs]()},
		{Name: "dig", Kind: game.Read, Description: "dig slowly", Schema: game.SchemaFor[noArgs]()},
	}
}

func (g *askGame) Observe(context.Context) (game.Observation, error) {
	return game.Observation{Summary: "A hall with three doors.", Time: time.Now()}, nil
}

func (g *askGame) Call(ctx context.Context, name string, _ json.RawMessage) (game.Result, error) {
	switch name {
	case "ask":
		a, err := game.Ask(ctx, game.Question{Server: "dungeon", Message: "Which door do you open?", Schema: json.RawMessage(g.schema)})
		if err != nil {
			return game.Result{Output: "asking failed: " + err.Error()}, nil
		}
		return game.Result{Output: a.Action + " " + string(a.Content)}, nil
	case "narrate":
		res, err := game.Sample(ctx, game.SampleRequest{Server: "dungeon", Messages: []game.SampleMessage{{Role: "user", Text: "Describe the hall."}}, MaxTokens: 50})
		if errors.Is(err, game.ErrDeclined) {
			return game.Result{Output: "declined"}, nil
		}
		if err != nil {
			return game.Result{Output: "failed: " + err.Error()}, nil
		}
		return game.Result{Output: "narration: " + res.Text}, nil
	case "dig":
		for i := 1; i <= 3; i++ {
			time.Sleep(g.delay)
			game.ReportProgress(ctx, game.Progress{Server: "dungeon", Progress: float64(i), Total: 3, Message: "digging"})
		}
		game.Log(ctx, game.LogLine{Server: "dungeon", Level: "info", Logger: "mine", Data: json.RawMessage(`"found a gem"`)})
		return game.Result{Output: "dug"}, nil
	}
	return game.Result{}, errors.New("no tool " + name)
}

// resultOf waits for the result of the named tool.
func (h *harness) resultOf(tool string) string {
	h.t.Helper()
	ev := h.next("result of "+tool, func(ev agent.Event) bool { return ev.Type == agent.EventResult && ev.Call.Tool == tool })
	if ev.Result.Err != nil {
		return "error: " + ev.Result.Err.Message
	}
	return ev.Result.Output
}

// A question goes to the person as an elicitation event; an accept that leaves fields
// out gets the schema's defaults; an answer that breaks the schema is refused and the
// question stays open; decline and cancel reach the game as they are.
func TestElicitationGoesToThePerson(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, action, content, want string
	}{
		{"defaults", "accept", `{"name":"Ada"}`, `accept {"door":"middle","name":"Ada","torches":1}`},
		{"chosen", "accept", `{"door":"left","torches":3}`, `accept {"door":"left","torches":3}`},
		{"decline", "decline", "", "decline "},
		{"cancel", "cancel", "", "cancel "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &askGame{schema: doorSchema}
			b := &scriptBrain{replies: []scripted{say("I ask.", "ask", "{}")}}
			h := startGame(t, g, b, nil, nil)
			ev := h.next("the question", is(agent.EventElicitation))
			q := ev.Elicitation
			if q == nil || q.Message != "Which door do you open?" || q.Server != "dungeon" || !q.NeedsOK || ev.Seq == 0 || q.CallID == "" {
				t.Fatalf("elicitation event %+v: want the question, journaled, on the running call", q)
			}
			bad := agent.Command{Cmd: agent.CmdAnswer, ID: q.ID, Action: "accept", Content: json.RawMessage(`{"door":"back"}`)}
			if err := h.r.Send(bad); err == nil || !strings.Contains(err.Error(), "door") {
				t.Fatalf("an answer outside the enum: err %v, want a refusal naming door", err)
			}
			c := agent.Command{Cmd: agent.CmdAnswer, ID: q.ID, Action: tc.action}
			if tc.content != "" {
				c.Content = json.RawMessage(tc.content)
			}
			h.send(c)
			ans := h.next("the answer", is(agent.EventAnswered))
			if ans.Elicitation.Action != tc.action || ans.Elicitation.By != "person" {
				t.Fatalf("answered event %+v", ans.Elicitation)
			}
			if got := h.resultOf("ask"); got != tc.want {
				t.Fatalf("the game got %q, want %q", got, tc.want)
			}
			if err := h.finish(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Unattended (--approve all), a question is accepted with the schema's defaults when
// every required field has one; otherwise the model answers it through a tool carrying
// the schema (checked like the person's answer), and a model that does not answer
// declines.
func TestElicitationUnattended(t *testing.T) {
	t.Parallel()
	answer := say("", "answer_question", `{"name":"Ada"}`)
	for _, tc := range []struct {
		name, schema string
		model        []scripted
		by, want     string
	}{
		{"defaults", doorSchema, nil, "policy", `accept {"door":"middle","torches":1}`},
		{"model answers", doorStrict, []scripted{answer}, "model", `accept {"door":"middle","name":"Ada"}`},
		{"model silent", doorStrict, []scripted{say("No idea.")}, "model", "decline "},
		{"model misfits", doorStrict, []scripted{say("", "answer_question", `{"door":"back","name":"Ada"}`)}, "model", "decline "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &askGame{schema: tc.schema}
			b := &scriptBrain{replies: append([]scripted{say("I ask.", "ask", "{}")}, tc.model...)}
			h := startGame(t, g, b, nil, func(c *agent.Config) { c.ApproveAll = true })
			ev := h.next("the answer", is(agent.EventAnswered))
			if ev.Elicitation.By != tc.by {
				t.Fatalf("answered by %q (%s), want %s", ev.Elicitation.By, ev.Elicitation.Reason, tc.by)
			}
			if got := h.resultOf("ask"); got != tc.want {
				t.Fatalf("unattended answer %q, want %q", got, tc.want)
			}
			if err := h.finish(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// The call's deadline stands still while the person is asked.
func TestDeadlinePausesWhileAsking(t *testing.T) {
	t.Parallel()
	g := &askGame{schema: doorSchema}
	b := &scriptBrain{replies: []scripted{say("I ask.", "ask", "{}")}}
	h := startGame(t, g, b, nil, func(c *agent.Config) { c.CallTimeout = 100 * time.Millisecond })
	q := h.next("the question", is(agent.EventElicitation)).Elicitation
	time.Sleep(400 * time.Millisecond) // four deadlines
	h.send(agent.Command{Cmd: agent.CmdAnswer, ID: q.ID, Action: "accept", Content: json.RawMessage(`{"door":"right"}`)})
	if got := h.resultOf("ask"); !strings.HasPrefix(got, `accept {"door":"right"`) {
		t.Fatalf("the call got %q: the deadline ran while the person was asked", got)
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}

// A sampling request waits for the person: approved, the model answers it (counted in a
// usage event); declined, the game hears so and the model is not asked.
func TestSamplingThroughTheGate(t *testing.T) {
	t.Parallel()
	for _, action := range []string{"accept", "decline"} {
		g := &askGame{}
		narration := scripted{reply: agent.Reply{Text: "Torches flicker.", Usage: agent.Usage{PromptTokens: 20, CompletionTokens: 5}}}
		b := &scriptBrain{replies: []scripted{say("I narrate.", "narrate", "{}"), narration}}
		h := startGame(t, g, b, nil, nil)
		s := h.next("the sampling request", is(agent.EventSampling)).Sampling
		if s.Server != "dungeon" || len(s.Messages) != 1 || !s.NeedsOK {
			t.Fatalf("sampling event %+v", s)
		}
		h.send(agent.Command{Cmd: agent.CmdAnswer, ID: s.ID, Action: action})
		want := "declined"
		if action == "accept" {
			want = "narration: Torches flicker."
			u := h.next("the sampling's usage", is(agent.EventUsage))
			if u.Usage.PromptTokens != 20 || u.Usage.CompletionTokens != 5 {
				t.Fatalf("usage %+v, want the sampling's", u.Usage)
			}
		}
		if got := h.resultOf("narrate"); got != want {
			t.Fatalf("%s: the game got %q, want %q", action, got, want)
		}
		asked := 0
		for _, req := range b.requests() {
			if strings.Contains(allText(req), "Describe the hall.") {
				asked++
			}
		}
		if want := map[string]int{"accept": 1, "decline": 0}[action]; asked != want {
			t.Fatalf("%s: the model was asked to sample %d times, want %d", action, asked, want)
		}
		if err := h.finish(); err != nil {
			t.Fatal(err)
		}
	}
}

// Progress reports become progress events on the running call, and log lines
// server_log events; progress moves the deadline on.
func TestProgressAndServerLog(t *testing.T) {
	t.Parallel()
	// Three reports 0.8 s apart: the dig outlasts the 2 s deadline only because each
	// report moves it on. The gaps leave 1.2 s for a busy machine (it was 70 ms).
	g := &askGame{delay: 800 * time.Millisecond}
	b := &scriptBrain{replies: []scripted{say("I dig.", "dig", "{}")}}
	h := startGame(t, g, b, nil, func(c *agent.Config) { c.CallTimeout = 2 * time.Second })
	if got := h.resultOf("dig"); got != "dug" {
		t.Fatalf("dig got %q: progress did not move the deadline", got)
	}
	h.next("the next step", is(agent.EventStep)) // the log line may come after the result
	var progress []*agent.Progress
	var logs []agent.Event
	for _, ev := range h.seen {
		switch ev.Type {
		case agent.EventProgress:
			progress = append(progress, ev.Progress)
		case agent.EventServerLog:
			logs = append(logs, ev)
		}
	}
	if len(progress) != 3 || progress[0].CallID == "" || progress[2].Progress != 3 || progress[2].Total != 3 || progress[2].Message != "digging" {
		t.Fatalf("progress events %+v, want three on the call", progress)
	}
	if len(logs) != 1 || logs[0].ServerLog.Level != "info" || !strings.Contains(logs[0].Text, "found a gem") {
		t.Fatalf("server log events %+v", logs)
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}

// ParseCommand takes the answer command strictly.
func TestParseAnswerCommand(t *testing.T) {
	t.Parallel()
	c, err := agent.ParseCommand([]byte(`{"cmd":"answer","id":"ask_1_1","action":"accept","content":{"door":"left"}}`))
	if err != nil || c.ID != "ask_1_1" || c.Action != "accept" || string(c.Content) != `{"door":"left"}` {
		t.Fatalf("answer: %+v %v", c, err)
	}
	for line, want := range map[string]string{
		`{"cmd":"answer","action":"accept"}`:                      "id",
		`{"cmd":"answer","id":"a","action":"maybe"}`:              "maybe",
		`{"cmd":"answer","id":"a","action":"accept","content":3}`: "JSON object",
	} {
		if _, err := agent.ParseCommand([]byte(line)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want one naming %q", line, err, want)
		}
	}
}
