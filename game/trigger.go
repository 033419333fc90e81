package game

import "time"

// Trigger is something in a game that should wake the agent: a message that arrives, a
// battle that starts, a market that moves, a ship that arrives, a schedule. The runner
// starts a turn for it when the agent is idle or waiting, and puts it into the next step
// when a turn is running.
type Trigger struct {
	// Type says what happened, dotted: "message.received", "battle.started",
	// "market.changed", "ship.arrived", "schedule".
	Type string `json:"type"`
	// Subject is what it is about, when it is about one thing: "battle-789", a member's
	// name, a ship's symbol.
	Subject string `json:"subject,omitempty"`
	// Text is one short line for the model and the log: "Mara: everyone fight in
	// battle 456!".
	Text string `json:"text"`
	// Time is when it happened, on the wall clock like Observation.Time (a world with a
	// faster clock of its own converts). A trigger from before the last observation is
	// dropped: the model has already seen the world after it. Zero: never dropped.
	Time time.Time `json:"time"`
}

// String returns "TYPE SUBJECT — TEXT", the form the model and the log read.
func (t Trigger) String() string {
	s := t.Type
	if t.Subject != "" {
		s += " " + t.Subject
	}
	if t.Text != "" {
		s += " — " + t.Text
	}
	return s
}

// Triggers is implemented by games that can wake the agent. Triggers returns the channel
// the game sends its events on; the same channel on every call. The game never blocks on
// it for long: when nobody reads, it drops the oldest events (or coalesces them), and it
// closes the channel when the game is closed.
type Triggers interface {
	Triggers() <-chan Trigger
}

// SendTrigger puts t on ch without ever blocking: when the buffer is full, the oldest
// waiting trigger is dropped to make room, as Triggers promises. ch must have a buffer
// and one sender at a time.
func SendTrigger(ch chan Trigger, t Trigger) {
	for {
		select {
		case ch <- t:
			return
		default:
		}
		select {
		case <-ch:
		default:
		}
	}
}
