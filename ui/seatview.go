package ui

import (
	"time"

	"github.com/coplayhq/coplay/agent"
)

// seatView is one agent's part of the screen: what its panes, its status bar, its hint
// and its notifications show, and where they are scrolled. The Model holds one for each
// seat of a league and one for a lone run (seats.list), and never moves their state in
// or out of its own fields: the code that folds an event in, or sends a decision, is
// handed the view it is for. A new part of a seat's screen is a field here, and every
// seat has its own by construction.
type seatView struct {
	SeatInfo // the seat's name and model; empty for a lone run

	world worldView
	notes notesView
	log   logView
	calls callBook  // the calls waiting for a decision and running (calls.go)
	ask   askPane   // a server's questions and requests to use the model (elicit.go)
	run   runState  // step, state, wait, handing over (status.go)
	spend spend     // the bill (spend.go)
	rules *ruleBook // the seat's rules and their dialog (rules.go)

	// seq is the last seq of the journal the screen opened with: later copies of those
	// events (a resumed runner shows what still waits again) are not logged twice.
	seq uint64
	// lastArrival is when the seat's last call or question appeared: its grace period.
	lastArrival time.Time
	// stateText is why the seat's runner is in its state (a spend cap), from its last
	// state event; loopText why its play paused for a loop, until it runs again. The
	// notifier reads them (notify.go).
	stateText, loopText string
	// trigger is the last thing the game sent this seat (a message, a battle), for the
	// notifier while the person plays it (it is theirs to answer); triggerSeq its seq.
	trigger    string
	triggerSeq uint64
}

// newSeatView is the part of the screen of seat si (the zero SeatInfo for a lone run)
// before its first event.
func newSeatView(m *Model, si SeatInfo) *seatView {
	v := &seatView{SeatInfo: si, calls: newCallBook(), rules: newRuleBook(&m.st, m.keys, m.info)}
	v.rules.seat = si.Name
	v.log.st = &m.st
	v.world.legendHint = firstKey(m.keys.Legend) + ": legend"
	v.ask.st, v.ask.km, v.ask.watch = &m.st, m.keys, m.info.ReadOnly
	return v
}

// observe takes what the runner said of its state and of a loop it caught, for the
// notifier.
func (v *seatView) observe(ev agent.Event) {
	switch ev.Type {
	case agent.EventState:
		v.stateText = ev.Text
		if ev.State != agent.Paused {
			v.loopText = ""
		}
	case agent.EventLoop:
		v.loopText = ev.Text
	case agent.EventTrigger:
		v.trigger, v.triggerSeq = ev.Text, ev.Seq
		if ev.Trigger != nil {
			v.trigger = ev.Trigger.String()
		}
	}
}

// waiting is how many of the seat's calls and questions wait for the person.
func (v *seatView) waiting() int { return len(v.calls.pending) + len(v.ask.items) }
