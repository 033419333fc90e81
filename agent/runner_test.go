package agent_test

import (
	"encoding/json"
	"errors"
	"github.com/coplayhq/coplay/agent"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/game"
)

func TestApproveRunsTheCallAndFeedsTheResultBack(t *testing.T) {
	t.Parallel()
	g := &gridGame{}
	b := &scriptBrain{replies: []scripted{say("Heading north.", "move", `{"direction":"N"}`), say("Done.")}}
	h := start(t, g, b, nil, nil)

	c := h.proposed("move")
	if !c.NeedsOK || c.Kind != game.Act {
		t.Fatalf("move proposal: NeedsOK=%v kind=%v, want an Act call waiting for a decision", c.NeedsOK, c.Kind)
	}
	if c.Simulation == nil || !strings.Contains(c.Simulation.Summary, "(0,1)") {
		t.Fatalf("dry run = %+v, want the predicted position (0,1)", c.Simulation)
	}
	h.next("waiting_for_decision", isState(agent.Deciding))
	if got := g.callLog(); len(got) != 0 {
		t.Fatalf("the game was called before the decision: %v", got)
	}
	h.send(agent.Command{Cmd: agent.CmdDecide, CallID: c.ID, Decision: agent.Approve})
	d := h.next("decision", is(agent.EventDecision))
	if d.Decision.By != "person" || d.Decision.Decision != agent.Approve {
		t.Fatalf("decision = %+v", d.Decision)
	}
	res := h.next("result", is(agent.EventResult))
	if res.Result.Output != "moved to (0,1)" {
		t.Fatalf("result = %+v", res.Result)
	}
	h.next("idle after the turn", isState(agent.Idle))
	msg, ok := toolMessage(h.request(1), c.ID)
	if !ok || msg != "moved to (0,1)" {
		t.Fatalf("tool message to the model = %q, %v", msg, ok)
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
	// The journal brackets the call: proposal, decision, start, result.
	recs, err := h.sess.CallRecords(c.ID)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, r := range recs {
		types = append(types, string(r.Type))
	}
	if strings.Join(types, ",") != "tool_proposed,decision,tool_result" {
		t.Fatalf("journal of the call: %v", types)
	}
}

func TestVetoWithReasonTellsTheModelAndSkipsTheGame(t *testing.T) {
	t.Parallel()
	g := &gridGame{}
	b := &scriptBrain{replies: []scripted{say("", "move", `{"direction":"W"}`)}}
	h := start(t, g, b, nil, nil)
	c := h.proposed("move")
	h.send(agent.Command{Cmd: agent.CmdDecide, CallID: c.ID, Decision: agent.Veto, Reason: "there is a cliff to the west"})
	h.next("veto", func(ev agent.Event) bool { return ev.Type == agent.EventDecision && ev.Decision.Decision == agent.Veto })
	msg, _ := toolMessage(h.request(1), c.ID)
	for _, want := range []string{"not executed", "vetoed by the person", "there is a cliff to the west", "Do not repeat this call unchanged"} {
		if !strings.Contains(msg, want) {
			t.Errorf("tool message %q lacks %q", msg, want)
		}
	}
	if len(g.callLog()) != 0 {
		t.Fatalf("a vetoed call reached the game: %v", g.callLog())
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
	rec, err := h.sess.Recover()
	if err != nil || len(rec.Pending)+len(rec.Unknown) != 0 {
		t.Fatalf("a vetoed call is left open in the journal: %+v, %v", rec, err)
	}
}

func TestEditIsValidatedAndTheModelToldWhatChanged(t *testing.T) {
	t.Parallel()
	g := &gridGame{}
	b := &scriptBrain{replies: []scripted{say("", "move", `{"direction":"N"}`)}}
	h := start(t, g, b, nil, nil)
	c := h.proposed("move")

	err := h.r.Send(agent.Command{Cmd: agent.CmdDecide, CallID: c.ID, Decision: agent.Edit, Args: json.RawMessage(`{"direction":"s"}`)})
	var ve *game.ValidationError
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), "did you mean S") {
		t.Fatalf("invalid edit: Send = %v, want a validation error suggesting S", err)
	}
	if len(g.callLog()) != 0 {
		t.Fatal("a refused edit ran")
	}

	h.send(agent.Command{Cmd: agent.CmdDecide, CallID: c.ID, Decision: agent.Edit, Args: json.RawMessage(`{"direction":"S"}`)})
	h.next("result", func(ev agent.Event) bool {
		if ev.Type == agent.EventError {
			t.Fatalf("the refused edit, returned to its sender, was also emitted: %s", ev.Text)
		}
		return ev.Type == agent.EventResult
	})
	if got := g.callLog(); len(got) != 1 || got[0] != `move {"direction":"S"}` {
		t.Fatalf("game calls = %v, want the edited move S", got)
	}
	msg, _ := toolMessage(h.request(1), c.ID)
	if !strings.Contains(msg, `direction: "N" → "S"`) || !strings.Contains(msg, "moved to (0,-1)") {
		t.Fatalf("tool message = %q, want the change and the result", msg)
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}

func TestAlwaysAllowIsKeptAndRevocable(t *testing.T) {
	t.Parallel()
	g := &gridGame{}
	b := &scriptBrain{replies: []scripted{
		say("", "dig", `{}`), say("", "dig", `{}`), say("Done."), say("", "dig", `{}`),
	}}
	h := start(t, g, b, nil, nil)
	first := h.proposed("dig")
	h.send(agent.Command{Cmd: agent.CmdAllow, Tool: "dig", Allow: true})
	ev := h.next("rules", is(agent.EventRules))
	if len(ev.Rules) != 1 || ev.Rules[0] != "allow dig" {
		t.Fatalf("rules event = %+v", ev.Rules)
	}
	h.send(agent.Command{Cmd: agent.CmdDecide, CallID: first.ID, Decision: agent.Approve})
	second := h.proposed("dig")
	if second.NeedsOK {
		t.Fatal("an always-allowed tool still asks")
	}
	d := h.next("rule decision", is(agent.EventDecision))
	if d.Decision.By != "rule" || d.Decision.Rule != "allow dig" || d.Decision.CallID != second.ID {
		t.Fatalf("decision = %+v, want by rule", d.Decision)
	}
	rules, _ := h.sess.Rules()
	if !rules["dig"] {
		t.Fatal("the rule is not in the session")
	}
	h.next("idle", isState(agent.Idle))
	h.send(agent.Command{Cmd: agent.CmdAllow, Tool: "dig", Allow: false})
	h.next("rules", is(agent.EventRules))
	h.send(agent.Command{Cmd: agent.CmdAdvise, Text: "dig once more"})
	third := h.proposed("dig")
	if !third.NeedsOK {
		t.Fatal("a revoked rule still allows")
	}
	if err := h.r.Send(agent.Command{Cmd: agent.CmdAllow, Tool: "teleport", Allow: true}); err == nil {
		t.Fatal("allow of an unknown tool was accepted")
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}

func TestBatchWithOneVetoRunsTheOthersInOrder(t *testing.T) {
	t.Parallel()
	g := &gridGame{}
	b := &scriptBrain{replies: []scripted{say("Three things.",
		"move", `{"direction":"N"}`, "move", `{"direction":"E"}`, "look", `{}`)}}
	h := start(t, g, b, nil, nil)
	n := h.proposed("move")
	e := h.proposed("move")
	look := h.proposed("look")
	if look.NeedsOK {
		t.Fatal("a read tool asks for approval")
	}
	h.send(agent.Command{Cmd: agent.CmdDecide, CallID: e.ID, Decision: agent.Approve})
	h.next("decision on E", func(ev agent.Event) bool { return ev.Type == agent.EventDecision && ev.Decision.CallID == e.ID })
	if len(g.callLog()) != 0 {
		t.Fatal("calls ran before the whole batch was decided")
	}
	h.send(agent.Command{Cmd: agent.CmdDecide, CallID: n.ID, Decision: agent.Veto})
	h.next("idle", isState(agent.Idle))
	got := g.callLog()
	if strings.Join(got, "|") != `move {"direction":"E"}|look {}` {
		t.Fatalf("game calls = %v, want move E then look", got)
	}
	req := h.request(1)
	for _, id := range []string{n.ID, e.ID, look.ID} {
		if _, ok := toolMessage(req, id); !ok {
			t.Errorf("the model got no answer for call %s", id)
		}
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}

func TestAdviceWhileDecidingReachesTheNextStep(t *testing.T) {
	t.Parallel()
	g := &gridGame{}
	b := &scriptBrain{replies: []scripted{say("", "move", `{"direction":"N"}`)}}
	h := start(t, g, b, nil, nil)
	c := h.proposed("move")
	h.send(agent.Command{Cmd: agent.CmdAdvise, Text: "gold is to the east"})
	h.next("advice", is(agent.EventAdvice))
	h.send(agent.Command{Cmd: agent.CmdDecide, CallID: c.ID, Decision: agent.Approve})
	text := allText(h.request(1))
	if !strings.Contains(text, "gold is to the east") || !strings.Contains(text, "update_notes") {
		t.Fatalf("the next prompt lacks the advice and the instruction to note it:\n%s", text)
	}
	if strings.Contains(allText(h.request(0)), "gold is to the east") {
		t.Fatal("advice appeared before it was given")
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}

func TestAdviceWakesAWait(t *testing.T) {
	t.Parallel()
	g := &gridGame{digWait: time.Hour}
	b := &scriptBrain{replies: []scripted{say("", "dig", `{}`), say("ok")}}
	h := start(t, g, b, nil, func(c *agent.Config) { c.ApproveAll = true })
	w := h.next("waiting", func(ev agent.Event) bool { return ev.Type == agent.EventWaiting && !ev.Wait.Until.IsZero() })
	if !strings.Contains(w.Text, "cooling down") {
		t.Fatalf("waiting event = %q, want the reason", w.Text)
	}
	h.send(agent.Command{Cmd: agent.CmdAdvise, Text: "stop digging"})
	end := h.next("wait ended", func(ev agent.Event) bool { return ev.Type == agent.EventWaiting && ev.Wait.Until.IsZero() })
	if !strings.Contains(end.Text, "woken early") {
		t.Fatalf("end of wait = %q", end.Text)
	}
	if !strings.Contains(allText(h.request(1)), "stop digging") {
		t.Fatal("the advice did not reach the model after the wait")
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}

func TestIdleUntilSleepsThenStartsANewTurn(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	frozen := func() time.Time { return t0 }
	g := &gridGame{now: frozen, idleUntil: t0.Add(50 * time.Millisecond)}
	b := &scriptBrain{replies: []scripted{say("Nothing to do yet.")}}
	h := start(t, g, b, nil, func(c *agent.Config) { c.Now = frozen })
	w := h.next("waiting", is(agent.EventWaiting))
	if !strings.Contains(w.Text, "resting") {
		t.Fatalf("waiting = %q", w.Text)
	}
	h.next("wait ended", func(ev agent.Event) bool { return ev.Type == agent.EventWaiting && ev.Wait.Until.IsZero() })
	h.next("the next turn's step", func(ev agent.Event) bool { return ev.Type == agent.EventStep && ev.Step == 2 })
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}

func TestIterationCapEndsTheTurnAndSaysSo(t *testing.T) {
	t.Parallel()
	g := &gridGame{}
	b := &scriptBrain{replies: []scripted{say("", "look", `{}`)}, loop: true}
	h := start(t, g, b, nil, func(c *agent.Config) { c.MaxIterations = 3 })
	ev := h.next("turn limit", is(agent.EventTurnLimit))
	if ev.Step != 3 || !strings.Contains(ev.Text, "3") {
		t.Fatalf("turn limit at step %d: %q", ev.Step, ev.Text)
	}
	h.next("idle", isState(agent.Idle))
	if n := len(g.callLog()); n != 3 {
		t.Fatalf("%d calls in a turn capped at 3 steps", n)
	}
	h.send(agent.Command{Cmd: agent.CmdResume})
	h.next("a new turn", func(ev agent.Event) bool { return ev.Type == agent.EventStep && ev.Step == 4 })
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}

func TestRepeatedFailureEndsTheTurn(t *testing.T) {
	t.Parallel()
	for name, reply := range map[string]scripted{
		"game error":   say("", "fail", `{}`),
		"invalid args": say("", "move", `{"direction":"UP"}`),
	} {
		t.Run(name, func(t *testing.T) {
			g := &gridGame{}
			b := &scriptBrain{replies: []scripted{reply}, loop: true}
			h := start(t, g, b, nil, func(c *agent.Config) { c.ApproveAll = true })
			ev := h.next("failure error", func(ev agent.Event) bool {
				return ev.Type == agent.EventError && strings.Contains(ev.Text, "3 times in a row")
			})
			if ev.Step != 3 {
				t.Fatalf("stopped at step %d, want 3", ev.Step)
			}
			h.next("idle", isState(agent.Idle))
			if err := h.finish(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestMalformedArgumentsNeverReachTheGame(t *testing.T) {
	t.Parallel()
	g := &gridGame{}
	b := &scriptBrain{replies: []scripted{
		{reply: agent.Reply{Calls: []agent.ToolCall{{ID: "bad", Tool: "move", Args: json.RawMessage(`{"direction": "N`)}}}},
		{reply: agent.Reply{Calls: []agent.ToolCall{{ID: "nope", Tool: "teleport", Args: json.RawMessage(`{}`)}}}},
	}}
	h := start(t, g, b, nil, func(c *agent.Config) { c.ApproveAll = true })
	c := h.proposed("move")
	if c.NeedsOK || len(c.Problems) == 0 || !json.Valid(c.Args) {
		t.Fatalf("malformed call = %+v: want problems, no question, args shown as valid JSON", c)
	}
	u := h.proposed("teleport")
	if len(u.Problems) == 0 || !strings.Contains(u.Problems[0].Expected, "move") {
		t.Fatalf("unknown tool problems = %+v", u.Problems)
	}
	h.next("idle", isState(agent.Idle))
	if len(g.callLog()) != 0 {
		t.Fatalf("invalid calls reached the game: %v", g.callLog())
	}
	msg, _ := toolMessage(h.request(1), "bad")
	if !strings.Contains(msg, "not executed") || !strings.Contains(msg, "invalid JSON") {
		t.Fatalf("the model was told %q", msg)
	}
	for _, m := range h.request(1).Messages {
		for _, tc := range m.ToolCalls {
			if !json.Valid(tc.Args) {
				t.Fatalf("history carries malformed args %q back to the endpoint", tc.Args)
			}
		}
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}

func TestModelFailureIsReportedAndTheSessionGoesOn(t *testing.T) {
	t.Parallel()
	g := &gridGame{}
	b := &scriptBrain{replies: []scripted{{err: errors.New("HTTP 500: upstream exploded")}, say("", "look", `{}`)}}
	h := start(t, g, b, nil, nil)
	ev := h.next("error", is(agent.EventError))
	if !strings.Contains(ev.Text, "upstream exploded") {
		t.Fatalf("error = %q", ev.Text)
	}
	h.next("idle", isState(agent.Idle))
	h.send(agent.Command{Cmd: agent.CmdAdvise, Text: "try again"})
	h.proposed("look")
	if !strings.Contains(allText(h.request(1)), "try again") {
		t.Fatal("advice after a model failure did not reach the model")
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}

func TestNotebookTools(t *testing.T) {
	t.Parallel()
	g := &gridGame{}
	b := &scriptBrain{replies: []scripted{
		say("", "update_notes", `{"section":"Strategy","text":"Dig where it glitters."}`,
			"set_plan", `{"steps":["go north","dig"]}`,
			"update_step", `{"id":1,"status":"done"}`),
		say("", "update_step", `{"id":9,"status":"done"}`),
	}}
	h := start(t, g, b, nil, nil)
	var last agent.Event
	for i := 0; i < 3; i++ {
		last = h.next("notes", func(ev agent.Event) bool { return ev.Type == agent.EventNotes && ev.Step == 1 })
	}
	if !strings.Contains(last.Notes.Text, "Dig where it glitters.") || len(last.Notes.Plan) != 2 ||
		last.Notes.Plan[0].Status != "done" {
		t.Fatalf("notes view = %+v", last.Notes)
	}
	h.next("idle", isState(agent.Idle))
	text := allText(h.request(1))
	if !strings.Contains(text, "Dig where it glitters.") || !strings.Contains(text, "1. [done] go north") {
		t.Fatalf("the next prompt lacks the notes and plan:\n%s", text)
	}
	var bad string
	for _, m := range h.request(2).Messages {
		if m.Role == agent.RoleTool {
			bad = m.Content
		}
	}
	if !strings.Contains(bad, "9") {
		t.Fatalf("an unknown plan step was answered %q", bad)
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}

func TestPauseAndStopWhileDeciding(t *testing.T) {
	t.Parallel()
	g := &gridGame{}
	// The model's first answer waits for the pause: on a busy machine the runner could
	// otherwise be at step 2's question before the pause is sent.
	sent := make(chan struct{})
	b := &scriptBrain{replies: []scripted{say("", "look", `{}`), say("", "move", `{"direction":"N"}`)},
		hold: func(i int) {
			if i == 0 {
				<-sent
			}
		}}
	h := start(t, g, b, nil, nil)
	h.send(agent.Command{Cmd: agent.CmdPause})
	close(sent)
	h.next("paused", isState(agent.Paused))
	h.send(agent.Command{Cmd: agent.CmdResume})
	h.proposed("move")
	h.next("deciding", isState(agent.Deciding))
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
	rec, err := h.sess.Recover()
	if err != nil || len(rec.Pending) != 1 {
		t.Fatalf("after a stop while deciding, pending = %+v, %v; want the move", rec.Pending, err)
	}
	if err := h.r.Send(agent.Command{Cmd: agent.CmdResume}); err == nil {
		t.Fatal("Send to a stopped runner succeeded")
	}
}
