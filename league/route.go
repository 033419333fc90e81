package league

import (
	"fmt"
	"strings"

	"github.com/coplayhq/coplay/agent"
)

// Target is a command on its way to one seat, its ids as the seat's runner knows them.
type Target struct {
	Seat
	Command agent.Command
}

// Route says which seats a command is for, and how each is to receive it:
//   - decide, revise and answer go to the seat of the id they name (SEAT/ID; Seat may
//     be given too and must agree), the prefix removed;
//   - pause, resume, stop, allow, rule and unrule without a Seat go to every seat;
//   - advise and keep_playing must name a Seat (a screen sends one command a seat for
//     "everyone"), unless the league has one seat.
//
// Seat names match exactly: a seat is one name, so "heron/ID" is no call of Heron's
// (the first decision of a call, which a screen checks by its id, cannot come again in
// another spelling). An unknown seat, or an id that names none, is an error that lists
// the seats. A lone run's one seat takes every command as it is.
func (l *League) Route(c agent.Command) ([]Target, error) {
	if l.lone() {
		return []Target{{Seat: l.seats[0], Command: c}}, nil
	}
	id := &c.CallID
	if c.Cmd == agent.CmdAnswer {
		id = &c.ID
	}
	switch c.Cmd {
	case agent.CmdDecide, agent.CmdRevise, agent.CmdAnswer:
		seat, raw, ok := strings.Cut(*id, "/")
		switch {
		case ok && c.Seat != "" && seat != c.Seat:
			return nil, fmt.Errorf("command %s: %q is a call of seat %q, not of seat %q", c.Cmd, *id, seat, c.Seat)
		case ok:
			c.Seat, *id = seat, raw
		case c.Seat == "" && len(l.seats) > 1:
			return nil, fmt.Errorf("command %s: %q names no seat: in a league, ids are SEAT/ID (seats: %s)", c.Cmd, *id, l.names())
		}
	case agent.CmdPause, agent.CmdResume, agent.CmdStop, agent.CmdAllow, agent.CmdRule, agent.CmdUnrule:
		if c.Seat == "" {
			out := make([]Target, len(l.seats))
			for i, s := range l.seats {
				out[i] = Target{Seat: s, Command: c}
			}
			return out, nil
		}
	default:
		if c.Seat == "" && len(l.seats) > 1 {
			return nil, fmt.Errorf("command %s: name the seat it is for, as \"seat\" (seats: %s)", c.Cmd, l.names())
		}
	}
	s, err := l.seat(c.Seat)
	if err != nil {
		return nil, fmt.Errorf("command %s: %w", c.Cmd, err)
	}
	c.Seat = s.Name
	return []Target{{Seat: s, Command: c}}, nil
}

// seat finds a seat by its exact name ("" in a one-seat league is that seat).
func (l *League) seat(name string) (Seat, error) {
	if name == "" && len(l.seats) == 1 {
		return l.seats[0], nil
	}
	for _, s := range l.seats {
		if s.Name == name {
			return s, nil
		}
	}
	return Seat{}, fmt.Errorf("no seat %q in this league (seats: %s)", name, l.names())
}

// names lists the seats' names for messages.
func (l *League) names() string {
	names := make([]string, len(l.seats))
	for i, s := range l.seats {
		names[i] = s.Name
	}
	return strings.Join(names, ", ")
}

// stamp returns ev as the league's stream carries it: the seat named, and every id a
// person answers prefixed with the seat. The runner's own values are copied, never
// changed: it may still hold them. An unnamed seat (a lone run) stamps nothing.
func stamp(seat string, ev agent.Event) agent.Event {
	if seat == "" {
		return ev
	}
	ev.Seat = seat
	pre := func(id string) string {
		if id == "" {
			return ""
		}
		return seat + "/" + id
	}
	if ev.Call != nil {
		c := *ev.Call
		c.ID = pre(c.ID)
		ev.Call = &c
	}
	if ev.Decision != nil {
		d := *ev.Decision
		d.CallID = pre(d.CallID)
		ev.Decision = &d
	}
	if ev.Elicitation != nil {
		e := *ev.Elicitation
		e.ID, e.CallID = pre(e.ID), pre(e.CallID)
		ev.Elicitation = &e
	}
	if ev.Sampling != nil {
		s := *ev.Sampling
		s.ID, s.CallID = pre(s.ID), pre(s.CallID)
		ev.Sampling = &s
	}
	if ev.Progress != nil {
		p := *ev.Progress
		p.CallID = pre(p.CallID)
		ev.Progress = &p
	}
	return ev
}
