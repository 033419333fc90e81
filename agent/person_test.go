package agent_test

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/notes"
	"github.com/coplayhq/coplay/notes/record"
)

// isMove matches the event of type t of the person's own move.
func isMove(t agent.EventType) func(agent.Event) bool {
	return func(ev agent.Event) bool { return ev.Type == t && ev.Call != nil && ev.Call.By == agent.ByPerson }
}

// lastUser is the content of the last user message of req.
func lastUser(req agent.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if m := req.Messages[i]; m.Role == agent.RoleUser {
			return m.Content
		}
	}
	return ""
}

// assistantCalls lists the tools of every call an assistant message of req holds.
func assistantCalls(req agent.Request) []string {
	var out []string
	for _, m := range req.Messages {
		for _, c := range m.ToolCalls {
			out = append(out, c.Tool+" "+string(c.Args))
		}
	}
	return out
}

// The person's own move runs through the same path as an approved call, its events
// marked by the person, and the model reads it at its next request as the person's,
// with its result, in the last message: never as a call of its own.
func TestPersonsMoveRunsAndTheModelReadsIt(t *testing.T) {
	t.Parallel()
	g := &gridGame{}
	b := &scriptBrain{replies: []scripted{say("I look around.", "look", `{}`), say("Nothing more.")}}
	h := start(t, g, b, nil, nil)
	h.next("idle", isState(agent.Idle))

	h.send(agent.Command{Cmd: agent.CmdPlay, Tool: "move", Args: json.RawMessage(`{"direction":"E"}`)})
	started := h.next("the move's start", isMove(agent.EventToolStart))
	res := h.next("the move's result", isMove(agent.EventResult))
	if started.Call.ID != res.Call.ID || res.Result == nil || !res.Result.OK() || res.Result.Output != "moved to (1,0)" {
		t.Fatalf("move: start %+v, result %+v %+v", started.Call, res.Call, res.Result)
	}
	h.next("the world after the move", func(ev agent.Event) bool {
		return ev.Type == agent.EventObservation && strings.Contains(ev.Observation.Summary, "(1,0)")
	})
	for _, ev := range h.seen {
		if (ev.Type == agent.EventProposed || ev.Type == agent.EventDecision) && ev.Seq > started.Seq {
			t.Errorf("a move is neither proposed nor decided: %s %+v", ev.Type, ev.Decision)
		}
	}
	if n := len(b.requests()); n != 2 {
		t.Fatalf("%d model requests after the move, want 2: a move does not wake an idle agent", n)
	}
	h.send(agent.Command{Cmd: agent.CmdResume})
	req := h.request(2)
	last := lastUser(req)
	if !strings.Contains(last, "## Moves the person played") || !strings.Contains(last, `move {"direction":"E"} → moved to (1,0)`) {
		t.Errorf("the next request's last message does not carry the move:\n%s", last)
	}
	for _, c := range assistantCalls(req) {
		if strings.HasPrefix(c, "move ") {
			t.Errorf("an assistant message holds the person's move: %s", c)
		}
	}
	h.finish()
	if got := g.callLog(); len(got) != 2 || got[1] != `move {"direction":"E"}` {
		t.Errorf("the game got %q", got)
	}
}

// A move whose arguments do not fit is refused with every problem, to its sender alone
// (returned, never emitted), and nothing runs.
func TestPersonsInvalidMoveIsRefused(t *testing.T) {
	t.Parallel()
	g := &gridGame{}
	h := start(t, g, &scriptBrain{replies: []scripted{say("Waiting.")}}, nil, nil)
	h.next("idle", isState(agent.Idle))
	err := h.r.Send(agent.Command{Cmd: agent.CmdPlay, Tool: "move", Args: json.RawMessage(`{"direction":"UP","speed":2}`)})
	if err == nil || !strings.Contains(err.Error(), "direction") || !strings.Contains(err.Error(), "speed") || !strings.Contains(err.Error(), "nothing ran") {
		t.Fatalf("Send = %v, want a refusal naming direction and speed", err)
	}
	for _, tool := range []string{"wait", "dog"} {
		if err := h.r.Send(agent.Command{Cmd: agent.CmdPlay, Tool: tool}); err == nil {
			t.Errorf("play %s was taken", tool)
		}
	}
	h.finish()
	if got := g.callLog(); len(got) != 0 {
		t.Errorf("the game got %q", got)
	}
	for _, ev := range h.seen {
		if ev.Type == agent.EventError {
			t.Errorf("a refusal was also emitted: %s", ev.Text)
		}
	}
}

