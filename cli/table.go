package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/league"
)

// A run of coplay is a table: the notebook it holds, its seats, and the league that
// steers them. A lone run is a league of one unnamed seat (package league), so one
// setup seats every run and one screen (playScreen) and one headless driver
// (playHeadless) play it, with attach and SSH on top. A lone run and a league differ
// only in how they are seated and how their world opens: a lone run's session is new,
// resumed or forked (setup.go, resume.go, fork.go) and its game opened alone; a
// league's seats are --seat's or a resumed or forked league's (league.go,
// league_resume.go, league_fork.go), their sessions one a seat, sharing one world
// (game.OpenLeague) and one approval queue.

// table is one run: the notebook, a play (setup.go) for each seat, the world a league's
// seats share, and the league that steers them.
type table struct {
	host  *play  // the notebook, its live socket and the scrubber, which every seat shares
	name  string // the league's name; "" for a lone run
	seats []*play
	world *game.League // a league's world (nil for a lone run, whose seat holds its game)
	gate  *agent.Gate  // a league's approval queue, which its seats share (nil: each runner's own)
	*league.League
}

// seatPlan is a seat before its game and runner: what --seat said of it (nothing, in a
// lone run), the options it plays with, and whether its session is an earlier one's,
// whose saved state its world goes on from.
type seatPlan struct {
	spec    seatSpec
	opts    options
	resumed bool
}

// lone says the table is a lone run.
func (t *table) lone() bool { return t.name == "" }

// setup opens the notebook and seats the run: a lone session (new, resumed or forked),
// or a league's seats; then it opens their world and builds each seat's brain and
// runner, and the league that steers them. resume is the session or league named after
// --resume ("" = the newest). beforeCreate, if not nil, runs once the notebook is open
// and what to resume found, before a session is created or anything started: the
// screen checks there that it has a terminal. Every failure is one error, with
// everything opened so far closed and the sessions made by this call removed again.
func setup(o options, resume string, steps int, beforeCreate func() error) (*table, error) {
	resumed, isLeague := o.isLeague(resume)
	if err := o.checkRun(isLeague, resumed); err != nil {
		return nil, err
	}
	if err := o.checkReachable(); err != nil { // before a session exists (reach.go)
		return nil, err
	}
	t := &table{host: &play{}}
	var created []string // the sessions this call made, removed again if it fails
	var err error
	if isLeague {
		err = t.start(o, resumed, steps, beforeCreate, &created, t.seatLeague)
	} else {
		err = t.start(o, resume, steps, beforeCreate, &created, t.seatLone)
	}
	if err != nil {
		for _, name := range created {
			if derr := t.host.book.Delete(name); derr != nil {
				err = fmt.Errorf("%w (and removing the session %s it had created: %v)", err, name, derr)
			}
		}
		t.Close()
		return nil, err
	}
	return t, nil
}

// checkRun finds the mistakes in the options of a lone run (check) or of a league: the
// flags every run shares, and a new league's seats.
func (o *options) checkRun(isLeague bool, resumed string) error {
	if !isLeague {
		return o.check()
	}
	if err := o.checkFlags(); err != nil {
		return err
	}
	if err := o.checkJoin(true, ""); err != nil {
		return err
	}
	if resumed == "" && o.fork == "" {
		return o.checkSeats() // a resumed or forked league's, once its sessions are read
	}
	return nil
}

// seater seats a run: it makes (or finds) each seat's session and says how each plays.
type seater func(o *options, name, path string, beforeCreate func() error, created *[]string) ([]seatPlan, error)

