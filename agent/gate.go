package agent

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/coplayhq/coplay/game"
)

// Gate is the approval queue: the calls of one or more runners (each a seat, named by
// its session) on their way to a decision, and the one place a call is settled. A
// decision comes from a person (a decide command), an approval rule or the policy
// (policy.go); whichever is first settles the call, and any decision after it is told
// it lost (*LostError) and changes nothing. A person's decision settles the call as it
// is sent (Runner.Send), on the sender's goroutine, so a second screen's decision is
// refused to that screen alone, before it reaches the runner. Everyone who watches (the
// screen, headless, a second client, package live's catch-up for a screen that attaches
// late) reads the same Queue, oldest first.
//
// A Gate is safe for use by several goroutines: a runner settles on its Run goroutine,
// Send and the watchers read it from theirs. Several runners may share one
// (Config.Gate); a runner without one makes its own.
type Gate struct {
	mu    sync.Mutex
	calls map[gateKey]*gateCall
	n     uint64 // orders the queue
}

// Waiting is a call waiting for a person's decision, as the queue shows it.
type Waiting struct {
	Seat  string    // the runner's session
	Call  Call      // as proposed (or revised)
	Since time.Time // when it was put to the person
	// Event is the newest event that put the call to the person (tool_proposed, or
	// tool_updated after a revise or a new dry run) as its reader received it, seq and
	// all; zero until the runner has sent it.
	Event Event
}

// LostError is a decision that came after the call was settled: the first one stands.
type LostError struct {
	CallID string
	First  Decision // the decision that settled it
}

func (e *LostError) Error() string {
	by := e.First.By
	if e.First.Via != "" {
		by += " on " + e.First.Via
	}
	return fmt.Sprintf("call %q was decided already (%s by %s): this decision came second and is dropped",
		e.CallID, e.First.Decision, by)
}

type gateKey struct{ seat, id string }

// gateCall is a call the gate knows of, from its proposal until its batch ends.
type gateCall struct {
	call    Call
	tool    game.Tool // what an edit or revise is validated against
	asked   time.Time // zero until put to the person
	order   uint64
	settled *Decision // the first decision; a person's from the moment it is sent (claim)
	shown   Event     // the newest event that put it to the person, as sent
}

// NewGate returns an empty approval queue.
func NewGate() *Gate { return &Gate{calls: map[gateKey]*gateCall{}} }

// Queue returns the calls waiting for a person's decision, from every seat, oldest
// first.
func (g *Gate) Queue() []Waiting {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []*gateCall
	seats := map[*gateCall]string{}
	for k, c := range g.calls {
		if !c.asked.IsZero() && c.settled == nil {
			out = append(out, c)
			seats[c] = k.seat
		}
	}
	slices.SortFunc(out, func(a, b *gateCall) int { return cmp.Compare(a.order, b.order) })
	w := make([]Waiting, len(out))
	for i, c := range out {
		w[i] = Waiting{Seat: seats[c], Call: c.call, Since: c.asked, Event: c.shown}
	}
	return w
}

// open makes a seat's call known to the gate, undecided.
func (g *Gate) open(seat string, call Call, tool game.Tool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calls[gateKey{seat, call.ID}] = &gateCall{call: call, tool: tool}
}

// ask puts a seat's open call to the person (or shows it again, revised).
func (g *Gate) ask(seat string, call Call, now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	c := g.calls[gateKey{seat, call.ID}]
	if c == nil {
		c = &gateCall{}
		g.calls[gateKey{seat, call.ID}] = c
	}
	c.call = call
	if c.asked.IsZero() {
		g.n++
		c.asked, c.order = now, g.n
	}
}

// waiting returns the tool of a seat's call that waits for a person's decision.
func (g *Gate) waiting(seat, id string) (game.Tool, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	c := g.calls[gateKey{seat, id}]
	if c == nil || c.asked.IsZero() || c.settled != nil {
		return game.Tool{}, false
	}
	return c.tool, true
}

// shown records the event that put a seat's waiting call to the person, as its reader
// received it (the Queue hands it to a screen that attaches later).
func (g *Gate) shown(seat string, ev Event) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if c := g.calls[gateKey{seat, ev.Call.ID}]; c != nil && !c.asked.IsZero() && c.settled == nil {
		c.shown = ev
	}
}

// claim settles a seat's waiting call with a person's decision as it is sent, before
// the runner applies it: a decision sent after it, from any screen, gets a *LostError
// at once. The claim it returns goes with the command to the Run goroutine, whose
// settle makes it final (or release gives the call back, when the command never got
// there).
func (g *Gate) claim(seat string, d Decision) (*Decision, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	c := g.calls[gateKey{seat, d.CallID}]
	if err := c.unsettled(d.CallID, true); err != nil {
		return nil, err
	}
	c.settled = &d
	return c.settled, nil
}

// release gives back a call claimed by a decision that never reached the runner.
func (g *Gate) release(seat, id string, claim *Decision) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if c := g.calls[gateKey{seat, id}]; c != nil && c.settled == claim {
		c.settled = nil
	}
}

// settle is the one place a call is decided, by a person, a rule or the policy: the
// first decision stands, a later one gets a *LostError; a call the gate does not know
// (its batch ended, or it was never proposed) is an error too. A person's decision
// comes with the claim its command made when it was sent: it settles the call it
// claimed, now as the runner applies it (an approve of a revised call becomes an edit).
func (g *Gate) settle(seat string, d Decision, claim *Decision) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	c := g.calls[gateKey{seat, d.CallID}]
	if claim != nil && c != nil && c.settled == claim {
		*c.settled = d
		return nil
	}
	if err := c.unsettled(d.CallID, d.By == "person"); err != nil {
		return err
	}
	c.settled = &d
	return nil
}

// refusal says why a decision on a seat's call cannot be taken: it was settled first,
// or no such call waits.
func (g *Gate) refusal(seat, id string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.calls[gateKey{seat, id}].unsettled(id, true); err != nil {
		return err
	}
	return fmt.Errorf("no call %q is waiting for a decision", id)
}

// unsettled is nil when c may still be decided (by a person: once it was put to one).
func (c *gateCall) unsettled(id string, person bool) error {
	switch {
	case c != nil && c.settled != nil:
		return &LostError{CallID: id, First: *c.settled}
	case c == nil || person && c.asked.IsZero():
		return fmt.Errorf("no call %q is waiting for a decision", id)
	}
	return nil
}

// close forgets a seat's calls: its batch ended (run, answered or left pending for the
// next run).
func (g *Gate) close(seat string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for k := range g.calls {
		if k.seat == seat {
			delete(g.calls, k)
		}
	}
}

// settleAsSent settles what a checked command decides as it is sent, on the sender's
// goroutine: a decision claims its call in the gate, an answer its question on the desk
// (asks). A second one, from any screen, is refused here, to its sender alone. release
// gives the call or question back if the command then never reaches the Run goroutine.
func settleAsSent(g *Gate, asks *askState, seat string, c *command) (release func(), err error) {
	switch c.Cmd {
	case CmdDecide:
		d := Decision{CallID: c.CallID, Decision: c.Decision, Reason: c.Reason, Args: c.valid.Args(), By: "person", Via: c.Via}
		claim, err := g.claim(seat, d)
		if err != nil {
			return nil, fmt.Errorf("decide: %w", err)
		}
		c.claim = claim
		return func() { g.release(seat, c.CallID, claim) }, nil
	case CmdAnswer:
		return asks.claim(c.ID, c.Via)
	}
	return func() {}, nil
}
