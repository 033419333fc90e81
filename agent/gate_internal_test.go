package agent

import (
	"errors"
	"testing"
	"time"

	"github.com/coplayhq/coplay/game"
)

// Two seats share one gate: the queue shows both seats' waiting calls, oldest first;
// the first decision on a call settles it and a second is told it lost; a person cannot
// decide a call that was never put to one; a seat's batch ending forgets its calls only.
func TestGateIsOneQueueForSeveralSeats(t *testing.T) {
	t.Parallel()
	g := NewGate()
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	move := game.Tool{Name: "move", Kind: game.Act}
	g.open("alice", Call{ID: "c1", Tool: "move"}, move)
	g.open("bob", Call{ID: "c1", Tool: "move"}, move)
	g.open("bob", Call{ID: "c2", Tool: "move"}, move)
	g.ask("bob", Call{ID: "c1", Tool: "move"}, t0)
	g.ask("alice", Call{ID: "c1", Tool: "move"}, t0.Add(time.Second))

	q := g.Queue()
	if len(q) != 2 || q[0].Seat != "bob" || q[1].Seat != "alice" {
		t.Fatalf("queue = %+v, want bob's call then alice's", q)
	}
	if err := g.settle("bob", Decision{CallID: "c2", Decision: Approve, By: "person"}); err == nil {
		t.Fatal("a person decided a call never put to one")
	}
	if err := g.settle("alice", Decision{CallID: "c1", Decision: Veto, By: "person", Via: "screen"}); err != nil {
		t.Fatal(err)
	}
	var lost *LostError
	err := g.settle("alice", Decision{CallID: "c1", Decision: Approve, By: "person", Via: "second screen"})
	if !errors.As(err, &lost) || lost.First.Decision != Veto || lost.First.Via != "screen" {
		t.Fatalf("second decision: %v, want a LostError naming the veto", err)
	}
	if !errors.As(g.refusal("alice", "c1"), &lost) {
		t.Fatal("refusal does not say the call was settled first")
	}
	if _, ok := g.waiting("alice", "c1"); ok {
		t.Fatal("a settled call still waits")
	}
	if _, ok := g.waiting("bob", "c1"); !ok {
		t.Fatal("bob's call, of the same id, stopped waiting")
	}
	g.close("alice")
	if q := g.Queue(); len(q) != 1 || q[0].Seat != "bob" {
		t.Fatalf("after alice's batch ended the queue is %+v", q)
	}
}
