package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/coplayhq/coplay/config"
	"github.com/coplayhq/coplay/eval"
	"github.com/coplayhq/coplay/game"
	"github.com/coplayhq/coplay/game/arena"
	"github.com/coplayhq/coplay/secret"
)

// A league eval (`coplay eval --league`) plays every profile in one world per seed, a
// seat each, and rates them against each other (eval.League). Seats:
//
//   - --profile P (repeatable, at least two; a profile named twice sits in two seats,
//     as with --seat): seat names are derived from the profiles, the same for every seed: the profile as it was named, every run of
//     characters other than letters and digits as '-', capitalised, at most 12
//     characters ("autopilot" → Autopilot, "looker/fast" → Looker-fast, "script:x.json"
//     → X; a NAME/EXPERIMENT longer than that by its EXPERIMENT when that fits:
//     "autopilot/careful" → Careful); a name that is taken already, or that the world refuses (an arena member's
//     name), gets -2, -3, …; one shorter than 3 characters is prefixed "Seat-".
//   - --seat NAME=PROFILE (repeatable, at least two seats): the seats named, each with
//     its profile (a profile may sit in several seats).
//
// The seats' order is shuffled per seed, deterministically from the seed alone
// (seatOrder), and the order decides the arena's communities (game/arena: round-robin by
// seat order), so shuffling seats shuffles communities.

// evalSeat is a seat of an eval league: its name and the profile playing it.
type evalSeat struct {
	name string
	plan evalPlan
}

// leagueFlags are eval's league flags as given.
type leagueFlags struct {
	on       bool       // --league
	seats    seatList   // --seat NAME=PROFILE
	profiles stringList // --profile
}

// wanted reports whether the eval is a league: --league, or seats named.
func (f leagueFlags) wanted() bool { return f.on || len(f.seats) > 0 }

// check refuses what cannot make a league, before any file is read.
func (f leagueFlags) check(fromSpec string) error {
	switch {
	case fromSpec != "":
		return usagef("--league plays new worlds from --seeds; --from plays one profile at a time from a session's step: use one of them")
	case len(f.seats) > 0 && len(f.profiles) > 0:
		return usagef("--seat names each seat and its profile; --profile seats profiles under names of their own: use one of them")
	case slices.ContainsFunc(f.seats, func(s seatSpec) bool { return s.profile == personSeat }) || slices.Contains(f.profiles, personSeat):
		return usagef("an eval plays its seats unattended, with nobody at the keyboard: a seat of the person's own (person) plays only under coplay run --seat NAME=person")
	case len(f.seats) == 1:
		return usagef("a league needs at least two seats, not one (--seat NAME=PROFILE again)")
	case len(f.seats) == 0 && len(f.profiles) < 2:
		return usagef("a league seats at least two profiles, not %d (--profile A --profile B, or --seat NAME=PROFILE for each seat)", len(f.profiles))
	}
	return nil
}

// leagueSeats resolves the league's seats: every profile before anything is played, and
// every seat name checked by the world.
func leagueSeats(ctx context.Context, file *config.File, f leagueFlags, gameName string) ([]evalSeat, error) {
	var seats []evalSeat
	for _, s := range f.seats {
		pl, err := planProfile(file, s.profile, gameName)
		if err != nil {
			return nil, seatMistake(s.name, s.profile, err)
		}
		seats = append(seats, evalSeat{name: s.name, plan: pl})
	}
	if len(seats) == 0 {
		// Every --profile a seat, as every --seat is: a profile named twice sits twice.
		var plans []evalPlan
		for _, spec := range f.profiles {
			pl, err := planProfile(file, spec, gameName)
			if err != nil {
				return nil, err
			}
			plans = append(plans, pl)
		}
		var err error
		if seats, err = seatsOf(ctx, plans, gameName); err != nil {
			return nil, err
		}
	}
	names := make([]string, len(seats))
	for i, s := range seats {
		names[i] = s.name
	}
	if err := checkLeagueSeats(ctx, gameName, names); err != nil {
		return nil, fmt.Errorf("--seat: %w", err)
	}
	return seats, nil
}

// checkLeagueSeats asks the game's league whether it takes seats (names and count).
func checkLeagueSeats(ctx context.Context, gameName string, seats []string) error {
	if _, err := game.OpenLeague(ctx, gameName, game.Env{CheckOnly: true, Getenv: os.Getenv}, seats); err != nil {
		// Only the command line is checked here (the seats' names and count, the
		// game's flags): a mistake in it.
		return usagef("%v", err)
	}
	return nil
}

// notSeatChar matches what a derived seat name replaces with '-'.
var notSeatChar = regexp.MustCompile(`[^A-Za-z0-9]+`)

// seatsOf names a seat for each plan (see the top of the file).
func seatsOf(ctx context.Context, plans []evalPlan, gameName string) ([]evalSeat, error) {
	var seats []evalSeat
	taken := map[string]bool{}
	for _, pl := range plans {
		base := seatBase(pl.spec)
		name := ""
		for n := 1; n <= game.MaxSeats && name == ""; n++ {
			cand := base
			if n > 1 {
				cand += "-" + strconv.Itoa(n)
			}
			if !taken[strings.ToLower(cand)] && checkLeagueSeats(ctx, gameName, []string{cand}) == nil {
				name = cand
			}
		}
		if name == "" {
			return nil, usagef("no seat name for profile %s: name its seat with --seat NAME=%s", pl.spec, pl.spec)
		}
		taken[strings.ToLower(name)] = true
		seats = append(seats, evalSeat{name: name, plan: pl})
	}
	return seats, nil
}

