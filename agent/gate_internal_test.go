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
	if err := g.settle("bob", Decision{CallID: "c2", Decision: Approve, By: "person"}, nil); err == nil {
		t.Fatal("a person decided a call never put to one")
	}
	if err := g.settle("alice", Decision{CallID: "c1", Decision: Veto, By: "person", Via: "screen"}, nil); err != nil {
		t.Fatal(err)
	}
	var lost *LostError
	err := g.settle("alice", Decision{CallID: "c1", Decision: Approve, By: "person", Via: "second screen"}, nil)
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

// A person's decision settles its call as it is sent (claim): a second one is told at
// once, naming where the first was made; the runner's settle makes the claim final; a
// claim given back (the command never reached the runner) leaves the call waiting.
func TestGateSettlesAPersonsDecisionAsItIsSent(t *testing.T) {
	t.Parallel()
	g := NewGate()
	move := game.Tool{Name: "move", Kind: game.Act}
	g.open("s", Call{ID: "c1", Tool: "move"}, move)
	g.ask("s", Call{ID: "c1", Tool: "move"}, time.Now())
	g.shown("s", Event{Seq: 7, Type: EventProposed, Call: &Call{ID: "c1", Tool: "move", NeedsOK: true}})
	if q := g.Queue(); len(q) != 1 || q[0].Event.Seq != 7 {
		t.Fatalf("queue = %+v, want the call with the event that showed it", q)
	}
	claim, err := g.claim("s", Decision{CallID: "c1", Decision: Approve, By: "person", Via: "attach"})
	if err != nil {
		t.Fatal(err)
	}
	if q := g.Queue(); len(q) != 0 {
		t.Fatalf("a claimed call still waits: %+v", q)
	}
	_, err = g.claim("s", Decision{CallID: "c1", Decision: Veto, By: "person", Via: "screen"})
	var lost *LostError
	if !errors.As(err, &lost) || lost.First.Via != "attach" || err.Error() != `call "c1" was decided already (approve by person on attach): this decision came second and is dropped` {
		t.Fatalf("second claim: %v", err)
	}
	g.release("s", "c1", claim)
	if q := g.Queue(); len(q) != 1 {
		t.Fatal("a claim given back left the call settled")
	}
	claim, _ = g.claim("s", Decision{CallID: "c1", Decision: Approve, By: "person", Via: "screen"})
	if err := g.settle("s", Decision{CallID: "c1", Decision: Edit, Args: []byte(`{}`), By: "person", Via: "screen"}, claim); err != nil {
		t.Fatalf("the runner's settle of its own claim: %v", err)
	}
	if err := g.settle("s", Decision{CallID: "c1", Decision: Approve, By: "person"}, nil); !errors.As(err, &lost) || lost.First.Decision != Edit {
		t.Fatalf("after the settle: %v, want the edit to stand", err)
	}
}
