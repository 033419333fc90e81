package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/coplayhq/coplay/notes"
)

// servedWorld is a served world's notebook side (coplay serve): a league whose seats
// are sessions, each keeping its seat's saved state (committed after each of the seat's
// acts) and journaling its joins and leaves as notices. A restart on the same notebook
// finds the league by name and goes on from every seat's last state.
type servedWorld struct {
	book     *notes.Book
	name     string
	sessions map[string]*notes.Session

	mu     sync.Mutex // closed
	closed bool
}

// servedModel is what a served seat's session records as its model: its agent is
// elsewhere.
const servedModel = "served over MCP"

// openServedWorld finds the league name in book (then its seats and game must be
// these) or makes it, a session a seat. It returns each seat's last saved state (none
// for a new world). A new league's sessions are removed again if opening it fails
// later (forget).
func openServedWorld(book *notes.Book, name, gameName string, seats []string) (*servedWorld, map[string][]byte, error) {
	w := &servedWorld{book: book, name: name, sessions: map[string]*notes.Session{}}
	info, err := book.LeagueInfo(name)
	switch {
	case errors.Is(err, notes.ErrNotFound):
		return w, nil, w.create(gameName, seats)
	case err != nil:
		return nil, nil, err
	}
	var had []string
	for _, s := range info.Seats {
		had = append(had, s.Seat)
		if s.Game != gameName {
			return nil, nil, usagef("the world %s in %s is a %s world, not %s: serve it with --game %s, or pass --name with another world's name", name, book.Path(), s.Game, gameName, s.Game)
		}
	}
	if !sameSet(had, seats) {
		return nil, nil, usagef("the world %s in %s has the seats %s, not %s: serve it with those seats (--seat each), or pass --name with another world's name", name, book.Path(), strings.Join(had, ", "), strings.Join(seats, ", "))
	}
	states := map[string][]byte{}
	for _, s := range info.Seats {
		sess, err := book.Session(s.Name)
		if err != nil {
			return nil, nil, err
		}
		if states[s.Seat], err = sess.State(); err != nil {
			return nil, nil, fmt.Errorf("seat %s's saved world: %w", s.Seat, err)
		}
		w.sessions[s.Seat] = sess
	}
	return w, states, nil
}

// create makes a session for every seat, in the league.
func (w *servedWorld) create(gameName string, seats []string) error {
	for _, seat := range seats {
		sess, err := w.book.Create(w.name+"-"+seat, gameName, servedModel)
		if err == nil {
			w.sessions[seat] = sess
			err = sess.SetLeague(w.name, seat)
		}
		if err != nil {
			return errors.Join(fmt.Errorf("seat %s: %w", seat, err), w.forget())
		}
	}
	return nil
}

// forget removes the sessions a new world made, when it could not be opened after all.
func (w *servedWorld) forget() error {
	var errs []error
	for _, s := range w.sessions {
		errs = append(errs, w.book.Delete(s.Name()))
	}
	w.sessions = map[string]*notes.Session{}
	return errors.Join(errs...)
}

// commit keeps seat's saved state (mcpserve.Config.Commit).
func (w *servedWorld) commit(seat string, state []byte) error {
	s, err := w.session(seat)
	if err != nil {
		return err
	}
	return s.SaveState(state)
}

// notice journals text in seat's session, as the runner journals a notice.
func (w *servedWorld) notice(seat, text string) error {
	s, err := w.session(seat)
	if err != nil {
		return err
	}
	data, err := json.Marshal(struct {
		Text string `json:"text"`
	}{text})
	if err != nil {
		return err
	}
	_, err = s.Append(notes.Record{Type: "notice", Data: data})
	return err
}

// session is seat's session, unless the world is closed.
func (w *servedWorld) session(seat string) (*notes.Session, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, errors.New("the notebook is closed")
	}
	s := w.sessions[seat]
	if s == nil {
		return nil, fmt.Errorf("no seat %q in the world %s", seat, w.name)
	}
	return s, nil
}

// close stops writing: what comes later (a session leaving as the server stops) is not
// journaled.
func (w *servedWorld) close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
}

// sameSet reports whether a and b hold the same names, in any order.
func sameSet(a, b []string) bool {
	return len(a) == len(b) && !slices.ContainsFunc(a, func(s string) bool { return !slices.Contains(b, s) })
}
