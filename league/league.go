// Package league steers every run of coplay: one runner a seat, sharing one approval
// queue (agent.Gate), steered as one by a screen or by headless JSON lines. A lone run
// is a league of one unnamed seat.
//
// A League merges its seats' events into one stream and routes commands to seats. Its
// guarantees, which a screen and the headless protocol rely on:
//
//   - Every event of a named seat carries the seat's name (agent.Event.Seat), and each
//     seat's events arrive in the order its runner emitted them. Seats are not ordered
//     among themselves: one seat's events never wait for another's reader to catch up
//     beyond the merged channel's buffer.
//   - Every id a person answers (a call's, a server question's) is SEAT/ID in the
//     stream, so ids are unique across the league and a decision names its seat by
//     itself. Seat names cannot hold a '/'.
//   - A command goes to one seat's runner, or to every seat's (pause, resume, stop and
//     rule commands that name no seat). Deciding one seat's call never waits on another
//     seat: each runner has its own goroutine and queue. A command the league cannot
//     route (no seat, an unknown seat, an id of none) is refused to its sender alone:
//     the league never puts an event of its own in the stream.
//   - A league of one unnamed seat (a lone run) is its runner, unchanged: its events are
//     the runner's own (no seat, no SEAT/ prefix), every command goes to it as it is,
//     and a line that is not a command is the runner's to refuse, as it always was.
//
// A runner knows nothing of leagues: its journal is a lone session's, which is why the
// seat is stamped here and not in the runner.
package league

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
)

// Seat is one agent of a league.
type Seat struct {
	// Name is the seat's name: a member of the arena, an agent's symbol in the universe;
	// "" for the one seat of a lone run.
	Name string
	// Model says what plays the seat, for the seat bar: "autopilot", "gpt-4o-mini".
	Model string
	// Runner plays the seat. Every seat's runner shares the league's agent.Gate.
	Runner *agent.Runner
}

// League is several seats in one world, steered as one. Its methods are safe for use by
// several goroutines.
type League struct {
	name   string
	seats  []Seat
	events <-chan agent.Event
}

// New returns a league named name (its sessions' League; "" for a lone run) of seats,
// and starts merging their events: read them from Events. Seat names must be seat
// names (game.SeatName: no '/', nothing a screen cannot print) and unique in any case;
// only a league of one seat may leave its seat unnamed, and it is then its runner as it
// is (see the package comment).
func New(name string, seats []Seat) (*League, error) {
	if len(seats) == 0 {
		return nil, errors.New("league: no seats")
	}
	seen := map[string]bool{}
	for _, s := range seats {
		switch {
		case s.Runner == nil:
			return nil, fmt.Errorf("league: seat %q has no runner", s.Name)
		case s.Name == "" && len(seats) == 1:
		case s.Name == "":
			return nil, errors.New("league: a seat of a league of several has no name")
		case game.SeatName(s.Name) != nil:
			return nil, fmt.Errorf("league: %w", game.SeatName(s.Name))
		case seen[strings.ToLower(s.Name)]:
			return nil, fmt.Errorf("league: seat %q is given twice", s.Name)
		}
		seen[strings.ToLower(s.Name)] = true
	}
	l := &League{name: name, seats: seats}
	if l.lone() {
		// Nothing to stamp or merge: the runner's own stream, read as it always was
		// (the runner waits for its reader, with no buffer between).
		l.events = seats[0].Runner.Events()
		return l, nil
	}
	events := make(chan agent.Event, 64*len(seats))
	var forwarders sync.WaitGroup
	for _, s := range seats {
		forwarders.Add(1)
		go func() {
			defer forwarders.Done()
			for ev := range s.Runner.Events() {
				events <- stamp(s.Name, ev)
			}
		}()
	}
	go func() {
		forwarders.Wait()
		close(events)
	}()
	l.events = events
	return l, nil
}

// lone says the league is a lone run: one unnamed seat.
func (l *League) lone() bool { return len(l.seats) == 1 && l.seats[0].Name == "" }

// Name returns the league's name.
func (l *League) Name() string { return l.name }

// Seats returns the league's seats, in the order given to New.
func (l *League) Seats() []Seat { return append([]Seat(nil), l.seats...) }

// Events returns every seat's events, merged (see the package comment). The channel is
// closed once every seat's runner has stopped and its events are read.
func (l *League) Events() <-chan agent.Event { return l.events }

// Run plays every seat until each has stopped (a stop command, its step limit) or ctx is
// done. It returns every seat's error joined, each a *SeatError naming its seat (a lone
// run's as its runner returned it).
func (l *League) Run(ctx context.Context) error {
	errs := make([]error, len(l.seats))
	var wg sync.WaitGroup
	for i, s := range l.seats {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := s.Runner.Run(ctx)
			if err != nil && s.Name != "" {
				err = &SeatError{Seat: s.Name, Err: err}
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// SeatError is why one seat's runner stopped with an error, as Run returns it.
type SeatError struct {
	Seat string
	Err  error
}

func (e *SeatError) Error() string { return "seat " + e.Seat + ": " + e.Err.Error() }

// Unwrap returns the runner's error.
func (e *SeatError) Unwrap() error { return e.Err }

// Send gives a command to the seat it is for (see Route). A refused command, one the
// league cannot route (*RouteError) or one a seat's runner refuses, returns an error to
// its sender alone, never an event.
func (l *League) Send(c agent.Command) error { return l.SendLine(c, "") }

// SendLine is Send for a command read from a line of input: a refusal's message begins
// with where ("stdin line 3").
func (l *League) SendLine(c agent.Command, where string) error {
	targets, err := l.Route(c)
	if err != nil {
		if where != "" {
			err = fmt.Errorf("%s: %w", where, err)
		}
		return &RouteError{err}
	}
	var errs []error
	for _, t := range targets {
		errs = append(errs, t.Runner.Input().SendLine(t.Command, where))
	}
	return errors.Join(errs...)
}

// Waiting returns the events that put to a person what waits for one now, in every
// seat (agent.Input.Waiting: from the league's one Gate and each seat's questions),
// stamped as the stream carries them, in time order.
func (l *League) Waiting() []agent.Event {
	var out []agent.Event
	for _, s := range l.seats {
		for _, ev := range s.Runner.Input().Waiting() {
			out = append(out, stamp(s.Name, ev))
		}
	}
	slices.SortStableFunc(out, func(a, b agent.Event) int { return a.Time.Compare(b.Time) })
	return out
}

// RouteError is the refusal of a command no seat takes (as a runner's refusal, it
// reaches its sender alone).
type RouteError struct{ err error }

func (e *RouteError) Error() string { return e.err.Error() }

// Unwrap returns the refusal's cause.
func (e *RouteError) Unwrap() error { return e.err }

// Preview previews the person's move at seat (see agent.Runner.Preview): its problems,
// else its dry run; an unknown seat is a problem of its own.
func (l *League) Preview(ctx context.Context, seat, tool string, args json.RawMessage) agent.MovePreview {
	s, err := l.seat(seat)
	if err != nil {
		return agent.MovePreview{Problems: []game.Problem{{Path: "seat", Expected: "a seat of the league (" + l.names() + ")", Got: fmt.Sprintf("%q", seat)}}}
	}
	return s.Runner.Preview(ctx, s.Name, tool, args)
}

var _ agent.Previewer = (*League)(nil)
