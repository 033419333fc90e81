package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/keymap"
)

// readOnlyHint is what a screen that may only watch says of a key that would steer.
const readOnlyHint = "this screen only watches: deciding, advice, pause and rules need a steering key"

// The line above the status bar says, in one line, what the person can do now: decide
// the call that waits, resume an agent that waits for them, or, while it plays, advise
// it, pause it, read the log whole, read the map's legend. From the first screen on, a
// newcomer sees their next move there, and "?" for the rest.

// situation is what the hint depends on.
type situation struct {
	state   agent.State
	calls   bool // calls wait for a decision
	asking  bool // a server's question waits
	stopped bool // the agent has finished
	watch   bool // this screen may watch but not steer (a watch key over SSH)
	// attached: a second screen, which detaches when it quits
	attached bool
	// In a league: the focused seat, and whether another seat waits for the person.
	seat       string
	othersWait bool
	// ownSeat: the focused seat is the person's own (--seat NAME=person): there is no
	// agent to hand the wheel to.
	ownSeat bool
}

// nextMoves is the hint's lead and its keys for s.
func nextMoves(km *keymap.KeyMap, s situation) (string, []key.Binding) {
	help := one(km.Help, "all keys")
	quit := one(km.Quit, "quit")
	if s.attached {
		quit = one(km.Quit, "detach")
	}
	switch {
	case s.watch && s.calls:
		return "a call waits (watching only):", []key.Binding{one(km.Details, "see it whole"), quit, help}
	case s.watch:
		return "watching only:", []key.Binding{one(km.Details, "read the log whole"), one(km.Legend, "map legend"), quit, help}
	case s.stopped:
		return "the agent has finished:", []key.Binding{one(km.Details, "read the log whole"), quit, help}
	case s.asking:
		return "answer the server's question above, or", []key.Binding{one(km.Advise, "advise"), help}
	case s.calls:
		return "decide the call above:", []key.Binding{one(km.Approve, "approve"), one(km.Veto, "veto"), one(km.Edit, "edit"),
			one(km.Details, "see it whole"), one(km.Advise, "advise"), help}
	case s.state == agent.PersonPlays && s.ownSeat:
		return "your seat:", []key.Binding{one(km.Move, "your move"), one(km.Details, "read the log whole"),
			one(km.Legend, "map legend"), help}
	case s.state == agent.PersonPlays:
		return "you hold the wheel:", []key.Binding{one(km.Move, "your move"), one(km.TakeWheel, "hand it back"),
			one(km.Advise, "ask ?…"), one(km.Details, "read the log whole"), help}
	case resumable(s.state):
		return "the agent waits for you:", []key.Binding{one(km.Pause, "resume"), one(km.Advise, "advise"),
			one(km.Move, "your move"), one(km.Details, "read the log whole"), help}
	}
	return "the agent plays:", []key.Binding{one(km.Advise, "advise"), one(km.Pause, "pause"),
		one(km.Move, "your move"), one(km.Details, "read the log whole"), one(km.Legend, "map legend"), help}
}

// one is b with help for the hint: its first key only ("/", not "/ or tab"; an arrow
// as an arrow), and desc.
func one(b key.Binding, desc string) key.Binding {
	k := firstKey(b)
	if arrow, ok := arrows[k]; ok {
		k = arrow
	}
	return key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(k, desc))
}

// arrows are the arrow keys as the hint shows them.
var arrows = map[string]string{"up": "↑", "down": "↓", "left": "←", "right": "→"}

// hintLine draws the hint for s in w columns.
func hintLine(st *styles, km *keymap.KeyMap, s situation, w int) string {
	lead, keys := nextMoves(km, s)
	if s.seat != "" {
		lead, keys = seatMoves(km, s, lead, keys)
	}
	return fitLine(st, lead, keys, w)
}

// seatMoves is the hint in a league: the focused seat in place of "the agent", and the
// seat keys after the first moves (after deciding a call's three), before what gives
// way first on a narrow terminal.
func seatMoves(km *keymap.KeyMap, s situation, lead string, keys []key.Binding) (string, []key.Binding) {
	lead = strings.Replace(lead, "the agent", s.seat, 1)
	seatKeys := []key.Binding{one(km.NextSeat, "next seat")}
	if s.othersWait {
		seatKeys = append([]key.Binding{one(km.NextWaiting, "next waiting")}, seatKeys...)
	}
	at := min(2, len(keys))
	if s.calls && !s.watch {
		at = min(3, len(keys))
	}
	return lead, append(keys[:at:at], append(seatKeys, keys[at:]...)...)
}
