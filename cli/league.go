package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/keymap"
	"github.com/coplayhq/coplay/league"
	"github.com/coplayhq/coplay/notes"
	"github.com/coplayhq/coplay/secret"
	"github.com/coplayhq/coplay/ui"
)

// leaguePlay is a league's run: one notebook, one world, and a play (setup.go) for each
// seat, whose runners share one approval queue.
type leaguePlay struct {
	host  *play // the notebook, its live socket and the scrubber, which every seat shares
	name  string
	seats []*play
	world *game.League
	*league.League
}

// Close saves every seat's state and releases everything: the seats first, then the
// world, then the notebook.
func (lp *leaguePlay) Close() error {
	if lp == nil {
		return nil
	}
	var errs []error
	for i := len(lp.seats) - 1; i >= 0; i-- {
		errs = append(errs, lp.seats[i].Close())
	}
	if lp.world != nil && lp.world.Close != nil {
		errs = append(errs, lp.world.Close())
	}
	lp.seats, lp.world = nil, nil
	errs = append(errs, lp.host.Close())
	return errors.Join(errs...)
}

// setupLeague opens the notebook, makes a session a seat (each recording its league and
// seat), opens one world with a seat for each, and builds a runner a seat on one shared
// gate. Like setup, a failure leaves nothing behind: the sessions it made are removed.
func setupLeague(o options, steps int, beforeCreate func() error) (*leaguePlay, error) {
	if err := o.checkSeats(); err != nil {
		return nil, err
	}
	if err := o.checkReachable(); err != nil {
		return nil, err
	}
	lp := &leaguePlay{host: &play{}}
	var created []string
	err := lp.start(o, steps, beforeCreate, &created)
	if err != nil {
		for _, name := range created {
			if derr := lp.host.book.Delete(name); derr != nil {
				err = fmt.Errorf("%w (and removing the session %s it had created: %v)", err, name, derr)
			}
		}
		lp.Close()
		return nil, err
	}
	return lp, nil
}

// start does the work of setupLeague: the notebook, the sessions, the world, then each
// seat's brain and runner.
func (lp *leaguePlay) start(o options, steps int, beforeCreate func() error, created *[]string) error {
	path, err := lp.host.openBook(o)
	if err != nil {
		return err
	}
	if beforeCreate != nil {
		if err := beforeCreate(); err != nil {
			return err
		}
	}
	lp.name = leagueName(lp.host.book, o.game, o.seats.names())
	gate := agent.NewGate()
	var seatOpts []options
	for _, s := range o.seats {
		so, err := o.seatOptions(s)
		if err != nil {
			return err
		}
		p := &play{book: lp.host.book, scrub: lp.host.scrub, gate: gate, liveErr: lp.host.liveErr}
		kind, _ := so.brainKind()
		if p.session, err = p.book.Create(lp.name+"-"+s.name, so.game, so.sessionModel(kind)); err != nil {
			return err
		}
		*created = append(*created, p.session.Name())
		if err := recordSeat(p.session, lp.name, s.name); err != nil {
			return err
		}
		if err := so.recordProfile(p.session); err != nil {
			return err
		}
		lp.seats = append(lp.seats, p)
		seatOpts = append(seatOpts, so)
	}
	if lp.host.live != nil {
		names := *created
		lp.host.live.SetPlaying(func() []string { return names })
	}
	if lp.world, err = o.drivers.OpenLeague(context.Background(), o.game, game.Env{Dir: filepath.Dir(path), Getenv: os.Getenv}, o.seats.names()); err != nil {
		return err
	}
	var seats []league.Seat
	for i, p := range lp.seats {
		so, opened := seatOpts[i], lp.world.Seats[i].Opened
		if err := p.adoptGame(so, opened); err != nil {
			return fmt.Errorf("seat %s: %w", so.seat, err)
		}
		kind, _ := so.brainKind()
		if err := p.openBrain(&so, kind, opened); err != nil {
			return fmt.Errorf("seat %s: %w", so.seat, err)
		}
		if err := p.newRunner(so, steps, opened); err != nil {
			return fmt.Errorf("seat %s: %w", so.seat, err)
		}
		seats = append(seats, league.Seat{Name: so.seat, Model: p.brain.Name(), Runner: p.runner})
	}
	lp.League, err = league.New(lp.name, seats)
	return err
}

