package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/coplayhq/coplay/agent"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/keymap"
	"github.com/coplayhq/coplay/league"
	"github.com/coplayhq/coplay/live"
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
// gate. resumed names a league to go on with instead ("" = a new league of o.seats).
// Like setup, a failure leaves nothing behind: the sessions it made are removed.
func setupLeague(o options, resumed string, steps int, beforeCreate func() error) (*leaguePlay, error) {
	if resumed == "" && o.fork == "" {
		if err := o.checkSeats(); err != nil {
			return nil, err
		}
	}
	if err := o.checkReachable(); err != nil {
		return nil, err
	}
	lp := &leaguePlay{host: &play{}}
	var created []string
	err := lp.start(o, resumed, steps, beforeCreate, &created)
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

// start does the work of setupLeague: the notebook, the seats and their sessions, the
// world, then each seat's brain and runner.
func (lp *leaguePlay) start(o options, resumed string, steps int, beforeCreate func() error, created *[]string) error {
	path, err := lp.host.openBook(o)
	if err != nil {
		return err
	}
	seats, err := lp.seatsOf(&o, resumed, beforeCreate, created)
	if err != nil {
		return err
	}
	gate := agent.NewGate()
	states := map[string][]byte{}
	var seatOpts []options
	for _, ls := range seats {
		so, err := o.seatOptions(ls.spec)
		if err != nil {
			return err
		}
		p := &play{book: lp.host.book, scrub: lp.host.scrub, gate: gate, liveErr: lp.host.liveErr, session: ls.session}
		if p.session == nil {
			if err := p.newSeatSession(so, lp.name, created); err != nil {
				return err
			}
		} else if states[so.seat], err = p.session.State(); err != nil {
			return err
		}
		lp.seats = append(lp.seats, p)
		seatOpts = append(seatOpts, so)
	}
	if lp.host.live != nil {
		names := make([]string, len(lp.seats))
		for i, p := range lp.seats {
			names[i] = p.session.Name()
		}
		lp.host.live.SetPlaying(func() []string { return names })
	}
	env := game.Env{Dir: filepath.Dir(path), Getenv: os.Getenv, SeatStates: states, Resuming: len(states) > 0}
	if lp.world, err = o.drivers.OpenLeague(context.Background(), o.game, env, o.seats.names()); err != nil {
		return err
	}
	var leagueSeats []league.Seat
	for i, p := range lp.seats {
		so, opened := seatOpts[i], lp.world.Seats[i].Opened
		if err := p.seatRunner(so, steps, opened); err != nil {
			return fmt.Errorf("seat %s: %w", so.seat, err)
		}
		leagueSeats = append(leagueSeats, league.Seat{Name: so.seat, Model: seatPlayer(seats[i].spec, p.brain.Name()), Runner: p.runner})
	}
	lp.League, err = league.New(lp.name, leagueSeats)
	return err
}

// seatsOf names the league and says its seats: a resumed league's, read from its
// sessions, or a new league's from --seat (their sessions not made yet). Either way
// o.seats ends as the seats in order, checked.
func (lp *leaguePlay) seatsOf(o *options, resumed string, beforeCreate func() error, created *[]string) ([]leagueSeat, error) {
	var seats []leagueSeat
	var err error
	switch {
	case o.fork != "":
		seats, err = lp.forkSeats(o, created)
		o.resume, o.fork = true, ""
	case resumed != "":
		seats, err = o.resumeSeats(lp.host.book, resumed)
		lp.name = resumed
	default:
		for _, s := range o.seats {
			seats = append(seats, leagueSeat{spec: s})
		}
		lp.name = leagueName(lp.host.book, o.game)
	}
	if err != nil {
		return nil, err
	}
	if o.resume {
		// A resumed or forked league's seats are its sessions': they are checked as
		// --seat's are.
		o.seats = nil
		for _, s := range seats {
			o.seats = append(o.seats, s.spec)
		}
		if err := o.checkSeats(); err != nil {
			if resumed != "" {
				err = fmt.Errorf("league %s: %w", resumed, err)
			}
			return nil, err
		}
	}
	if beforeCreate != nil {
		if err := beforeCreate(); err != nil {
			return nil, err
		}
	}
	return seats, nil
}

// newSeatSession makes a new league seat's session, LEAGUE-SEAT, recording its league,
// seat and profile.
func (p *play) newSeatSession(so options, leagueName string, created *[]string) error {
	kind, _ := so.brainKind()
	var err error
	if p.session, err = p.book.Create(leagueName+"-"+so.seat, so.game, so.sessionModel(kind)); err != nil {
		return err
	}
	*created = append(*created, p.session.Name())
	if err := p.session.SetLeague(leagueName, so.seat); err != nil {
		return err
	}
	return so.recordProfile(p.session)
}

// seatRunner plays a seat: its part of the world, its brain and its runner.
func (p *play) seatRunner(so options, steps int, opened *game.Opened) error {
	if err := p.adoptGame(so, opened); err != nil {
		return err
	}
	kind, _ := so.brainKind()
	if err := p.openBrain(&so, kind, opened); err != nil {
		return err
	}
	return p.newRunner(so, steps, opened)
}

// leagueName is a name for a new league, like a session's ("arena-2026-11-27-0231"), that
// no session of the notebook uses, alone or as a seat's ("NAME-SEAT").
func leagueName(book *notes.Book, gameName string) string {
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

// runLeagueHeadless plays a league with JSON lines (docs/PROTOCOL.md, "Leagues").
func runLeagueHeadless(o options, resumed string, steps int, stdout, stderr io.Writer) error {
	lp, err := setupLeague(o, resumed, steps, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "league %s: %s\n", lp.name, lp.describe())
	ctx, cancel := interruptContext()
	defer cancel()
	out := secret.NewWriter(stdout, lp.host.scrub)
	own, err := lp.share(o, "stdin")
	if err != nil {
		return errors.Join(err, lp.Close())
	}
	if lp.host.sshAddr != "" {
		fmt.Fprintf(stderr, "served over SSH at %s\n", lp.host.sshAddr)
	}
	runErr := league.HeadlessFrom(ctx, lp.League, own.Events(), stdin, out)
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
func runLeagueScreen(o options, resumed string, keys *keymap.KeyMap, stdout, stderr io.Writer, advice ...agent.Command) error {
	lp, err := setupLeague(o, resumed, 0, needTerminal)
	if err != nil {
		return err
	}
	history := lp.history(resumed != "" || o.fork != "", stderr) // read before the runners append
	own, err := lp.share(o, "screen")                            // before Run: the screen misses nothing
	if err != nil {
		return errors.Join(err, lp.Close())
	}
	ctx, cancel := interruptContext()
	defer cancel()
	for _, c := range advice { // a fork's first advice (replay's fork key), before any step
		if err := lp.Send(c); err != nil {
			return errors.Join(err, lp.Close())
		}
	}
	runDone := make(chan error, 1)
	go func() { runDone <- lp.Run(ctx) }()
	info := screenInfo(lp.hello(o), keys, history)
	info.Notify = ui.NotifyMode(o.steer.notify)
	if lp.host.sshAddr != "" {
		info.Banner += "\nserved over SSH at " + lp.host.sshAddr
	}
	uiErr := ui.Run(ctx, own, info)
	cancel()
	runErr := <-runDone
	if errors.Is(runErr, context.Canceled) {
		runErr = nil
	}
	again := "coplay --resume " + shellWord(lp.name)
	if o.data != "" {
		again += " --data " + shellWord(o.data)
	}
	fmt.Fprintf(stdout, "League %s is saved (%s). To go on with every seat:\n  %s\n", lp.name, lp.describe(), again)
	return errors.Join(uiErr, runErr, lp.Close())
}

// history is what each seat's journal holds of a resumed or forked league, for the
// screen's logs: every seat's last events, stamped with its seat, on one timeline.
func (lp *leaguePlay) history(resume bool, stderr io.Writer) []agent.Event {
	var out []agent.Event
	seats := lp.Seats()
	for i, p := range lp.seats {
		seat := seats[i].Name
		for _, ev := range resumedHistory(resume, p.session, stderr) {
			out = append(out, league.Stamp(seat, ev))
		}
	}
	slices.SortStableFunc(out, func(a, b agent.Event) int { return a.Time.Compare(b.Time) })
	return out
}

// hello is what a screen shows of the league, its own or an attached one: the world's
// title, the league's name, every seat and what plays it.
func (lp *leaguePlay) hello(o options) live.Hello {
	first := lp.seats[0]
	h := first.hello(o)
	// The world's title, not the first seat's ("Arena (…) · Heron"): the status bar
	// shows it whichever seat is focused.
	h.Game = strings.TrimSuffix(first.title, " · "+lp.Seats()[0].Name)
	h.Session, h.Brain = lp.name, "league of "+lp.describe()
	h.Banner = "league " + lp.name + ": " + lp.describe() + " on " + h.Game
	for _, s := range lp.Seats() {
		h.Seats = append(h.Seats, live.Seat{Name: s.Name, Model: s.Model})
	}
	return h
}

// share puts a hub between the league and whoever watches it, as a lone run's share
// does: this coplay's own reader first (via "screen" or "stdin"), then screens attached
// through the socket (coplay attach), which see every seat. Call it before Run.
func (lp *leaguePlay) share(o options, via string) (*live.Sub, error) {
	hub := live.NewHub(lp.League)
	own := hub.Subscribe(via, false)
	if lp.host.live != nil {
		lp.host.live.ServeAttach(hub, lp.hello(o))
	}
	var err error
	lp.host.sshAddr, err = serveSSH(o, hub, lp.hello(o), lp.notice, &lp.host.closers)
	return own, err
}

// notice journals a word about who watches in every seat's journal.
func (lp *leaguePlay) notice(text string) {
	for _, s := range lp.Seats() {
		_ = s.Runner.Notice(text)
	}
}

// seatPlayer says what plays a seat, for the seat bar: the brain, after the profile that
// chose it when that says more ("calm (autopilot)", "lark (gpt-4o-mini)").
func seatPlayer(spec seatSpec, brain string) string {
	name, _, _ := strings.Cut(spec.profile, "/")
	if name == "autopilot" || name == brain || strings.HasPrefix(spec.profile, "script:") {
		return brain
	}
	return name + " (" + brain + ")"
}
