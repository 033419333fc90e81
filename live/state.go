package live

import (
	"sort"

	"github.com/coplayhq/coplay/agent"
)

// state is what a late subscriber needs to draw the screen the owner sees: the latest
// event of each kind that holds state, what still waits for a person, and the last
// events for the log.
//
// A league's stream (package league) holds several seats, each numbering its own events:
// the state is kept a seat apart, an event is known by its seat and seq, and the state so
// far is put in the order of the events' times (each seat's order is its seq order).
type state struct {
	seen    int
	latest  map[stickyKey]agent.Event // the newest of each sticky kind, a seat
	waiting map[string]agent.Event    // call or question id -> the event that asks
	recent  []agent.Event             // the last keepRecent events, oldest first
	seats   bool                      // an event carried a seat: the stream is a league's
}

// stickyKey names the newest event of a kind, of a seat ("" outside a league).
type stickyKey struct {
	seat string
	kind agent.EventType
}

// sticky are the kinds of event whose newest one is the current state of something.
var sticky = []agent.EventType{
	agent.EventStarted, agent.EventObservation, agent.EventStep, agent.EventNotes,
	agent.EventUsage, agent.EventState, agent.EventRules, agent.EventCatalog,
	agent.EventKeepPlaying, agent.EventWaiting, agent.EventNotice, agent.EventWheel,
}

func newState() state {
	return state{latest: map[stickyKey]agent.Event{}, waiting: map[string]agent.Event{}}
}

// add takes one event of the runner's stream.
func (s *state) add(ev agent.Event) {
	if ev.Type == agent.EventTextDelta {
		return // the whole text follows as a text event
	}
	s.seen++
	s.seats = s.seats || ev.Seat != ""
	for _, k := range sticky {
		if ev.Type == k {
			s.latest[stickyKey{ev.Seat, k}] = ev
		}
	}
	switch ev.Type {
	case agent.EventProposed, agent.EventToolUpdated:
		if ev.Call != nil && ev.Call.NeedsOK {
			s.waiting[ev.Call.ID] = ev
		} else if ev.Call != nil {
			delete(s.waiting, ev.Call.ID)
		}
	case agent.EventDecision:
		if ev.Decision != nil {
			delete(s.waiting, ev.Decision.CallID)
		}
	case agent.EventToolStart, agent.EventResult, agent.EventOutcomeUnknown:
		if ev.Call != nil {
			delete(s.waiting, ev.Call.ID)
		}
	case agent.EventElicitation:
		if ev.Elicitation != nil {
			s.waiting[ev.Elicitation.ID] = ev
		}
	case agent.EventAnswered:
		if ev.Elicitation != nil {
			delete(s.waiting, ev.Elicitation.ID)
		}
	case agent.EventStep:
		// A new step: nothing of the seat's last one waits any more.
		for id, w := range s.waiting {
			if w.Seat == ev.Seat {
				delete(s.waiting, id)
			}
		}
	}
	s.recent = append(s.recent, ev)
	if len(s.recent) > keepRecent {
		s.recent = append(s.recent[:0], s.recent[len(s.recent)-keepRecent:]...)
	}
}

// catchUp is the state so far as a list of events in the runner's order: each once.
func (s *state) catchUp() []agent.Event {
	type key struct {
		seat string
		seq  uint64
	}
	known := map[key]bool{}
	var order []agent.Event
	take := func(ev agent.Event) {
		k := key{ev.Seat, ev.Seq}
		if known[k] && ev.Seq != 0 {
			return // seq 0 (events after a journal failure) carry no record to match
		}
		known[k] = true
		order = append(order, ev)
	}
	for _, ev := range s.latest {
		take(ev)
	}
	for _, ev := range s.waiting {
		take(ev)
	}
	for _, ev := range s.recent {
		take(ev)
	}
	if s.seats {
		sort.SliceStable(order, func(i, j int) bool { return order[i].Time.Before(order[j].Time) })
		return order
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].Seq < order[j].Seq })
	return order
}