// leagueName is a name for a new league, like a session's ("arena-2026-11-27-0231"), that
// no session of the notebook uses, alone or as a seat's ("NAME-SEAT").
func leagueName(book *notes.Book, gameName string, seats []string) string {
	base := gameName + "-" + time.Now().Format("2006-01-02-1504")
	infos, _ := book.List()
	taken := func(name string) bool {
		for _, info := range infos {
			if info.Name == name || strings.HasPrefix(info.Name, name+"-") {
				return true
			}
		}
		return false
	}
	name := base
	for i := 2; taken(name); i++ {
		name = fmt.Sprintf("%s-%d", base, i)
	}
	return name
}

// recordSeat notes in a seat's session which league and seat it plays.
func recordSeat(s *notes.Session, leagueName, seat string) error {
	type leagueRecorder interface {
		SetLeague(league, seat string) error
	}
	if r, ok := any(s).(leagueRecorder); ok {
		return r.SetLeague(leagueName, seat)
	}
	return nil
}

// runLeagueHeadless plays a league with JSON lines (docs/PROTOCOL.md, "Leagues").
func runLeagueHeadless(o options, steps int, stdout, stderr io.Writer) error {
	lp, err := setupLeague(o, steps, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "league %s: %s\n", lp.name, lp.describe())
	ctx, cancel := interruptContext()
	defer cancel()
	out := secret.NewWriter(stdout, lp.host.scrub)
	runErr := league.Headless(ctx, lp.League, stdin, out)
	if errors.Is(runErr, ctx.Err()) {
		runErr = nil
	}
	return errors.Join(runErr, out.Flush(), lp.Close())
}

// describe names the seats and what plays each: "Heron (autopilot), Lark (gpt-4o-mini)".
func (lp *leaguePlay) describe() string {
	var parts []string
	for _, s := range lp.Seats() {
		parts = append(parts, s.Name+" ("+s.Model+")")
	}
	return strings.Join(parts, ", ")
}

// runLeagueScreen plays a league on the screen: the focused seat's panes, a seat bar,
// and one queue of every seat's calls (package ui).
func runLeagueScreen(o options, keys *keymap.KeyMap, stdout io.Writer) error {
	lp, err := setupLeague(o, 0, needTerminal)
	if err != nil {
		return err
	}
	ctx, cancel := interruptContext()
	defer cancel()
	runDone := make(chan error, 1)
	go func() { runDone <- lp.Run(ctx) }()
	first := lp.seats[0]
	info := screenInfo(first.hello(o), keys, nil)
	// The world's title, not the first seat's ("Arena (…) · Heron"): the status bar
	// shows it whichever seat is focused.
	info.Game = strings.TrimSuffix(first.title, " · "+lp.Seats()[0].Name)
	info.Session, info.Brain = lp.name, "league of "+lp.describe()
	info.Banner = "league " + lp.name + ": " + lp.describe() + " on " + info.Game
	info.Notify = ui.NotifyMode(o.steer.notify)
	for _, s := range lp.Seats() {
		info.Seats = append(info.Seats, ui.SeatInfo{Name: s.Name, Model: s.Model})
	}
	uiErr := ui.Run(ctx, lp.League, info)
	cancel()
	runErr := <-runDone
	if errors.Is(runErr, context.Canceled) {
		runErr = nil
	}
	fmt.Fprintf(stdout, "league %s saved in %s\n", lp.name, lp.host.book.Path())
	return errors.Join(uiErr, runErr, lp.Close())
}
