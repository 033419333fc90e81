package cli

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/notes"
)

// evalFrom is the position an eval plays from (--from NAME@STEP): the world a session
// observed at the start of a step, read once from the notebook and rewound afresh for
// each episode, so every profile starts from that same world with its clocks as they
// stood (a ship in transit still in transit).
type evalFrom struct {
	at    notes.ForkPoint
	game  string
	state []byte    // the saved world of that step, as the session kept it
	then  time.Time // when the step observed it
	d     game.Driver
}

// loadEvalFrom reads the position spec (NAME@STEP) from the notebook at data ("" = the
// default place), read-only.
func loadEvalFrom(spec, data string) (*evalFrom, error) {
	at, err := notes.ParseForkPoint(spec)
	if err != nil {
		return nil, usagef("--from: %v", err)
	}
	path := data
	if path == "" {
		if path, err = notes.DefaultPath(); err != nil {
			return nil, fmt.Errorf("--from: no place for the notebook (%v): pass --data FILE", err)
		}
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("--from %s: no notebook at %s (pass --data with the notebook's file)", spec, path)
	}
	book, _, err := openReader(path)
	if err != nil {
		return nil, err
	}
	defer book.Close()
	s, err := book.Session(at.Session)
	if err != nil {
		return nil, fmt.Errorf("--from %s: %w", spec, sessionErr(err, at.Session, path))
	}
	info, err := s.Info()
	if err != nil {
		return nil, err
	}
	f := &evalFrom{at: at, game: info.Game}
	if evalGames[f.game] == "" {
		return nil, usagef("--from %s: session %s plays %s; eval plays the built-in worlds universe and arena", spec, at.Session, f.game)
	}
	if f.d, err = game.LookupDriver(f.game); err != nil || f.d.Rewind == nil {
		return nil, fmt.Errorf("--from %s: the %s world cannot be restored at a step", spec, f.game)
	}
	seq, observed, err := s.StepSeq(at.Step)
	if err != nil {
		return nil, fmt.Errorf("--from %s: %w", spec, err)
	}
	if f.state, err = s.StateAt(seq); err != nil {
		if errors.Is(err, notes.ErrNoHistory) {
			return nil, fmt.Errorf("--from %s: session %s kept no history of its world (it was played by an older coplay), so its step %d cannot be restored", spec, at.Session, at.Step)
		}
		return nil, fmt.Errorf("--from %s: %w", spec, err)
	}
	if f.then = observed; f.then.IsZero() {
		rec, err := s.Record(seq)
		if err != nil {
			return nil, err
		}
		f.then = rec.Time
	}
	return f, nil
}

// world returns the state to open an episode's world from, rewound to now.
func (f *evalFrom) world() ([]byte, error) {
	st, err := f.d.Rewind(f.state, time.Since(f.then))
	if err != nil {
		return nil, fmt.Errorf("--from %s: restoring the world: %w", f.at, err)
	}
	return st, nil
}

// String is the position as NAME@STEP; "" for none.
func (f *evalFrom) String() string {
	if f == nil {
		return ""
	}
	return f.at.String()
}
