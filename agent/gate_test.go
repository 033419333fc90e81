package agent_test

import (
	"path/filepath"
	"testing"

	"github.com/coplayhq/coplay/agent"
)

// Two runners (two sessions, two seats) share one gate: their calls wait in one queue,
// oldest first and labelled by seat, even with the same call id; a decision sent to one
// runner settles its own call only, and a second decision on it is refused.
func TestTwoRunnersShareOneApprovalQueue(t *testing.T) {
	t.Parallel()
	book, alice := createSession(t, filepath.Join(t.TempDir(), "coplay.db"), "alice", "grid", "script")
	bob, err := book.Create("bob", "grid", "script")
	if err != nil {
		t.Fatal(err)
	}
	gate := agent.NewGate()
	shared := func(c *agent.Config) { c.Gate = gate }
	north := func() *scriptBrain {
		return &scriptBrain{replies: []scripted{say("North.", "move", `{"direction":"N"}`), say("Done.")}}
	}
	ha := start(t, &gridGame{}, north(), alice, shared)
	ca := ha.proposed("move")
	ha.next("alice waits", isState(agent.Deciding))
	hb := start(t, &gridGame{}, north(), bob, shared)
	cb := hb.proposed("move")
	hb.next("bob waits", isState(agent.Deciding))

	q := gate.Queue()
	if len(q) != 2 || q[0].Seat != "alice" || q[0].Call.ID != ca.ID || q[1].Seat != "bob" || q[1].Call.ID != cb.ID {
		t.Fatalf("queue = %+v, want alice's %s then bob's %s", q, ca.ID, cb.ID)
	}
	hb.send(agent.Command{Cmd: agent.CmdDecide, CallID: cb.ID, Decision: agent.Approve, Via: "screen"})
	if d := hb.next("bob's decision", is(agent.EventDecision)); d.Decision.CallID != cb.ID || d.Decision.Via != "screen" {
		t.Fatalf("decision = %+v", d.Decision)
	}
	if q := gate.Queue(); len(q) != 1 || q[0].Seat != "alice" {
		t.Fatalf("after bob's decision the queue is %+v, want alice's call alone", q)
	}
	if err := hb.r.Send(agent.Command{Cmd: agent.CmdDecide, CallID: cb.ID, Decision: agent.Veto}); err == nil {
		t.Fatal("a second decision on bob's call was taken")
	}
	hb.next("bob's result", is(agent.EventResult))
	ha.send(agent.Command{Cmd: agent.CmdDecide, CallID: ca.ID, Decision: agent.Veto, Reason: "not now"})
	if d := ha.next("alice's decision", is(agent.EventDecision)); d.Decision.Decision != agent.Veto {
		t.Fatalf("alice's decision = %+v", d.Decision)
	}
}
