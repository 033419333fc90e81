package live

import (
	"sort"

	"github.com/coplayhq/coplay/agent"
)

// state is what a late subscriber needs to draw the screen the owner sees: the latest
// event of each kind that holds state, what still waits for a person, and the last
// events for the log.
type state struct {
	seen    int
	latest  map[agent.EventType]agent.Event // the newest of each sticky kind
	waiting map[string]agent.Event          // call or question id -> the event that asks
	recent  []agent.Event                   // the last keepRecent events, oldest first
}

// sticky are the kinds of event whose newest one is the current state of something.
var sticky = []agent.EventType{
	agent.EventStarted, agent.EventObservation, agent.EventStep, agent.EventNotes,
	agent.EventUsage, agent.EventState, agent.EventRules, agent.EventCatalog,
	agent.EventKeepPlaying, agent.EventWaiting, agent.EventNotice,
}

func newState() state {
	return state{latest: map[agent.EventType]agent.Event{}, waiting: map[string]agent.Event{}}
}

// add takes one event of the runner's stream.
func (s *state) add(ev agent.Event) {
	if ev.Type == agent.EventTextDelta {
		return // the whole text follows as a text event
	}
	s.seen++
	for _, k := range sticky {
		if ev.Type == k {
			s.latest[k] = ev
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
		// A new step: nothing of the last one waits any more.
		clear(s.waiting)
	}
	s.recent = append(s.recent, ev)
	if len(s.recent) > keepRecent {
		s.recent = append(s.recent[:0], s.recent[len(s.recent)-keepRecent:]...)
	}
}

// catchUp is the state so far as a list of events in the runner's order: each once.
func (s *state) catchUp() []agent.Event {
	bySeq := map[uint64]agent.Event{}
	var order []agent.Event
	take := func(ev agent.Event) {
		if _, dup := bySeq[ev.Seq]; dup && ev.Seq != 0 {
			return // seq 0 (events after a journal failure) carry no record to match
		}
		bySeq[ev.Seq] = ev
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
	sort.SliceStable(order, func(i, j int) bool { return order[i].Seq < order[j].Seq })
	return order
}
