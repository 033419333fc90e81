package live

import (
	"testing"
	"time"

	"github.com/coplayhq/coplay/agent"
)

// A league's stream numbers each seat's events on its own: the state so far keeps both
// seats' events with the same seq, with what the runners say waits, in time order.
func TestStateKeepsSeatsApart(t *testing.T) {
	s := newState()
	t0 := time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)
	ev := func(seat string, seq uint64, typ agent.EventType, at int) agent.Event {
		return agent.Event{Seat: seat, Seq: seq, Type: typ, Time: t0.Add(time.Duration(at) * time.Second), Step: 1}
	}
	heron := ev("Heron", 5, agent.EventProposed, 1)
	heron.Call = &agent.Call{ID: "Heron/c1", NeedsOK: true}
	finch := ev("Finch", 5, agent.EventProposed, 2)
	finch.Call = &agent.Call{ID: "Finch/c1", NeedsOK: true}
	s.add(ev("Heron", 4, agent.EventObservation, 0))
	s.add(heron)
	s.add(finch)
	s.add(ev("Finch", 6, agent.EventStep, 3))
	for range keepRecent {
		s.add(ev("Finch", 7, agent.EventTextDelta, 4)) // not kept: the text follows
	}
	got, ahead := s.catchUp([]agent.Event{heron})
	var order []string
	for _, e := range got {
		order = append(order, e.Seat+":"+string(e.Type))
	}
	want := []string{"Heron:observation", "Heron:tool_proposed", "Finch:tool_proposed", "Finch:step"}
	if len(order) != len(want) || len(ahead) != 0 {
		t.Fatalf("catch-up %v (ahead %v), want %v", order, ahead, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("catch-up %v, want %v (both seats' seq 5, in time order)", order, want)
		}
	}
}
