package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/coplayhq/coplay/agent"
)

// Runner is what the hub shares: a runner's event stream and its command input
// (*agent.Runner).
type Runner interface {
	Events() <-chan agent.Event
	Send(agent.Command) error
}

// Hub shares one runner among several watchers: the screen or headless writer of the
// coplay that plays, and any number of attached ones (a second terminal, SSH).
//
// Its delivery guarantees:
//   - every subscriber receives the events the runner emits after it subscribed, in the
//     runner's order, each once; a late subscriber first receives the state so far (see
//     Subscribe);
//   - the first subscriber, the owner's own screen or writer, is never dropped: the
//     hub waits for it, as the runner waited for its one reader before. Any other
//     subscriber that falls more than its buffer behind is dropped, its channel closed
//     with Sub.Err saying why: a slow laptop never holds up play.
//
// The hub is also the one place a person's decision is settled between screens: the
// first decide (or answer) for a call wins, and a later one from any screen is refused
// to its sender alone, naming where the first was made.
type Hub struct {
	r Runner

	mu      sync.Mutex
	subs    []*Sub
	known   state
	settled map[string]string // call or question id -> where it was decided
	closed  bool
	done    chan struct{}
}

// keepRecent is how many past events a late subscriber receives for its log.
const keepRecent = 200

// attachedBuffer is how far an attached subscriber may fall behind before it is
// dropped.
const attachedBuffer = 4096

// NewHub starts sharing r. Subscribe the owner's own reader first, before r runs:
// nothing is buffered for a subscriber that is not there yet.
func NewHub(r Runner) *Hub {
	h := &Hub{r: r, settled: map[string]string{}, done: make(chan struct{}), known: newState()}
	go h.pump()
	return h
}

// Done is closed once the runner's stream has ended and every subscriber's channel is
// closed.
func (h *Hub) Done() <-chan struct{} { return h.done }

// pump copies the runner's events to every subscriber.
func (h *Hub) pump() {
	for ev := range h.r.Events() {
		h.mu.Lock()
		h.known.add(ev)
		h.settle(ev)
		subs := slices.Clone(h.subs)
		h.mu.Unlock()
		for _, s := range subs {
			s.deliver(ev)
		}
	}
	h.mu.Lock()
	h.closed = true
	subs := h.subs
	h.subs = nil
	h.mu.Unlock()
	for _, s := range subs {
		s.end(nil)
	}
	close(h.done)
}

// settle records where a call or question was decided, from the runner's own word.
func (h *Hub) settle(ev agent.Event) {
	switch {
	case ev.Type == agent.EventDecision && ev.Decision != nil:
		via := ev.Decision.Via
		if via == "" {
			via = ev.Decision.By
		}
		h.settled[ev.Decision.CallID] = via
	case ev.Type == agent.EventAnswered && ev.Elicitation != nil:
		h.settled[ev.Elicitation.ID] = "another screen"
	}
}

// Subscribe adds a watcher named via ("screen", "stdin", "attach", "ssh:KEY"): the
// name its decisions carry. The owner's own reader subscribes first and is never
// dropped; later ones get the state so far first: the latest of each kind of state
// (the world, the notes, the rules, usage, the runner's state), every call and
// question still waiting for a person, and the last events for the log, in the
// runner's order. readOnly subscribers may watch but not send.
func (h *Hub) Subscribe(via string, readOnly bool) *Sub {
	h.mu.Lock()
	defer h.mu.Unlock()
	owner := len(h.subs) == 0 && !h.closed && h.known.seen == 0
	s := &Sub{hub: h, via: via, readOnly: readOnly, owner: owner, quit: make(chan struct{})}
	if owner {
		s.ch = make(chan agent.Event)
	} else {
		s.ch = make(chan agent.Event, attachedBuffer)
		for _, ev := range h.known.catchUp() {
			s.ch <- ev
		}
	}
	if h.closed {
		close(s.ch)
		return s
	}
	h.subs = append(h.subs, s)
	return s
}

// Sub is one watcher of a hub. It satisfies ui.Agent.
type Sub struct {
	hub      *Hub
	via      string
	readOnly bool
	owner    bool
	ch       chan agent.Event
	quit     chan struct{} // closed by Close: an owner's blocked delivery gives up

	// mu is held while an event is handed over and while the channel is closed, so the
	// two never meet.
	mu    sync.Mutex
	ended bool
	err   error
}