// A deny rule that matches refuses the move, naming the rule, unless it is forced; no
// approval rule gates the person's own move otherwise.
func TestPersonsMoveNeedsForceAgainstADenyRule(t *testing.T) {
	t.Parallel()
	g := &gridGame{}
	h := start(t, g, &scriptBrain{replies: []scripted{say("Waiting.")}}, nil, func(c *agent.Config) {
		c.Rules = []agent.FixedRule{{Line: "deny move(direction=W): the edge is west", From: "config.toml"}, {Line: "ask dig", From: "config.toml"}}
	})
	h.next("idle", isState(agent.Idle))
	h.send(agent.Command{Cmd: agent.CmdPlay, Tool: "move", Args: json.RawMessage(`{"direction":"W"}`)})
	refusal := h.next("the refusal", is(agent.EventError))
	if !strings.Contains(refusal.Text, "deny move(direction=W)") || !strings.Contains(refusal.Text, "force") {
		t.Errorf("refusal = %q", refusal.Text)
	}
	h.send(agent.Command{Cmd: agent.CmdPlay, Tool: "dig"})
	h.next("dig", isMove(agent.EventResult))
	h.send(agent.Command{Cmd: agent.CmdPlay, Tool: "move", Args: json.RawMessage(`{"direction":"W"}`), Force: true})
	h.next("the forced move", isMove(agent.EventResult))
	h.finish()
	if got := g.callLog(); strings.Join(got, ";") != `dig {};move {"direction":"W"}` {
		t.Errorf("the game got %q", got)
	}
}

// While calls wait for a decision, a move runs at once, and they still wait, dry-run
// again on the world it left.
func TestPersonsMoveLeavesWaitingCallsWaiting(t *testing.T) {
	t.Parallel()
	g := &gridGame{}
	h := start(t, g, &scriptBrain{replies: []scripted{say("Go west.", "move", `{"direction":"W"}`)}}, nil, nil)
	call := h.proposed("move")
	if !call.Simulation.Fails {
		t.Fatalf("the west move does not fail first: %+v", call.Simulation)
	}
	h.next("deciding", isState(agent.Deciding))
	h.send(agent.Command{Cmd: agent.CmdPlay, Tool: "move", Args: json.RawMessage(`{"direction":"E"}`)})
	h.next("the move's result", isMove(agent.EventResult))
	upd := h.next("the waiting call's new dry run", is(agent.EventToolUpdated))
	if upd.Call.ID != call.ID || upd.Call.Simulation.Fails || !upd.Call.NeedsOK {
		t.Errorf("update = %+v", upd.Call)
	}
	h.send(agent.Command{Cmd: agent.CmdDecide, CallID: call.ID, Decision: agent.Approve})
	h.next("the model's move", func(ev agent.Event) bool { return ev.Type == agent.EventResult && ev.Call.ID == call.ID })
	h.finish()
}