// seatBase is the readable seat name a profile spec suggests.
func seatBase(spec string) string {
	spec, _, _ = strings.Cut(spec, "@")
	if file, ok := strings.CutPrefix(spec, "script:"); ok {
		file = file[strings.LastIndexAny(file, `/\`)+1:]
		spec, _, _ = strings.Cut(file, ".")
	}
	name := strings.Trim(notSeatChar.ReplaceAllString(spec, "-"), "-")
	if _, exp, ok := strings.Cut(spec, "/"); ok && len(name) > 12 {
		// NAME/EXPERIMENT too long for a seat: the experiment says what differs
		// (autopilot/careful sits as Careful, not Autopilot-ca).
		if e := strings.Trim(notSeatChar.ReplaceAllString(exp, "-"), "-"); len(e) >= 3 && len(e) <= 12 {
			name = e
		}
	}
	if len(name) > 12 {
		name = strings.TrimRight(name[:12], "-")
	}
	if len(name) < 3 {
		name = strings.TrimSuffix("Seat-"+name, "-")
	}
	r := []rune(name)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// seatOrder is the order the seats sit in for seed, as indexes into the n seats. Seeds
// are taken in blocks of n in a row (1..n, n+1..2n, …): a block's order is shuffled from
// the block's number, and each seed of the block turns it by one more place, so within a
// block every seat sits once in every place (in the arena: starts once in each
// community slot), and blocks differ. It depends on the seed alone: seed 7 seats the
// same whatever other seeds are played.
func seatOrder(n int, seed int64) []int {
	k := seed - 1
	block, turn := k/int64(n), int(k%int64(n))
	if turn < 0 { // floor division for seeds below 1
		block, turn = block-1, turn+n
	}
	perm := rand.New(rand.NewPCG(uint64(block), 0x5eed1ea9)).Perm(n)
	out := make([]int, n)
	for i := range out {
		out[i] = perm[(i+turn)%n]
	}
	return out
}

// playEvalLeague plays a league episode on every seed of w and rates the profiles.
func playEvalLeague(seats []evalSeat, file *config.File, w evalWorld, steps, parallel int, stderr io.Writer) (eval.LeagueReport, error) {
	var ids []eval.ProfileID
	seen := map[eval.ProfileID]bool{}
	for _, s := range seats {
		id := eval.ProfileID{Name: s.plan.prof.Name, Version: s.plan.prof.Version()}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	var jobs []eval.LeagueJob
	for _, seed := range w.seeds {
		order := make([]evalSeat, len(seats))
		for i, k := range seatOrder(len(seats), seed) {
			order[i] = seats[k]
		}
		jobs = append(jobs, eval.LeagueJob{Seed: seed, Steps: steps, Game: w.game, Metric: evalGames[w.game],
			Open: func(ctx context.Context) (*eval.LeagueSetup, error) {
				return openLeagueEpisode(ctx, order, file, w, seed)
			}})
	}
	ctx, cancel := interruptContext()
	defer cancel()
	prog := eval.NewProgress(stderr, len(jobs)*len(seats)*steps)
	episodes := eval.RunLeague(ctx, jobs, parallel, prog.Step)
	prog.Done()
	if err := ctx.Err(); err != nil {
		return eval.LeagueReport{}, errors.New("eval interrupted: no report")
	}
	return eval.League(ids, episodes)
}

// openLeagueEpisode opens the world of seed with seats in their order, and each seat's
// game and brain.
func openLeagueEpisode(ctx context.Context, seats []evalSeat, file *config.File, w evalWorld, seed int64) (*eval.LeagueSetup, error) {
	opts := game.Values{"seed": seed, "speed": w.speed}
	if w.game == "universe" {
		opts["no-rate-limit"] = true // as eval's single universe: the brain sets the pace
	}
	names := make([]string, len(seats))
	for i, s := range seats {
		names[i] = s.name
	}
	l, err := game.OpenLeague(ctx, w.game, game.Env{Getenv: os.Getenv, Options: opts}, names)
	if err != nil {
		return nil, err
	}
	ls := &eval.LeagueSetup{Close: func() {
		if l.Close != nil {
			l.Close()
		}
	}}
	for i, s := range l.Seats {
		st, err := driverSetup(seats[i].plan, file, s.Opened)
		if err != nil {
			for _, done := range ls.Seats {
				done.Close()
			}
			ls.Close()
			return nil, fmt.Errorf("seat %s: %w", s.Name, err)
		}
		p := seats[i].plan.prof
		ss := eval.SeatSetup{Seat: s.Name, Profile: eval.ProfileID{Name: p.Name, Version: p.Version()}, Setup: st}
		if g, ok := s.Game.(*arena.Game); ok {
			ss.Community = g.View().Agent.Community
		}
		ls.Seats = append(ls.Seats, ss)
	}
	return ls, nil
}

// printLeague writes the league's report as JSON or tables, and to out when given.
func printLeague(w *secret.Writer, rep eval.LeagueReport, asJSON bool, out string, args []string, scrub *secret.Scrubber) error {
	if out != "" {
		if err := eval.WriteLeagueOut(out, rep, args, scrub); err != nil {
			return err
		}
	}
	if asJSON {
		if err := writeIndented(w, rep); err != nil {
			return err
		}
	} else {
		eval.WriteLeagueTables(w, rep)
		if out != "" {
			fmt.Fprintf(w, "\nwrote %s, %s and %s\n", filepath.Join(out, "eval.json"), filepath.Join(out, "report.md"), filepath.Join(out, eval.LeagueChart))
		}
	}
	return w.Flush()
}
