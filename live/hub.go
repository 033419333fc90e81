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

// Runner is what the hub shares: a runner's event stream, its command input, and what
// waits for a person now (*league.League: a lone run is a league of one).
type Runner interface {
	Events() <-chan agent.Event
	// Send takes a command, or refuses it to its sender: a decision on a call another
	// screen decided first gets the agent.Gate's *agent.LostError.
	Send(agent.Command) error
	// Waiting returns the events that put to a person what waits for one now, as the
	// stream carried them (league.League.Waiting, from each runner's agent.Input.Waiting).
	Waiting() []agent.Event
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
// Decisions are not settled here: the runner's agent.Gate is the one place a call is
// settled, and it settles a person's decision as it is sent, so the first decide (or
// answer) for a call wins and a later one from any screen is refused by Send, to its
// sender alone, naming where the first was made.
type Hub struct {
	r Runner

	mu     sync.Mutex
	subs   []*Sub
	known  state
	closed bool
	done   chan struct{}
}

// keepRecent is how many past events a late subscriber receives for its log.
const keepRecent = 200

// attachedBuffer is how far an attached subscriber may fall behind before it is
// dropped.
const attachedBuffer = 4096

// NewHub starts sharing r. Subscribe the owner's own reader first, before r runs:
// nothing is buffered for a subscriber that is not there yet.
func NewHub(r Runner) *Hub {
	h := &Hub{r: r, done: make(chan struct{}), known: newState()}
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
		evs, ahead := h.known.catchUp(h.r.Waiting())
		for _, ev := range evs {
			s.ch <- ev
		}
		s.ahead = ahead
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
	// ahead are the events of the catch-up that the pump had not passed yet (a call
	// shown again on resume, with its first seq): not delivered a second time.
	ahead map[eventKey]bool

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
// A refusal (a decision or answer on a call another screen settled first names that
// screen) is returned to this watcher alone.
func (s *Sub) Send(c agent.Command) error {
	if s.readOnly {
		return ErrReadOnly
	}
	if c.Cmd == agent.CmdStop && !s.owner {
		// A second screen that quits only detaches; the game plays on.
		return ErrStopFromAfar
	}
	c.Via = s.via
	return s.hub.r.Send(c)
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
	if k := keyOf(ev); s.ahead[k] && ev.Type != agent.EventTextDelta { // a delta carries the last seq
		delete(s.ahead, k)
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
