package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/notes"
)

// A league forks as a whole (--fork LEAGUE@STEP). Its seats step on their own, so a step
// number is the first seat's: the league forks at the moment that seat began step STEP.
// Each seat forks at its last step begun by then (its first, at least), keeping its
// notes, plan and conversation as they stood; the world is the newest of the seats'
// states at those points (the league's saves are numbered across seats), rewound by the
// time since, so the forked league plays on from one world.

// forkedLeague is the league a --fork NAME@STEP forks ("" when NAME is not a league).
func (o *options) forkedLeague() string {
	if o.fork == "" {
		return ""
	}
	at, err := notes.ParseForkPoint(o.fork)
	if err != nil {
		return ""
	}
	book, err := o.readBook()
	if err != nil {
		return ""
	}
	defer book.Close()
	if _, err := book.LeagueInfo(at.Session); err != nil {
		return ""
	}
	return at.Session
}

// forkSeats makes the seats of a fork of the league o.fork names: one session a seat,
// forked from the parent seat's, its world state rewound, recorded in created.
func (t *table) forkSeats(o *options, created *[]string) ([]leagueSeat, error) {
	at, err := notes.ParseForkPoint(o.fork)
	if err != nil {
		return nil, usagef("--fork: %v", err)
	}
	parents, err := o.resumeSeats(t.host.book, at.Session)
	if err != nil {
		return nil, err
	}
	d, err := game.LookupDriver(o.game)
	if err != nil {
		return nil, err
	}
	when, err := stepTime(parents[0].session, at.Step)
	if err != nil {
		return nil, fmt.Errorf("--fork %s: seat %s: %w", o.fork, parents[0].spec.name, err)
	}
	t.name = leagueName(t.host.book, o.game)
	now := time.Now()
	var out []leagueSeat
	for _, parent := range parents {
		step, err := stepBegunBy(parent.session, when)
		if err != nil {
			return nil, fmt.Errorf("--fork %s: seat %s: %w", o.fork, parent.spec.name, err)
		}
		child, err := t.forkSeat(parent, notes.ForkPoint{Session: parent.session.Name(), Step: step}, d, now, created)
		if err != nil {
			return nil, fmt.Errorf("--fork %s: seat %s: %w", o.fork, parent.spec.name, err)
		}
		out = append(out, leagueSeat{spec: parent.spec, session: child})
	}
	return out, nil
}

// forkSeat forks one seat's session at at into the new league, with its world state as
// it was then, rewound to now.
func (t *table) forkSeat(parent leagueSeat, at notes.ForkPoint, d game.Driver, now time.Time, created *[]string) (*notes.Session, error) {
	pinfo, err := parent.session.Info()
	if err != nil {
		return nil, err
	}
	seq, observed, err := parent.session.StepSeq(at.Step)
	if err != nil {
		return nil, err
	}
	state, err := parent.session.StateAt(seq)
	if err != nil {
		return nil, fmt.Errorf("the world of step %d: %w", at.Step, err)
	}
	then := observed
	if then.IsZero() {
		then = now
	}
	if state, err = game.RewindSeatState(d, state, now.Sub(then)); err != nil {
		return nil, fmt.Errorf("restoring the world of step %d: %w", at.Step, err)
	}
	child, _, err := t.host.book.Fork(at, t.name+"-"+parent.spec.name, pinfo.Model)
	if err != nil {
		return nil, err
	}
	*created = append(*created, child.Name())
	if err := child.SetLeague(t.name, parent.spec.name); err != nil {
		return nil, err
	}
	if pinfo.Profile != "" {
		if err := child.SetProfile(pinfo.Profile); err != nil {
			return nil, err
		}
	}
	return child, child.SaveState(state)
}

// stepTime is when a session began step n: the time its observation carries, else the
// time the step was journaled.
func stepTime(s *notes.Session, n int) (time.Time, error) {
	seq, observed, err := s.StepSeq(n)
	if err != nil {
		return time.Time{}, err
	}
	if !observed.IsZero() {
		return observed, nil
	}
	rec, err := s.Record(seq)
	return rec.Time, err
}

// stepBegunBy is the last step a session had begun by when (its first, at least).
func stepBegunBy(s *notes.Session, when time.Time) (int, error) {
	info, err := s.Info()
	if err != nil {
		return 0, err
	}
	best := 1
	for n := 1; n <= info.Steps; n++ {
		t, err := stepTime(s, n)
		if err != nil {
			if strings.Contains(err.Error(), "no step") {
				break
			}
			return 0, err
		}
		if t.After(when) {
			break
		}
		best = n
	}
	return best, nil
}
