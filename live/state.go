package live

import (
	"sort"

	"github.com/coplayhq/coplay/agent"
)

// state is what a late subscriber needs to draw the screen the owner sees: the latest
// event of each kind that holds state and the last events for the log. What still
// waits for a person is not kept here: it is the runner's (agent.Input.Waiting, from the
// agent.Gate's queue), asked for when a subscriber comes.
//
// A league's stream (package league) holds several seats, each numbering its own events:
// the state is kept a seat apart, an event is known by its seat and seq, and the state so
// far is put in the order of the events' times (each seat's order is its seq order).
type state struct {
	seen   int
	latest map[stickyKey]agent.Event // the newest of each sticky kind, a seat
	recent []agent.Event             // the last keepRecent events, oldest first
	seats  bool                      // an event carried a seat: the stream is a league's
	passed map[string]uint64         // seat -> the highest seq the pump has passed
}

// stickyKey names the newest event of a kind, of a seat ("" outside a league).
type stickyKey struct {
	seat string
	kind agent.EventType
}

// eventKey names one event of the stream: seqs are a seat's own.
type eventKey struct {
	seat string
	seq  uint64
}

func keyOf(ev agent.Event) eventKey { return eventKey{ev.Seat, ev.Seq} }

// sticky are the kinds of event whose newest one is the current state of something.
var sticky = []agent.EventType{
	agent.EventStarted, agent.EventObservation, agent.EventStep, agent.EventNotes,
	agent.EventUsage, agent.EventState, agent.EventRules, agent.EventCatalog,
	agent.EventKeepPlaying, agent.EventWaiting, agent.EventNotice, agent.EventWheel,
}

func newState() state {
	return state{latest: map[stickyKey]agent.Event{}, passed: map[string]uint64{}}
}

// add takes one event of the runner's stream.
func (s *state) add(ev agent.Event) {
	if ev.Type == agent.EventTextDelta {
		return // the whole text follows as a text event
	}
	s.seen++
	s.seats = s.seats || ev.Seat != ""
	s.passed[ev.Seat] = max(s.passed[ev.Seat], ev.Seq)
	for _, k := range sticky {
		if ev.Type == k {
			s.latest[stickyKey{ev.Seat, k}] = ev
		}
	}
	s.recent = append(s.recent, ev)
	if len(s.recent) > keepRecent {
		s.recent = append(s.recent[:0], s.recent[len(s.recent)-keepRecent:]...)
	}
}

// catchUp is the state so far as a list of events in the runner's order, each once,
// with waiting (what waits for a person now, as the runner says). A waiting event the
// pump has not passed yet is still on its way, and comes in the stream: it is left
// out, unless it carries an earlier seq (a call shown again on resume with its first
// one), which is then also returned in ahead, for the subscriber to skip when it comes.
func (s *state) catchUp(waiting []agent.Event) (order []agent.Event, ahead map[eventKey]bool) {
	known := map[eventKey]bool{}
	take := func(ev agent.Event) {
		k := keyOf(ev)
		if known[k] && ev.Seq != 0 {
			return // seq 0 (events after a journal failure) carry no record to match
		}
		known[k] = true
		order = append(order, ev)
	}
	for _, ev := range s.latest {
		take(ev)
	}
	for _, ev := range s.recent {
		take(ev)
	}
	for _, ev := range waiting {
		k := keyOf(ev)
		switch {
		case known[k]:
		case ev.Seq > s.passed[ev.Seat]:
			continue // on its way in the stream
		default:
			if ahead == nil {
				ahead = map[eventKey]bool{}
			}
			ahead[k] = true
		}
		take(ev)
	}
	if s.seats {
		sort.SliceStable(order, func(i, j int) bool { return order[i].Time.Before(order[j].Time) })
		return order, ahead
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].Seq < order[j].Seq })
	return order, ahead
}
