package eval

import (
	"context"
	"errors"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/league"
	"github.com/coplayhq/coplay/notes"
)

// seatRun is one seat of an episode as it plays: its name ("" for a single episode's
// one seat), its game and brain, and how its events are counted.
type seatRun struct {
	name string
	st   *Setup
	m    meter
	// also is handed each of the seat's events after the meter (a league seat's
	// SeatResult.Count); may be nil.
	also func(agent.Event)
}

// playSeats plays an episode's seats in book, every call approved: a runner a seat,
// each in a session of its own (a single episode's "eval", a league seat's
// "eval-SEAT"), steered as one league (package league: a single episode is a league
// of one unnamed seat), the seats of a league waiting in one approval queue. Each
// seat's meter counts its events, keeps it going and takes its last look once every
// seat has stopped. An error is one that kept the episode from starting.
func playSeats(ctx context.Context, book *notes.Book, j Job, seats []*seatRun) error {
	var gate *agent.Gate // a single episode's runner has a queue of its own
	name, session := "", func(string) string { return "eval" }
	if len(seats) > 1 {
		gate = agent.NewGate()
		name, session = leagueName, func(seat string) string { return leagueName + "-" + seat }
	}
	var ls []league.Seat
	bySeat := map[string]*seatRun{}
	for _, s := range seats {
		r, err := newRunner(book, session(s.name), j, s.st, gate)
		if err != nil {
			return err
		}
		ls = append(ls, league.Seat{Name: s.name, Runner: r})
		bySeat[s.name] = s
	}
	l, err := league.New(name, ls)
	if err != nil {
		return err
	}
	runErr := make(chan error, 1)
	go func() { runErr <- l.Run(ctx) }()
	for ev := range l.Events() {
		s := bySeat[ev.Seat]
		s.m.event(func(c agent.Command) error { c.Seat = s.name; return l.Send(c) }, ev)
		if s.also != nil {
			s.also(ev)
		}
	}
	errs := seatErrors(<-runErr)
	for _, s := range seats {
		if err := errs[s.name]; err != nil && s.m.ep.Error == "" {
			s.m.ep.Error = err.Error()
		}
		s.m.finish(ctx, s.st)
	}
	return nil
}

// seatErrors splits what League.Run returned by seat ("" for a lone seat's).
func seatErrors(err error) map[string]error {
	out := map[string]error{}
	list := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	}
	for _, e := range list {
		var se *league.SeatError
		switch {
		case errors.As(e, &se):
			out[se.Seat] = se.Err
		case e != nil:
			out[""] = e
		}
	}
	return out
}
