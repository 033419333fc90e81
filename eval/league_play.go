package eval

import (
	"cmp"
	"context"
	"os"
	"path/filepath"

	"github.com/coplayhq/coplay/notes"
)

// LeagueJob is one episode of a league: every seat in one world of a seed.
type LeagueJob struct {
	Seed int64
	// Steps is how many steps each seat plays.
	Steps int
	// Game names the game for the seats' sessions ("arena"); Metric the observation
	// metric a seat is scored by ("score").
	Game, Metric string
	// Open opens the world and every seat's game and brain, seats in seat order.
	Open func(ctx context.Context) (*LeagueSetup, error)
}

// LeagueSetup is one league episode's world and its seats, ready to play.
type LeagueSetup struct {
	Seats []SeatSetup
	// Close puts the world away (after every seat's Setup.Close); may be nil.
	Close func()
}

// SeatSetup is one seat: its name, the profile in it, and its game and brain as a
// single episode's (Setup.Close releases the seat's brain; the world is the league's).
type SeatSetup struct {
	Seat    string
	Profile ProfileID
	// Community is the arena community the seat starts in ("" in other worlds).
	Community string
	*Setup
}

// leagueName is the league of an eval's episode, as its seats' sessions record it;
// seat S plays session eval-S.
const leagueName = "eval"

// RunLeague plays jobs, parallel at a time, and returns their episodes in the order of
// jobs. onStep is called for every step of every seat, from any goroutine.
func RunLeague(ctx context.Context, jobs []LeagueJob, parallel int, onStep func()) []LeagueEpisode {
	return runAll(ctx, jobs, parallel, onStep, PlayLeague)
}

// PlayLeague plays one league episode: every seat's runner at once in the one world,
// headless with every call approved (as Play does), all of them waiting in one shared
// approval queue (agent.Gate), each seat's session in one notebook, steered as one
// league (package league) as coplay run steers one. Each seat is measured from its own
// events in the league's stream: its score at the end, its calls, actions and the
// person's interventions (SeatResult.Count). A world that does not open, or a seat
// whose runner cannot start, fails the episode (LeagueEpisode.Error); a seat that stops
// early keeps its score and says why (SeatResult.Error).
func PlayLeague(ctx context.Context, j LeagueJob, onStep func()) LeagueEpisode {
	ep := LeagueEpisode{Seed: j.Seed, Score: cmp.Or(j.Metric, "score")}
	fail := func(err error) LeagueEpisode { ep.Error = err.Error(); return ep }
	dir, err := os.MkdirTemp("", "coplay-league-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(dir)
	ls, err := j.Open(ctx)
	if err != nil {
		return fail(err)
	}
	defer func() {
		for _, s := range ls.Seats {
			if s.Close != nil {
				s.Close()
			}
		}
		if ls.Close != nil {
			ls.Close()
		}
	}()
	book, err := notes.Open(filepath.Join(dir, "league.db"), nil)
	if err != nil {
		return fail(err)
	}
	defer book.Close()
	for _, s := range ls.Seats {
		book.Redact(s.Secrets...)
	}
	ep.Seats = make([]SeatResult, len(ls.Seats))
	seats := make([]*seatRun, len(ls.Seats))
	for i, s := range ls.Seats {
		st := *s.Setup
		st.Record = func(sess *notes.Session) error {
			if s.Record != nil {
				if err := s.Record(sess); err != nil {
					return err
				}
			}
			return sess.SetLeague(leagueName, s.Seat)
		}
		res := &ep.Seats[i]
		*res = SeatResult{Seat: s.Seat, Profile: s.Profile.Name, Version: s.Profile.Version, Community: s.Community}
		seats[i] = &seatRun{name: s.Seat, st: &st, m: meter{ep: &Episode{Score: ep.Score}, metric: ep.Score, onStep: onStep, triggered: s.Triggered}, also: res.Count}
	}
	if err := playSeats(ctx, book, Job{Game: j.Game, Steps: j.Steps}, seats); err != nil {
		ep.Seats = nil
		return fail(err)
	}
	for i, s := range seats {
		one := s.m.ep
		ep.Seats[i].Score, ep.Seats[i].Steps, ep.Seats[i].Error = one.ScoreEnd, one.Steps, one.Error
	}
	return ep
}
