package agent_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/notes"
	"github.com/coplayhq/coplay/notes/record"
)

func TestResumeAsksAgainForPendingCalls(t *testing.T) {
	t.Parallel()
	g := &gridGame{}
	first := start(t, g, &scriptBrain{replies: []scripted{say("", "move", `{"direction":"E"}`)}}, nil, nil)
	c := first.proposed("move")
	first.next("deciding", isState(agent.Deciding))
	if err := first.finish(); err != nil {
		t.Fatal(err)
	}

	b := &scriptBrain{replies: []scripted{say("Moved, good.")}}
	h := start(t, g, b, first.sess, nil)
	again := h.proposed("move")
	if again.ID != c.ID || !again.NeedsOK {
		t.Fatalf("re-shown call = %+v, want %s waiting for a decision", again, c.ID)
	}
	if len(b.requests()) != 0 {
		t.Fatal("the model was asked before the pending call was decided")
	}
	sawWorld := false
	for _, ev := range h.seen {
		sawWorld = sawWorld || ev.Type == agent.EventObservation
	}
	if !sawWorld {
		t.Fatalf("the re-shown call came before any observation of the world: %s", h.trail())
	}
	h.send(agent.Command{Cmd: agent.CmdDecide, CallID: c.ID, Decision: agent.Approve})
	h.next("result", is(agent.EventResult))
	if got := g.callLog(); len(got) != 1 || got[0] != `move {"direction":"E"}` {
		t.Fatalf("game calls = %v", got)
	}
	if msg, ok := toolMessage(h.request(0), c.ID); !ok || !strings.Contains(msg, "moved to (1,0)") {
		t.Fatalf("the model was not told the recovered call's result: %q", msg)
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}

func TestResumeNeverReplaysACallOfUnknownOutcome(t *testing.T) {
	t.Parallel()
	sess := newSession(t)
	journalApprovedDig(t, sess, "c9", notes.Record{Type: record.TypeToolStart, Step: 1, CallID: "c9"})
	g := &gridGame{}
	b := &scriptBrain{replies: []scripted{say("I will look first.")}}
	h := start(t, g, b, sess, nil)
	e := h.next("error", is(agent.EventError))
	if !strings.Contains(e.Text, "c9") || !strings.Contains(e.Text, "unknown") {
		t.Fatalf("error = %q", e.Text)
	}
	h.next("outcome unknown", is(agent.EventOutcomeUnknown))
	msg, ok := toolMessage(h.request(0), "c9")
	if !ok || !strings.Contains(msg, "outcome unknown") || !strings.Contains(msg, "observe before acting") {
		t.Fatalf("the model was told %q", msg)
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
	if len(g.callLog()) != 0 {
		t.Fatalf("a call of unknown outcome was replayed: %v", g.callLog())
	}
	if rec, _ := sess.Recover(); len(rec.Unknown)+len(rec.Pending) != 0 {
		t.Fatalf("still open after the report: %+v", rec)
	}
}

// A call decided to run whose start was never journaled did not run: it is reported as
// not executed (never as of unknown outcome) and is not run on resume either.
func TestResumeReportsACallThatNeverStartedAsNotExecuted(t *testing.T) {
	t.Parallel()
	sess := newSession(t)
	journalApprovedDig(t, sess, "c7")
	g := &gridGame{}
	b := &scriptBrain{replies: []scripted{say("I will look first.")}}
	h := start(t, g, b, sess, nil)
	res := h.next("result", is(agent.EventResult))
	if res.Call == nil || res.Call.ID != "c7" || res.Call.Tool != "dig" || res.Result == nil || res.Result.Err == nil ||
		!strings.Contains(res.Result.Err.Message, "not executed") {
		t.Fatalf("result = %+v", res)
	}
	msg, ok := toolMessage(h.request(0), "c7")
	if !ok || !strings.Contains(msg, "not executed") || strings.Contains(msg, "unknown") {
		t.Fatalf("the model was told %q", msg)
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
	for _, ev := range h.seen {
		if ev.Type == agent.EventOutcomeUnknown {
			t.Fatalf("a call that never started was reported as of unknown outcome: %s", h.trail())
		}
	}
	if len(g.callLog()) != 0 {
		t.Fatalf("a call that never started was run on resume: %v", g.callLog())
	}
	if rec, _ := sess.Recover(); len(rec.Unknown)+len(rec.Pending)+len(rec.NotStarted) != 0 {
		t.Fatalf("still open after the report: %+v", rec)
	}
}

// A resumed session gives the model its recent conversation back: what it said, the
// calls it made and what came of them (a result, a veto with its reason).
func TestResumeCarriesTheConversationOn(t *testing.T) {
	t.Parallel()
	g := &gridGame{}
	first := start(t, g, &scriptBrain{replies: []scripted{
		say("Going east, then north.", "move", `{"direction":"E"}`, "move", `{"direction":"N"}`),
	}}, nil, nil)
	east, north := first.proposed("move"), first.proposed("move")
	first.send(agent.Command{Cmd: agent.CmdDecide, CallID: east.ID, Decision: agent.Approve})
	first.send(agent.Command{Cmd: agent.CmdDecide, CallID: north.ID, Decision: agent.Veto, Reason: "north is a swamp"})
	first.next("idle after the turn", isState(agent.Idle))
	if err := first.finish(); err != nil {
		t.Fatal(err)
	}

	b := &scriptBrain{replies: []scripted{say("Where was I?")}}
	h := start(t, g, b, first.sess, nil)
	h.send(agent.Command{Cmd: agent.CmdResume})
	req := h.request(0)
	said := false
	for _, m := range req.Messages {
		said = said || (m.Role == agent.RoleAssistant && strings.Contains(m.Content, "Going east, then north.") && len(m.ToolCalls) == 2)
	}
	if !said {
		t.Fatalf("the resumed prompt lacks the model's last message and calls: %+v", req.Messages)
	}
	if msg, ok := toolMessage(req, east.ID); !ok || !strings.Contains(msg, "moved to (1,0)") {
		t.Fatalf("result of the approved call after resume: %q, %v", msg, ok)
	}
	if msg, ok := toolMessage(req, north.ID); !ok || !strings.Contains(msg, "vetoed by the person: north is a swamp") {
		t.Fatalf("veto after resume: %q, %v", msg, ok)
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}

// Calls recovered after a restart go through the same pipeline as a live step's: they
// run as approved, the world is observed after each, and the ones still waiting get
// their dry run again on that world.
func TestRecoveredCallsRunAsApprovedWithFreshDryRuns(t *testing.T) {
	t.Parallel()
	g := &gridGame{}
	first := start(t, g, &scriptBrain{replies: []scripted{say("", "move", `{"direction":"E"}`, "move", `{"direction":"W"}`)}}, nil, nil)
	first.proposed("move")
	first.proposed("move")
	first.next("deciding", isState(agent.Deciding))
	if err := first.finish(); err != nil {
		t.Fatal(err)
	}

	h := start(t, g, &scriptBrain{}, first.sess, nil)
	e, w := h.proposed("move"), h.proposed("move")
	h.send(agent.Command{Cmd: agent.CmdDecide, CallID: e.ID, Decision: agent.Approve})
	h.next("result", is(agent.EventResult))
	h.next("the world after it", is(agent.EventObservation))
	up := h.next("the second call's new dry run", is(agent.EventToolUpdated))
	if up.Call.ID != w.ID || up.Call.Simulation == nil || !strings.Contains(up.Call.Simulation.Summary, "(0,0)") || up.Call.Simulation.Warning != "" {
		t.Fatalf("tool_updated = %+v %+v", up.Call, up.Call.Simulation)
	}
	if got := g.callLog(); len(got) != 1 {
		t.Fatalf("game calls %v; want only the approved one", got)
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
}

// journalApprovedDig journals what an earlier run left of a dig call id in step 1: its
// proposal and the person's approval, then the records given.
func journalApprovedDig(t *testing.T, sess *notes.Session, id string, then ...notes.Record) {
	t.Helper()
	call := agent.Call{ID: id, Tool: "dig", Args: json.RawMessage(`{}`)}
	prop, _ := json.Marshal(agent.Event{Type: agent.EventProposed, Call: &call})
	dec, _ := json.Marshal(agent.Decision{CallID: id, Decision: agent.Approve, By: "person"})
	recs := append([]notes.Record{
		{Type: record.TypeProposed, Step: 1, CallID: id, Data: prop},
		{Type: record.TypeDecision, Step: 1, CallID: id, Data: dec},
	}, then...)
	for _, r := range recs {
		if _, err := sess.Append(r); err != nil {
			t.Fatal(err)
		}
	}
}
