// Package league plays several agents in one world: one runner per seat, sharing one
// approval queue (agent.Gate), steered as one by a screen or by headless JSON lines.
//
// A League merges its seats' events into one stream and routes commands to seats. Its
// guarantees, which a screen and the headless protocol rely on:
//
//   - Every event of a seat carries the seat's name (agent.Event.Seat), and each seat's
//     events arrive in the order its runner emitted them. Seats are not ordered among
//     themselves: one seat's events never wait for another's reader to catch up beyond
//     the merged channel's buffer.
//   - Every id a person answers (a call's, a server question's) is SEAT/ID in the
//     stream, so ids are unique across the league and a decision names its seat by
//     itself. Seat names cannot hold a '/'.
//   - A command goes to one seat's runner, or to every seat's (pause, resume, stop and
//     rule commands that name no seat). Deciding one seat's call never waits on another
//     seat: each runner has its own goroutine and queue.
//
// A runner knows nothing of leagues: its journal is a lone session's, which is why the
// seat is stamped here and not in the runner.
package league

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/coplayhq/coplay/agent"
)

// Seat is one agent of a league.
type Seat struct {
	// Name is the seat's name: a member of the arena, an agent's symbol in the universe.
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
	events chan agent.Event
}

// New returns a league named name (its sessions' League) of seats, and starts merging
// their events: read them from Events. Seat names must be unique and free of '/'.
func New(name string, seats []Seat) (*League, error) {
	if len(seats) == 0 {
		return nil, errors.New("league: no seats")
	}
	seen := map[string]bool{}
	for _, s := range seats {
		switch {
		case s.Name == "" || strings.ContainsAny(s.Name, "/ \t\n"):
			return nil, fmt.Errorf("league: seat name %q must be non-empty, without spaces or '/'", s.Name)
		case seen[strings.ToLower(s.Name)]:
			return nil, fmt.Errorf("league: seat %q is given twice", s.Name)
		case s.Runner == nil:
			return nil, fmt.Errorf("league: seat %s has no runner", s.Name)
		}
		seen[strings.ToLower(s.Name)] = true
	}
	l := &League{name: name, seats: seats, events: make(chan agent.Event, 64*len(seats))}
	var forwarders sync.WaitGroup
	for _, s := range seats {
		forwarders.Add(1)
		go func() {
			defer forwarders.Done()
			for ev := range s.Runner.Events() {
				l.events <- stamp(s.Name, ev)
			}
		}()
	}
	go func() {
		forwarders.Wait()
		close(l.events)
	}()
	return l, nil
}

// Name returns the league's name.
func (l *League) Name() string { return l.name }

// Seats returns the league's seats, in the order given to New.
func (l *League) Seats() []Seat { return append([]Seat(nil), l.seats...) }

// Events returns every seat's events, merged (see the package comment). The channel is
// closed once every seat's runner has stopped and its events are read.
func (l *League) Events() <-chan agent.Event { return l.events }

// Run plays every seat until each has stopped (a stop command, its step limit) or ctx is
// done. It returns every seat's error, each naming its seat.
func (l *League) Run(ctx context.Context) error {
	errs := make([]error, len(l.seats))
	var wg sync.WaitGroup
	for i, s := range l.seats {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Runner.Run(ctx); err != nil {
				errs[i] = fmt.Errorf("seat %s: %w", s.Name, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Send gives a command to the seat it is for (see Route). A refused command returns an
// error, to its sender alone, like a runner's.
func (l *League) Send(c agent.Command) error { return l.SendLine(c, "") }

// SendLine is Send for a command read from a line of input: a refusal's message begins
// with where ("stdin line 3").
func (l *League) SendLine(c agent.Command, where string) error {
	targets, err := l.Route(c)
	if err != nil {
		if where != "" {
			err = fmt.Errorf("%s: %w", where, err)
		}
		return err
	}
	var errs []error
	for _, t := range targets {
		errs = append(errs, t.Runner.Input().SendLine(t.Command, where))
	}
	return errors.Join(errs...)
}

// Waiting returns the events that put to a person what waits for one now, in every
// seat (agent.Runner.Waiting: from the league's one Gate and each seat's questions),
// stamped as the stream carries them, in time order.
func (l *League) Waiting() []agent.Event {
	var out []agent.Event
	for _, s := range l.seats {
		for _, ev := range s.Runner.Waiting() {
			out = append(out, stamp(s.Name, ev))
		}
	}
	slices.SortStableFunc(out, func(a, b agent.Event) int { return a.Time.Compare(b.Time) })
	return out
}
