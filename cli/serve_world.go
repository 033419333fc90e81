package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/coplayhq/coplay/game/mcpserve"
	"github.com/coplayhq/coplay/notes"
	"github.com/coplayhq/coplay/notes/record"
)

// servedWorld is a served world's notebook side (coplay serve): a league whose seats
// are sessions, each keeping its seat's saved state (committed after each of the seat's
// acts) and journaling its joins and leaves as notices. A restart on the same notebook
// finds the league by name and goes on from every seat's last state.
type servedWorld struct {
	book     *notes.Book
	name     string
	sessions map[string]*notes.Session

	mu     sync.Mutex // closed, acts
	closed bool
	acts   map[string]int // acts committed by seat, this run
}

// servedModel is what a served seat's session records as its model: its agent is
// elsewhere.
const servedModel = "served over MCP"

// openServedWorld finds the league name in book (then its seats and game must be
// these) or makes it, a session a seat. It returns each seat's last saved state (none
// for a new world). A new league's sessions are removed again if opening it fails
// later (forget).
func openServedWorld(book *notes.Book, name, gameName string, seats []string) (*servedWorld, map[string][]byte, error) {
	w := &servedWorld{book: book, name: name, sessions: map[string]*notes.Session{}, acts: map[string]int{}}
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

// historyEvery is how often a seat's commit goes into its session's state history:
// the saves between are kept as their changes from the history's newest, which cost
// more to find the further the world has moved on (with every commit the tail of
// thousands of acts, a commit cost most of a served world's CPU).
const historyEvery = 16

// commit keeps a seat's saved state (mcpserve.Config.Commit), with its act as a notice
// in the seat's journal, in one transaction.
func (w *servedWorld) commit(c mcpserve.Save) error {
	s, err := w.session(c.Seat)
	if err != nil {
		return err
	}
	if c.Act == "" {
		return s.SaveState(c.State)
	}
	w.mu.Lock()
	w.acts[c.Seat]++
	history := w.acts[c.Seat]%historyEvery == 1
	w.mu.Unlock()
	rec, err := noticeRecord(c.Act)
	if err != nil {
		return err
	}
	_, err = s.Commit(notes.Batch{Records: []notes.Record{rec}, State: c.State, History: history})
	return err
}

// notice journals text in seat's session, as the runner journals a notice.
func (w *servedWorld) notice(seat, text string) error {
	s, err := w.session(seat)
	if err != nil {
		return err
	}
	rec, err := noticeRecord(text)
	if err != nil {
		return err
	}
	_, err = s.Append(rec)
	return err
}

// noticeRecord is a notice's journal record, as the runner writes one (through the
// record format's owner).
func noticeRecord(text string) (notes.Record, error) {
	data, err := record.Encode(record.TypeNotice, record.Data{Text: text})
	return notes.Record{Type: record.TypeNotice, Data: data}, err
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