// A question is answered in words, at once while the agent is idle: the same tools,
// tool choice none, the question last; a call in the answer is dropped and said so;
// the question and answer stay in the conversation, and play does not resume.
func TestAskIsAnsweredInWords(t *testing.T) {
	t.Parallel()
	g := &gridGame{}
	b := &scriptBrain{replies: []scripted{
		say("I look around.", "look", `{}`),
		say("Done for now."),
		say("I looked because I could not see.", "dig", `{}`),
		say("Back to work.", "look", `{}`),
	}}
	h := start(t, g, b, nil, nil)
	h.next("idle", isState(agent.Idle))
	h.send(agent.Command{Cmd: agent.CmdAsk, Text: "why did you look?"})
	q := h.next("the question", is(agent.EventQuestion))
	dropped := h.next("the dropped call", is(agent.EventNotice))
	reply := h.next("the reply", is(agent.EventReply))
	if q.Text != "why did you look?" || reply.Text != "I looked because I could not see." {
		t.Errorf("question %q, reply %q", q.Text, reply.Text)
	}
	if !strings.Contains(dropped.Text, "dig") || !strings.Contains(dropped.Text, "dropped") {
		t.Errorf("notice = %q", dropped.Text)
	}
	reqs := b.requests()
	ask := reqs[2]
	if ask.ToolChoice != brain.ToolChoiceNone || len(ask.Tools) != len(reqs[1].Tools) {
		t.Errorf("the question's request: tool choice %q, %d tools (before: %d)", ask.ToolChoice, len(ask.Tools), len(reqs[1].Tools))
	}
	if last := lastUser(ask); !strings.Contains(last, "> why did you look?") {
		t.Errorf("the question's last message:\n%s", last)
	}
	// The conversation before the question is the one the last request sent, message
	// for message: only the answer to it and the question come after.
	if len(ask.Messages) != len(reqs[1].Messages)+2 {
		t.Fatalf("the question's request has %d messages, the one before %d", len(ask.Messages), len(reqs[1].Messages))
	}
	for i, m := range reqs[1].Messages {
		if a := ask.Messages[i]; a.Role != m.Role || a.Content != m.Content {
			t.Errorf("message %d differs: %s %q, before %s %q", i, a.Role, a.Content, m.Role, m.Content)
		}
	}
	// Nothing is proposed from the answer, and play does not resume for it.
	h.send(agent.Command{Cmd: agent.CmdResume})
	next := h.request(3)
	text := allText(next)
	if !strings.Contains(text, "why did you look?") || !strings.Contains(text, "I looked because I could not see.") {
		t.Errorf("the question and answer are not in the conversation afterwards:\n%s", text)
	}
	for _, c := range assistantCalls(next) {
		if strings.HasPrefix(c, "dig") {
			t.Errorf("the dropped call is in the conversation: %s", c)
		}
	}
	h.finish()
	for _, ev := range h.seen {
		if ev.Type == agent.EventProposed && ev.Call.Tool == "dig" {
			t.Errorf("a call of the answer was proposed: %+v", ev.Call)
		}
	}
	if got := g.callLog(); strings.Contains(strings.Join(got, ";"), "dig") {
		t.Errorf("the game got %q", got)
	}
}

// A question asked while a call waits for a decision is answered at once: the model
// reads its own step with the calls still waiting, and the call still waits after.
func TestAskWhileACallWaits(t *testing.T) {
	t.Parallel()
	g := &gridGame{}
	b := &scriptBrain{replies: []scripted{say("Go east.", "move", `{"direction":"E"}`), say("East has gold.")}}
	h := start(t, g, b, nil, nil)
	call := h.proposed("move")
	h.next("deciding", isState(agent.Deciding))
	h.send(agent.Command{Cmd: agent.CmdAsk, Text: "why east?"})
	h.next("the reply", is(agent.EventReply))
	ask := b.requests()[1]
	got, ok := toolMessage(ask, call.ID)
	if !ok || !strings.Contains(got, "waits for the person's decision") {
		t.Errorf("the waiting call reads %q in the question's request", got)
	}
	if lastUser(ask) == "" || ask.Messages[len(ask.Messages)-1].Role != agent.RoleUser {
		t.Errorf("the question is not last")
	}
	h.send(agent.Command{Cmd: agent.CmdDecide, CallID: call.ID, Decision: agent.Approve})
	h.next("the call's result", func(ev agent.Event) bool { return ev.Type == agent.EventResult && ev.Call.ID == call.ID })
	h.finish()
}