// start does the work of setup. It reads as its phases: the notebook, the seats and
// their sessions, the world, then each seat's game, brain and runner, and the league.
func (t *table) start(o options, name string, steps int, beforeCreate func() error, created *[]string, seat seater) error {
	path, err := t.host.openBook(o)
	if err != nil {
		return err
	}
	plans, err := seat(&o, name, path, beforeCreate, created)
	if err != nil {
		return err
	}
	t.playing()
	opened, err := t.openWorld(o, path, plans)
	if err != nil {
		return err
	}
	var seats []league.Seat
	for i, p := range t.seats {
		so := plans[i].opts
		if err := p.seatRunner(so, steps, opened[i]); err != nil {
			if so.seat != "" {
				err = fmt.Errorf("seat %s: %w", so.seat, err)
			}
			return err
		}
		seats = append(seats, league.Seat{Name: so.seat, Model: seatPlayer(plans[i].spec, p.brain.Name()), Runner: p.runner})
	}
	t.League, err = league.New(t.name, seats)
	return err
}

// seat adds a seat to the table: a play that shares the notebook, its scrubber and the
// league's approval queue.
func (t *table) seat() *play {
	h := t.host
	p := &play{book: h.book, scrub: h.scrub, liveErr: h.liveErr, gate: t.gate}
	t.seats = append(t.seats, p)
	return p
}

// seatLone seats a lone run: its session, new, resumed (name, "" = the newest that
// played) or forked.
func (t *table) seatLone(o *options, name, path string, beforeCreate func() error, created *[]string) ([]seatPlan, error) {
	brainName, err := o.brainKind()
	if err != nil {
		return nil, err
	}
	if err := t.seat().openSession(o, path, name, brainName, beforeCreate, created); err != nil {
		return nil, err
	}
	return []seatPlan{{opts: *o, resumed: o.resume}}, nil
}

// playing tells the socket which sessions this coplay plays, once they are known.
func (t *table) playing() {
	if t.host.live == nil {
		return
	}
	names := make([]string, len(t.seats))
	for i, p := range t.seats {
		names[i] = p.session.Name()
	}
	t.host.live.SetPlaying(func() []string { return names })
}

// openWorld opens what the seats play: a lone run's game from its session's state, or
// a league's one world with a seat for each, from every resumed seat's last state.
func (t *table) openWorld(o options, path string, plans []seatPlan) ([]*game.Opened, error) {
	if t.lone() {
		p := t.seats[0]
		state, err := p.session.State()
		if err != nil {
			return nil, err
		}
		opened, err := p.openGame(o, path, state)
		if err != nil {
			return nil, err
		}
		return []*game.Opened{opened}, nil
	}
	states := map[string][]byte{}
	for i, plan := range plans {
		if !plan.resumed {
			continue
		}
		var err error
		if states[plan.opts.seat], err = t.seats[i].session.State(); err != nil {
			return nil, err
		}
	}
	env := game.Env{Dir: filepath.Dir(path), Getenv: os.Getenv, SeatStates: states, Resuming: len(states) > 0}
	var err error
	if t.world, err = o.drivers.OpenLeague(context.Background(), o.game, env, o.seats.names()); err != nil {
		return nil, err
	}
	out := make([]*game.Opened, len(t.world.Seats))
	for i, s := range t.world.Seats {
		out[i] = s.Opened
	}
	return out, nil
}

// seatRunner plays a seat: its game, its brain and its runner (and a fork's advice that
// was waiting for its step).
func (p *play) seatRunner(so options, steps int, opened *game.Opened) error {
	if err := p.adoptGame(so, opened); err != nil {
		return err
	}
	kind, err := so.brainKind() // a resume may have taken the session's own brain
	if err != nil {
		return err
	}
	if err := p.openBrain(&so, kind, opened); err != nil {
		return err
	}
	if err := p.newRunner(so, steps, opened); err != nil {
		return err
	}
	return p.requeueAdvice()
}

// Close saves every seat's state and releases everything: the seats first, then the
// world, then the notebook. A nil table (setup failed) has nothing to release.
func (t *table) Close() error {
	if t == nil {
		return nil
	}
	var errs []error
	for i := len(t.seats) - 1; i >= 0; i-- {
		errs = append(errs, t.seats[i].Close())
	}
	if t.world != nil && t.world.Close != nil {
		errs = append(errs, t.world.Close())
	}
	t.seats, t.world = nil, nil
	errs = append(errs, t.host.Close())
	return errors.Join(errs...)
}