// Events returns the subscriber's events; the channel is closed when the runner's
// stream ends, when the subscriber is dropped, or on Close.
func (s *Sub) Events() <-chan agent.Event { return s.ch }

// ReadOnly says the subscriber may watch but not steer.
func (s *Sub) ReadOnly() bool { return s.readOnly }

// Via is the name the subscriber's decisions carry.
func (s *Sub) Via() string { return s.via }

// Err says why the channel was closed early (nil when the run ended or on Close).
func (s *Sub) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// ErrStopFromAfar is the refusal of a stop from any screen but the one of the coplay
// that plays: the others detach when they quit.
var ErrStopFromAfar = errors.New("only the coplay that plays can stop the game; this screen detaches when it quits")

// ErrReadOnly is the refusal of a command from a watcher that may only watch.
var ErrReadOnly = errors.New("this screen may watch but not steer")

// Send gives the runner a command from this watcher, marked with where it comes from.
// A decision or answer for a call another screen already settled is refused here,
// naming that screen.
func (s *Sub) Send(c agent.Command) error {
	if s.readOnly {
		return ErrReadOnly
	}
	if c.Cmd == agent.CmdStop && !s.owner {
		// A second screen that quits only detaches; the game plays on.
		return ErrStopFromAfar
	}
	c.Via = s.via
	if id := settleID(c); id != "" {
		h := s.hub
		h.mu.Lock()
		where, done := h.settled[id]
		if !done {
			// Claimed now: a second screen's decision that comes before the runner's
			// own event is refused the same way.
			h.settled[id] = s.via
		}
		h.mu.Unlock()
		if done {
			return fmt.Errorf("%s was already decided (%s): this decision was not used", id, where)
		}
		if err := h.r.Send(c); err != nil {
			h.mu.Lock()
			if h.settled[id] == s.via {
				delete(h.settled, id) // refused by the runner (a bad edit): still open
			}
			h.mu.Unlock()
			return err
		}
		return nil
	}
	return s.hub.r.Send(c)
}

// settleID is the call or question a command settles, if it settles one.
func settleID(c agent.Command) string {
	switch c.Cmd {
	case agent.CmdDecide:
		return c.CallID
	case agent.CmdAnswer:
		return c.ID
	}
	return ""
}

// Close ends the subscription: its channel is closed and it receives nothing more.
func (s *Sub) Close() {
	s.mu.Lock()
	select {
	case <-s.quit:
	default:
		close(s.quit)
	}
	s.mu.Unlock()
	s.hub.remove(s)
	s.end(nil)
}

// deliver hands ev to the subscriber: waiting for the owner (until it closes),
// dropping anyone else who has fallen a whole buffer behind.
func (s *Sub) deliver(ev agent.Event) {
	if s.owner {
		// Not under mu: Close must be able to take it while this waits.
		select {
		case <-s.quit:
			return
		default:
		}
		s.mu.Lock()
		ended := s.ended
		s.mu.Unlock()
		if ended {
			return
		}
		select {
		case s.ch <- ev:
		case <-s.quit:
		}
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	select {
	case s.ch <- ev:
	default:
		s.ended = true
		s.err = fmt.Errorf("dropped: this screen fell %d events behind the game", attachedBuffer)
		close(s.ch)
		go s.hub.remove(s)
	}
}

// remove forgets a subscriber.
func (h *Hub) remove(s *Sub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.subs = slices.DeleteFunc(h.subs, func(x *Sub) bool { return x == s })
}

// end closes the subscriber's channel once.
func (s *Sub) end(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	s.ended, s.err = true, err
	if !s.owner {
		close(s.ch)
		return
	}
	// The owner's channel is closed only by the pump's goroutine (its one sender), or
	// once the pump can no longer send to it.
	select {
	case <-s.quit:
		// Close: the pump may be between its check and its send; it gives up on quit
		// and never sends again, but the channel stays open for it to find quit.
	default:
		close(s.ch)
	}
}

// Preview previews the person's move for this watcher's screen (agent.Previewer), when
// the runner can: a move line's dry run. A screen that may only watch has no moves.
func (s *Sub) Preview(ctx context.Context, seat, tool string, args json.RawMessage) agent.MovePreview {
	p, ok := s.hub.r.(agent.Previewer)
	if s.readOnly || !ok {
		return agent.MovePreview{}
	}
	return p.Preview(ctx, seat, tool, args)
}