// Taking the wheel stops the model requests; moves go on; handing it back makes the
// next request carry every move, with a line saying the person played them.
func TestTakeOverHoldsTheModelAndHandsBackTheMoves(t *testing.T) {
	t.Parallel()
	g := &gridGame{}
	b := &scriptBrain{loop: true, replies: []scripted{say("Looking.", "look", `{}`)}}
	h := start(t, g, b, nil, func(c *agent.Config) { c.KeepPlaying = true })
	h.next("a look", func(ev agent.Event) bool { return ev.Type == agent.EventResult && ev.Call.Tool == "look" })
	h.send(agent.Command{Cmd: agent.CmdTakeOver, On: true})
	w := h.next("the wheel", is(agent.EventWheel))
	if w.Plays != agent.PlaysPerson {
		t.Fatalf("wheel = %+v", w)
	}
	h.next("the person plays", isState(agent.PersonPlays))
	before := len(b.requests())
	for _, d := range []string{"E", "E", "N"} {
		h.send(agent.Command{Cmd: agent.CmdPlay, Tool: "move", Args: json.RawMessage(`{"direction":"` + d + `"}`)})
		h.next("a move", isMove(agent.EventResult))
	}
	if n := len(b.requests()); n != before {
		t.Fatalf("%d model requests while the person held the wheel", n-before)
	}
	h.send(agent.Command{Cmd: agent.CmdTakeOver, On: false})
	if w := h.next("the wheel back", is(agent.EventWheel)); w.Plays != agent.PlaysAgent {
		t.Fatalf("wheel = %+v", w)
	}
	last := lastUser(h.request(before))
	if strings.Count(last, "move {") != 3 || !strings.Contains(last, "took the wheel") || !strings.Contains(last, "moved to (2,1)") {
		t.Errorf("the first request after the hand-back:\n%s", last)
	}
	h.finish()
}

// A seat of the person's own has no brain: the wheel is held for good, the world is
// shown, moves run, and there is nobody to ask or hand the wheel to.
func TestPersonSeatPlaysOnlyTheMoves(t *testing.T) {
	t.Parallel()
	g := &gridGame{now: time.Now}
	r, _ := newRunner(t, g, nil, nil, func(c *agent.Config) { c.Brain, c.Person = nil, true })
	h := &harness{t: t, r: r, done: make(chan error, 1)}
	go func() { h.done <- r.Run(t.Context()) }()
	h.next("the wheel", func(ev agent.Event) bool { return ev.Type == agent.EventWheel && ev.Plays == agent.PlaysPerson })
	h.next("the world", is(agent.EventObservation))
	h.next("the person plays", isState(agent.PersonPlays))
	if err := r.Send(agent.Command{Cmd: agent.CmdAsk, Text: "hello?"}); err == nil {
		t.Error("a question to a seat of the person's own was taken")
	}
	if err := r.Send(agent.Command{Cmd: agent.CmdTakeOver, On: false}); err == nil {
		t.Error("handing the wheel back on a seat of the person's own was taken")
	}
	h.send(agent.Command{Cmd: agent.CmdPlay, Tool: "dig"})
	h.next("the dig", isMove(agent.EventResult))
	h.finish()
	for _, ev := range h.seen {
		if ev.Type == agent.EventProposed || ev.Type == agent.EventStep {
			t.Errorf("a seat of the person's own had a %s", ev.Type)
		}
	}
}

// A resumed session's conversation has the person's question and its answer where they
// were asked, and the moves no request carried yet go with the first one.
func TestResumeKeepsTheQuestionsAndTheMoves(t *testing.T) {
	t.Parallel()
	g := &gridGame{}
	first := start(t, g, &scriptBrain{replies: []scripted{say("Waiting."), say("Because it is there.")}}, nil, nil)
	first.next("idle", isState(agent.Idle))
	first.send(agent.Command{Cmd: agent.CmdPlay, Tool: "move", Args: json.RawMessage(`{"direction":"E"}`)})
	first.next("east", isMove(agent.EventResult))
	first.send(agent.Command{Cmd: agent.CmdAsk, Text: "why wait?"})
	first.next("the reply", is(agent.EventReply))
	first.send(agent.Command{Cmd: agent.CmdPlay, Tool: "move", Args: json.RawMessage(`{"direction":"N"}`)})
	first.next("north", isMove(agent.EventResult))
	if err := first.finish(); err != nil {
		t.Fatal(err)
	}

	b := &scriptBrain{replies: []scripted{say("Resumed.")}}
	h := start(t, g, b, first.sess, nil)
	req := h.request(0)
	var asked, answered bool
	for _, m := range req.Messages {
		asked = asked || m.Role == agent.RoleUser && strings.Contains(m.Content, "> why wait?") && strings.Contains(m.Content, `move {"direction":"E"}`)
		answered = answered || m.Role == agent.RoleAssistant && m.Content == "Because it is there."
	}
	if !asked || !answered {
		t.Errorf("the resumed conversation lacks the question (%v) or its answer (%v):\n%s", asked, answered, allText(req))
	}
	last := lastUser(req)
	if !strings.Contains(last, `move {"direction":"N"} → moved to (1,1)`) || strings.Contains(last, `"E"`) {
		t.Errorf("the first request after the resume does not carry the move no request had:\n%s", last)
	}
	h.finish()
}

