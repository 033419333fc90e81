package live

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/internal/lines"
)

// Hello is what an attached client learns before any event: what is played, as the
// owner's screen names it, and what the screen needs to check edits as they are typed.
type Hello struct {
	Game      string            `json:"game"`
	Brain     string            `json:"brain"`
	Session   string            `json:"session"`
	Banner    string            `json:"banner,omitempty"`
	Tools     []game.Tool       `json:"tools,omitempty"`
	Rules     []agent.FixedRule `json:"rules,omitempty"`
	MaxTokens int64             `json:"max_tokens,omitempty"`
	MaxCost   float64           `json:"max_cost,omitempty"`
	PriceFrom string            `json:"price_from,omitempty"`
	// Seats are a league's seats, for the seat bar (none outside a league).
	Seats []Seat `json:"seats,omitempty"`
}

// Seat is a league's seat as an attached screen shows it.
type Seat struct {
	Name  string `json:"name"`
	Model string `json:"model,omitempty"`
}

// ServeAttach registers "attach": a second screen, or a headless client, on the hub's
// runner. After the reply and a Hello line, the client receives the state so far and
// then every event, one JSON object a line (docs/PROTOCOL.md), and sends commands the
// same way. Its decisions are marked "attach". An attached client may approve, veto,
// edit, advise, pause and resume; stopping the game is left to the coplay that plays
// it (an attached screen that quits only detaches).
func (s *Server) ServeAttach(h *Hub, hello Hello) {
	s.Handle("attach", func(ctx context.Context, conn *Conn, req Request) error {
		if req.Session != "" && req.Session != hello.Session {
			return fmt.Errorf("this coplay plays %s, not %s", hello.Session, req.Session)
		}
		sub := h.Subscribe("attach", false)
		defer sub.Close()
		if err := conn.Reply(Reply{Playing: []string{hello.Session}}); err != nil {
			return err
		}
		// A client that takes nothing for attachStall is dropped, as the hub drops one
		// that falls too far behind: neither holds anything up but itself.
		w := &lineWriter{w: stallWriter{conn.Conn, attachStall}}
		if err := w.write(hello); err != nil {
			return err
		}
		go readCommands(NewLines(conn.Reader()), sub, w) // the same bufio.Reader: nothing buffered is lost
		for {
			select {
			case ev, ok := <-sub.Events():
				if !ok {
					return io.EOF
				}
				if ev.Type == agent.EventTextDelta {
					continue
				}
				if err := w.write(ev); err != nil {
					return io.EOF // the client went away
				}
			case <-ctx.Done():
				return io.EOF
			}
		}
	})
}

// readCommands passes an attached client's commands to the hub; a refusal is told to
// that client alone, as an error event. A line over MaxLine is refused the same way,
// and the lines after it are read as usual.
func readCommands(in *lines.Reader, sub *Sub, w *lineWriter) {
	for {
		line, err := in.Next()
		var long *LineTooLongError
		if err != nil && !errors.As(err, &long) {
			return // the client's input ended
		}
		line = bytes.TrimSpace(line)
		if err == nil && len(line) == 0 {
			continue
		}
		if err == nil {
			var c agent.Command
			if c, err = agent.ParseCommand(line); err == nil {
				err = sub.Send(c)
			}
		}
		if err != nil {
			w.write(agent.Event{Type: agent.EventError, Time: time.Now(), Text: fmt.Sprintf("attach line %d: %v", in.N, err)})
		}
	}
}

// attachStall is how long an attached client may take no bytes before it is dropped.
const attachStall = time.Minute

// lineWriter writes JSON lines from several goroutines.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, err = l.w.Write(append(b, '\n'))
	return err
}

// Remote is a runner reached through the socket of the coplay that plays it: the
// attached side. It satisfies ui.Agent.
type Remote struct {
	Hello Hello

	conn   net.Conn
	events chan agent.Event
	done   chan struct{} // closed by Close: the reader stops handing events on
	once   sync.Once
	w      lineWriter
	err    error
}

// Attach connects to the coplay that plays in the notebook at notebook (the session
// named session, or whichever it plays when session is ""). It returns ErrNoOwner when
// none does. Events() then delivers the state so far and every later event.
func Attach(ctx context.Context, notebook, session string) (*Remote, error) {
	c, r, _, err := Dial(ctx, notebook, Request{Op: "attach", Session: session})
	if err != nil {
		return nil, err
	}
	line, err := r.ReadBytes('\n')
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("live: the coplay playing in %s said nothing after accepting: %w", notebook, err)
	}
	rm := &Remote{conn: c, events: make(chan agent.Event, 256), done: make(chan struct{})}
	rm.w.w = c
	if err := json.Unmarshal(line, &rm.Hello); err != nil {
		c.Close()
		return nil, fmt.Errorf("live: the coplay playing in %s sent %q: %w", notebook, line, err)
	}
	go rm.read(r)
	return rm, nil
}

// read decodes the owner's event lines until the connection ends.
func (rm *Remote) read(r *bufio.Reader) {
	defer close(rm.events)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<26)
	for sc.Scan() {
		var ev agent.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			rm.err = fmt.Errorf("live: a line from the coplay that plays: %w", err)
			return
		}
		select {
		case rm.events <- ev:
		case <-rm.done:
			return
		}
	}
	select {
	case <-rm.done: // detached: the connection was closed here
	default:
		rm.err = sc.Err()
	}
}

// Events returns the runner's events; the channel closes when the coplay that plays
// ends or the connection breaks (see Err).
func (rm *Remote) Events() <-chan agent.Event { return rm.events }

// Err says why the events ended early, once they have.
func (rm *Remote) Err() error { return rm.err }

// Send sends a command to the coplay that plays. Its refusals come back as error
// events.
func (rm *Remote) Send(c agent.Command) error {
	line, err := agent.MarshalCommand(c)
	if err != nil {
		return err
	}
	if len(line) > MaxLine {
		return fmt.Errorf("not sent: %v", tooLong(len(line)))
	}
	rm.w.mu.Lock()
	defer rm.w.mu.Unlock()
	_, err = rm.w.w.Write(append(line, '\n'))
	return err
}

// SendLine sends one command line as a person typed it (coplay attach --headless): the
// coplay that plays parses it, and says what is wrong with it in an error event.
func (rm *Remote) SendLine(line []byte) error {
	line = bytes.TrimSpace(line)
	if len(line) > MaxLine {
		return tooLong(len(line))
	}
	rm.w.mu.Lock()
	defer rm.w.mu.Unlock()
	_, err := rm.w.w.Write(append(line, '\n'))
	return err
}

// Close detaches.
func (rm *Remote) Close() error {
	rm.once.Do(func() { close(rm.done) })
	return rm.conn.Close()
}
