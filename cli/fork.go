package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/notes"
	"github.com/coplayhq/coplay/notes/record"
)

// A fork (--fork NAME@STEP on play and run) is a new session that starts from another
// as it stood at the start of a step: the notebook copies the journal, notes, plan,
// rules and spend up to there (notes.Book.Fork); the world is the game's to restore.
// A built-in world (its driver has game.Driver.Rewind) is restored from the state the
// step observed, its clocks moved on by the time since; a live game (a server) cannot
// go back, so the fork says once that its world has moved on and plays on from the
// memory alone.

// checkFork checks --fork's form, before anything is opened.
func (o *options) checkFork() error {
	if o.fork == "" {
		return nil
	}
	if o.resume {
		return usagef("--fork starts a new session and --resume continues one: use one of them")
	}
	if _, err := notes.ParseForkPoint(o.fork); err != nil {
		return usagef("--fork: %v", err)
	}
	return nil
}

// forkSession creates the session to play: a fork of o.fork, whose game it plays.
func (p *play) forkSession(o *options, path, brainName string, beforeCreate func() error, created *[]string) error {
	at, err := notes.ParseForkPoint(o.fork)
	if err != nil {
		return usagef("--fork: %v", err)
	}
	parent, err := p.book.Session(at.Session)
	if err != nil {
		if errors.Is(err, notes.ErrNotFound) {
			return fmt.Errorf("--fork %s: no session %q in %s (`coplay sessions --data %s` lists them)", o.fork, at.Session, path, path)
		}
		return err
	}
	pinfo, err := parent.Info()
	if err != nil {
		return err
	}
	o.game = pinfo.Game
	d, err := game.LookupDriver(o.game)
	if err != nil {
		return fmt.Errorf("--fork %s: the session plays %q, which this coplay does not know (games: %s)", o.fork, o.game, strings.Join(driverNames(), ", "))
	}
	if brainName == "autopilot" && !autopilotPlays(o.game) {
		return usagef("session %s plays %s, which the autopilot cannot: pass --model NAME or --brain script:FILE", at.Session, o.game)
	}
	now := time.Now()
	state, live, err := forkState(parent, at, d, now)
	if err != nil {
		return fmt.Errorf("--fork %s: %w", o.fork, err)
	}
	if err := o.checkGame(state); err != nil {
		return fmt.Errorf("--fork %s: %w", o.fork, err)
	}
	if beforeCreate != nil {
		if err := beforeCreate(); err != nil {
			return err
		}
	}
	child, _, err := p.book.Fork(at, "", o.sessionModel(brainName))
	if err != nil {
		return fmt.Errorf("--fork %s: %w", o.fork, err)
	}
	p.session, *created = child, append(*created, child.Name())
	if p.advice, err = waitingAdvice(parent, at); err != nil {
		return err
	}
	if state != nil {
		if err := child.SaveState(state); err != nil {
			return err
		}
	}
	if !live {
		p.held = game.NewHeldClock(now) // the world as rewound to now stands still until observed
	}
	if live {
		p.notice = fmt.Sprintf("forked from %s: the notes, the plan and the conversation are as they were at the start of step %d, but the world has moved on since (%s lives on its server and cannot go back): it is as it is now, observe before acting", at, at.Step, o.game)
	}
	// From here the fork is a session being continued: the game opens from its state.
	o.resume = true
	return o.recordProfile(child)
}

// forkState is the game state a fork of parent at step at.Step starts from: the state
// that step observed, rewound by the driver when it can (live is false), else the
// parent's latest state (live: the world has moved on).
func forkState(parent *notes.Session, at notes.ForkPoint, d game.Driver, now time.Time) (state []byte, live bool, err error) {
	seq, observed, err := parent.StepSeq(at.Step)
	if err != nil {
		return nil, false, err
	}
	if d.Rewind != nil {
		state, err = parent.StateAt(seq)
		switch {
		case err == nil:
			then := observed
			if then.IsZero() {
				rec, rerr := parent.Record(seq)
				if rerr != nil {
					return nil, false, rerr
				}
				then = rec.Time
			}
			state, err = d.Rewind(state, now.Sub(then))
			if err != nil {
				return nil, false, fmt.Errorf("restoring the world of step %d: %w", at.Step, err)
			}
			return state, false, nil
		case !errors.Is(err, notes.ErrNoHistory):
			return nil, false, err
		}
		// A session written by an older coplay kept only its latest world.
	}
	state, err = parent.State()
	return state, true, err
}

// sessionTree orders sessions for `coplay sessions`: each fork right after its parent
// (and after its elder siblings), the rest as given; depth is how many forks deep each
// is (0: not a fork, or a fork whose parent is gone).
func sessionTree(list []notes.SessionInfo) (out []notes.SessionInfo, depth []int) {
	byName := map[string]bool{}
	for _, s := range list {
		byName[s.Name] = true
	}
	children := map[string][]notes.SessionInfo{}
	var roots []notes.SessionInfo
	for _, s := range list {
		parent := parentName(s.Parent)
		if parent != "" && byName[parent] && parent != s.Name {
			children[parent] = append(children[parent], s)
			continue
		}
		roots = append(roots, s)
	}
	seen := map[string]bool{}
	var walk func(s notes.SessionInfo, d int)
	walk = func(s notes.SessionInfo, d int) {
		if seen[s.Name] {
			return
		}
		seen[s.Name] = true
		out, depth = append(out, s), append(depth, d)
		for _, c := range children[s.Name] {
			walk(c, d+1)
		}
	}
	for _, s := range roots {
		walk(s, 0)
	}
	for _, s := range list { // a cycle of parents (a damaged file): listed all the same
		walk(s, 0)
	}
	return out, depth
}

// parentName is the session part of a NAME@STEP parent.
func parentName(parent string) string {
	if at, err := notes.ParseForkPoint(parent); err == nil {
		return at.Session
	}
	return ""
}

// clock is the clock the game is opened on: a fork's held clock, or nil (the machine's).
func (p *play) clock() game.Clock {
	if p.held == nil {
		return nil
	}
	return p.held
}

// release lets a fork's held clock go on once the first step has observed the world.
func (p *play) release(int) {
	if p.held != nil {
		p.held.Release()
	}
}

// waitingAdvice is the advice the person gave during the step before at.Step: advice
// reaches the model at the start of the next step, so at the start of at.Step it was
// still waiting, and the fork gives it again.
func waitingAdvice(parent *notes.Session, at notes.ForkPoint) ([]string, error) {
	var out []string
	err := parent.Records(1, func(r notes.Record) error {
		if r.Step >= at.Step {
			return errStop
		}
		if r.Type == record.TypeAdvice && r.Step == at.Step-1 {
			d, err := r.Decode()
			if err != nil {
				return fmt.Errorf("the advice waiting at step %d: %w", at.Step, err)
			}
			if d.Text != "" {
				out = append(out, d.Text)
			}
		}
		return nil
	})
	if errors.Is(err, errStop) {
		err = nil
	}
	return out, err
}

var errStop = errors.New("stop")

// requeueAdvice gives a fork's waiting advice to its runner, to reach the model at the
// first step.
func (p *play) requeueAdvice() error {
	for _, text := range p.advice {
		if err := p.runner.Send(agent.Command{Cmd: agent.CmdAdvise, Text: text}); err != nil {
			return fmt.Errorf("giving the fork the advice that was waiting: %w", err)
		}
	}
	return nil
}
