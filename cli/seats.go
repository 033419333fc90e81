package cli

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/coplayhq/coplay/config"
	"github.com/coplayhq/coplay/game"
)

// personSeat is the PROFILE of a seat the person plays themselves (--seat Me=person): no
// model and no autopilot; the seat plays only the person's moves.
const personSeat = "person"

// seatSpec is one --seat NAME=PROFILE.
type seatSpec struct{ name, profile string }

// seatList is the repeatable --seat flag.
type seatList []seatSpec

func (l *seatList) String() string {
	var parts []string
	for _, s := range *l {
		parts = append(parts, s.name+"="+s.profile)
	}
	return strings.Join(parts, ",")
}

// Type names the flag's kind for pflag.
func (l *seatList) Type() string { return "seat" }

// Set reads one NAME=PROFILE. The names are checked together (game.CheckSeats) once
// every seat is known.
func (l *seatList) Set(v string) error {
	name, profile, ok := strings.Cut(v, "=")
	name, profile = strings.TrimSpace(name), strings.TrimSpace(profile)
	switch {
	case !ok || name == "" || profile == "":
		return fmt.Errorf("want NAME=PROFILE (like Heron=autopilot, Lark=script:lark.json or Finch=fast/cheap), not %q", v)
	case strings.Contains(name, "/"):
		return fmt.Errorf("seat name %q cannot hold a '/' (a call of the seat is named SEAT/ID)", name)
	}
	*l = append(*l, seatSpec{name, profile})
	return nil
}

// names returns the seats' names, in the order given.
func (l seatList) names() []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = s.name
	}
	return out
}

// checkSeats checks the seats as a league: names valid and unique, a game that can host
// a league, and a profile each that exists. Mistakes are the person's (usage errors).
func (o *options) checkSeats() error {
	if err := game.CheckSeats(o.seats.names()); err != nil {
		return usagef("--seat: %v", err)
	}
	d, err := game.LookupDriver(o.game)
	if err != nil {
		return usagef("--game must be one of %s, not %q%s", strings.Join(driverNames(), ", "), o.game, didYouMean(o.game, driverNames()...))
	}
	if d.League == nil {
		return usagef("--game %s cannot hold a league (--seat); the games that can: %s", o.game, strings.Join(game.LeagueDrivers(), ", "))
	}
	if o.fork != "" && len(o.seats) > 0 {
		return usagef("--fork LEAGUE@STEP forks a league with its own seats: leave out --seat")
	}
	for _, s := range o.seats {
		if _, err := o.seatOptions(s); err != nil {
			return err
		}
	}
	return nil
}

// seatOptions are the options one seat plays with: the command line's, with the seat's
// profile filling what it leaves (as --profile would), its brain the profile's whatever
// --brain, --model or --preset say, and its approval policy the flag's, else the
// profile's, else [league]'s, else [defaults]'.
func (o options) seatOptions(s seatSpec) (options, error) {
	so := o
	so.seat, so.seats = s.name, nil
	so.pins = slices.Clone(o.pins)
	so.pr = profileOptions{configPath: o.pr.configPath}
	file := o.pr.file
	if file == nil {
		return so, fmt.Errorf("seat %s: the config file was not read", s.name)
	}
	if err := so.takeProfile(file, s.profile, maps.Clone(o.given)); err != nil {
		return so, seatMistake(s.name, s.profile, err)
	}
	if !o.given["approve"] {
		policy := ""
		if so.pr.prof != nil {
			policy = so.pr.prof.Approve
		}
		so.approve = cmp.Or(policy, file.League.Approve, file.Defaults.Approve, "ask")
	}
	if _, err := so.brainKind(); err != nil {
		return so, fmt.Errorf("--seat %s=%s: %w", s.name, s.profile, err)
	}
	return so, nil
}

// seatMistake words a seat's profile that cannot be played the same for play, run and
// eval: "--seat B=nope: no profile ...", the person's mistake (exit 2) as --profile's is.
func seatMistake(name, profile string, err error) error {
	return usagef("--seat %s=%s: %s", name, profile, strings.TrimPrefix(err.Error(), "--profile: "))
}

// takeProfile makes what spec names play, whatever brain, model or preset o held: it
// is where a seat's PROFILE (--seat NAME=PROFILE, eval's --profile) is read, so a new
// kind of player is one more case here. script:FILE is a cassette (as --brain
// script:FILE plays it, with no profile); person is a seat the person plays themselves;
// anything else is a profile of the config file
// (autopilot among them), applied as --profile is, filling what given (the flags set)
// leaves.
func (o *options) takeProfile(file *config.File, spec string, given map[string]bool) error {
	o.brain, o.model, o.preset, o.pr.spec = "", "", "", ""
	delete(given, "brain")
	delete(given, "model")
	delete(given, "preset")
	given["profile"] = true
	if strings.HasPrefix(spec, "script:") || spec == personSeat {
		o.brain = spec // a cassette, or nobody but the person
		given["brain"] = true
	} else {
		o.pr.spec = spec
	}
	return o.apply(file, given)
}