// The person's move whose start is journaled but not its result (coplay stopped while it
// ran) is an unknown outcome on resume, never replayed, and the model reads it as the
// person's.
func TestResumeNeverReplaysAPersonsMove(t *testing.T) {
	t.Parallel()
	sess := newSession(t)
	call := agent.Call{ID: "m1", Tool: "dig", Args: json.RawMessage(`{}`), By: agent.ByPerson}
	data, _ := json.Marshal(map[string]any{"call": map[string]any{"tool": call.Tool, "args": call.Args, "by": call.By}})
	if _, err := sess.Append(notes.Record{Type: record.TypeToolStart, Step: 1, CallID: "m1", Data: data}); err != nil {
		t.Fatal(err)
	}
	g := &gridGame{}
	b := &scriptBrain{replies: []scripted{say("I will look first.")}}
	h := start(t, g, b, sess, nil)
	u := h.next("outcome unknown", is(agent.EventOutcomeUnknown))
	if u.Call.Tool != "dig" || u.Call.By != agent.ByPerson {
		t.Errorf("unknown = %+v", u.Call)
	}
	req := h.request(0)
	if last := lastUser(req); !strings.Contains(last, "dig {} → "+"outcome unknown") {
		t.Errorf("the model reads:\n%s", last)
	}
	if calls := assistantCalls(req); len(calls) != 0 {
		t.Errorf("assistant calls: %v", calls)
	}
	h.finish()
	if len(g.callLog()) != 0 {
		t.Fatalf("the move was replayed: %v", g.callLog())
	}
}

// The move line's preview: the problems play would refuse the move with, else its dry
// run on the world as it is; nothing runs.
func TestPreviewChecksAndDryRunsAMove(t *testing.T) {
	t.Parallel()
	g := &gridGame{}
	h := start(t, g, &scriptBrain{replies: []scripted{say("Waiting.")}}, nil, nil)
	h.next("idle", isState(agent.Idle))
	bad := h.r.Preview(t.Context(), "", "move", json.RawMessage(`{"direction":"UP"}`))
	if len(bad.Problems) != 1 || bad.Problems[0].Path != "arguments.direction" || bad.Simulation != nil {
		t.Errorf("bad move: %+v", bad)
	}
	west := h.r.Preview(t.Context(), "", "move", json.RawMessage(`{"direction":"W"}`))
	if len(west.Problems) != 0 || west.Simulation == nil || !west.Simulation.Fails {
		t.Errorf("west: %+v", west)
	}
	if p := h.r.Preview(t.Context(), "", "wait", json.RawMessage(`{"seconds":5}`)); len(p.Problems) == 0 {
		t.Errorf("wait is no move: %+v", p)
	}
	if p := h.r.Preview(t.Context(), "", "dig", nil); len(p.Problems) != 0 || p.Simulation != nil {
		t.Errorf("dig: %+v", p)
	}
	h.finish()
	if got := g.callLog(); len(got) != 0 {
		t.Errorf("a preview ran %q", got)
	}
}

// Stdin ending while the person holds the wheel stops the run: nobody is left to play,
// even with play handed over.
func TestStdinEndsWhileThePersonHoldsTheWheel(t *testing.T) {
	t.Parallel()
	h := startHeadless(t, &gridGame{}, &scriptBrain{loop: true, replies: []scripted{say("Looking.", "look", `{}`)}}, nil,
		func(c *agent.Config) { c.KeepPlaying = true })
	h.next("a step", func(ev map[string]any) bool { return ev["type"] == "step" })
	io.WriteString(h.in, `{"cmd":"take_over","on":true}`+"\n")
	h.next("the person plays", func(ev map[string]any) bool { return ev["state"] == "person_plays" })
	h.in.Close()
	h.next("the stop", func(ev map[string]any) bool {
		return ev["state"] == "stopped" && strings.Contains(fmt.Sprint(ev["text"]), "stdin closed")
	})
}
