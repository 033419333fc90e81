package game

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// A league is several seats playing one shared world at once: arena members who write
// to each other, SpaceTraders agents trading on the same markets. Each seat has its own
// agent and session; the world is one.
//
// The contract:
//
//   - A driver that can host a league sets Driver.League, a LeagueOpener that reads the
//     same Options as its Open; OpenLeague opens one. A driver without League cannot
//     host a league: OpenLeague's error (ErrNoLeague) names the drivers that can.
//   - The driver's LeagueOpener gets the seat names (checked: see CheckSeats) and, in
//     Env.State, the whole world's state as its League.Save returned it (nil: a new
//     world). It returns one Opened per seat, in the order asked: each seat's own Game
//     (its own view, tools and triggers), Title and Secrets, over the one world; and the
//     world's Save and Close. A seat's Opened.Close may be nil: League.Close puts the
//     whole world away.
//   - Saving: every seat's Opened.Save (set by OpenLeague, not the driver) saves
//     the whole world, once per call, wrapped in a small envelope that names the league's
//     seats, the seat, and a sequence number that grows with every save of any seat.
//     Each seat's session keeps its own copy. On --resume, the caller hands every seat's
//     last saved state in Env.SeatStates; OpenLeague restores the newest (the highest
//     sequence number), so the world comes back exactly as last saved, its clock
//     included, whichever seat saved it. Seats that differ from the saved league's are
//     an error: a league resumes with the seats it was played with.
//   - Parts: a world whose seats are copies kept in step (the arena) sets League.Parts
//     and gives each seat an Opened.Save of its own copy. OpenLeague then wraps that
//     instead: a seat's save holds its part alone, so a save costs one seat's world
//     rather than every seat's (whole-world saves, made at every save of every seat,
//     made a league's saving grow as the square of its seats: with 6 arena seats, most
//     of the CPU). On resume the opener gets every seat's last part, unwrapped, in
//     Env.SeatStates (and Env.State nil), and restores each seat from its own.
//   - Secrets: every seat's Opened.Secrets holds every seat's secrets (one seat's token
//     must not reach another seat's model either).

// LeagueOpener opens a shared world for seats (at least one, names checked by
// CheckSeats) with the options in env.Options. On env.CheckOnly it checks its options
// and the seats (a name the game cannot take) and returns (nil, nil).
type LeagueOpener func(ctx context.Context, env Env, seats []string) (*League, error)

// League is one shared world and the seats that play it.
type League struct {
	// Seats are one per seat name, in the order asked.
	Seats []Seat
	// Save returns the whole world's state (every seat's part and the world's clock);
	// nil when the driver saves none. OpenLeague wraps it into each seat's Save.
	Save func() ([]byte, error)
	// Close puts the world away and every seat's game with it; may be nil.
	Close func() error
	// Parts says each seat's Opened.Save saves that seat's part of the world, which
	// is then what its session keeps (see "Parts" above).
	Parts bool
}

// Seat is one seat of a league: its name and its game, opened as a single game is.
type Seat struct {
	Name string
	*Opened
}

// ErrNoLeague is wrapped by the error for a driver that cannot host a league.
var ErrNoLeague = errors.New("this game cannot host a league")

// MaxSeats is the most seats one league played by one coplay takes: each seat is an
// agent of that process.
const MaxSeats = 16

// MaxServedSeats is the most seats a served world takes (coplay serve, Env.MaxSeats):
// its seats are agents elsewhere, and the process only keeps their worlds.
const MaxServedSeats = 64

// CheckSeats refuses an empty list, more than MaxSeats, a name that is no seat name
// (SeatName), and a name given twice (in any case): seat names are told apart regardless
// of case, because some worlds (SpaceTraders) upper-case them.
func CheckSeats(seats []string) error { return CheckSeatsUpTo(seats, MaxSeats) }

// CheckSeatsUpTo is CheckSeats with another most seats than MaxSeats.
func CheckSeatsUpTo(seats []string, most int) error {
	if len(seats) == 0 {
		return errors.New("a league needs at least one seat")
	}
	if len(seats) > most {
		return fmt.Errorf("a league takes at most %d seats, not %d", most, len(seats))
	}
	seen := map[string]string{}
	for _, s := range seats {
		if err := SeatName(s); err != nil {
			return err
		}
		if first, dup := seen[strings.ToLower(s)]; dup {
			return fmt.Errorf("seat %q is given twice (as %q and %q)", s, first, s)
		}
		seen[strings.ToLower(s)] = s
	}
	return nil
}

// MaxSeatName is the longest seat name, in characters.
const MaxSeatName = 32

// SeatName refuses what cannot name a seat. A seat name is shown on every screen (the
// seat bar, the log) and typed by the person (@NAME, SEAT/ID), so it is 1 to 32
// letters, digits, '-' and '_', each printed one column wide: no space, control or
// format character (an escape, a zero-width space, a right-to-left override), no mark
// that joins the letter before it, no double-width character. "all" (in any case) is
// reserved: @all speaks to every seat.
func SeatName(name string) error {
	n := utf8.RuneCountInString(name)
	switch {
	case !utf8.ValidString(name):
		return fmt.Errorf("seat name %q is not valid UTF-8", name)
	case n == 0 || n > MaxSeatName:
		return fmt.Errorf("seat name %q must be 1 to %d characters, not %d", name, MaxSeatName, n)
	case strings.EqualFold(name, "all"):
		return fmt.Errorf("seat name %q is reserved: @all speaks to every seat", name)
	}
	for _, r := range name {
		if r == '-' || r == '_' || (unicode.IsLetter(r) || unicode.IsDigit(r)) && !wide(r) {
			continue
		}
		return fmt.Errorf("seat name %+q holds %s (%U): a seat name is letters, digits, '-' and '_', each one column wide", name, kindOf(r), r)
	}
	return nil
}

// kindOf names what a character that cannot be in a seat name is, for its error.
func kindOf(r rune) string {
	switch {
	case unicode.IsSpace(r):
		return "a space"
	case unicode.IsControl(r), unicode.Is(unicode.Cf, r):
		return "an invisible or control character"
	case unicode.IsMark(r):
		return "a mark joined to the letter before it"
	case wide(r):
		return "a double-width character"
	case r == '/':
		return "a '/' (a call of the seat is named SEAT/ID)"
	}
	return fmt.Sprintf("%q", r)
}

// wide says a character takes two columns on a terminal.
func wide(r rune) bool {
	k := width.LookupRune(r).Kind()
	return k == width.EastAsianWide || k == width.EastAsianFullwidth
}

// LeagueDrivers returns the names of the drivers that can host a league, sorted.
func LeagueDrivers() []string {
	var out []string
	for _, d := range Drivers() {
		if d.League != nil {
			out = append(out, d.Name)
		}
	}
	return out
}

// OpenLeague opens the named driver's shared world for seats, its options completed as
// Open does. env.SeatStates, when resuming, holds every seat's last saved state;
// env.State is ignored; env.MaxSeats, when set, is the most seats taken (else MaxSeats).
// See the contract above.
func OpenLeague(ctx context.Context, driver string, env Env, seats []string) (*League, error) {
	d, err := LookupDriver(driver)
	if err != nil || d.League == nil {
		return nil, fmt.Errorf("--game %s: %w (games that can: %s)", driver, ErrNoLeague, strings.Join(LeagueDrivers(), ", "))
	}
	if env.Options, err = d.valuesFor(env.Options); err != nil {
		return nil, err
	}
	most := MaxSeats
	if env.MaxSeats > 0 {
		most = env.MaxSeats
	}
	if err := CheckSeatsUpTo(seats, most); err != nil {
		return nil, FlagErrorf("%s", err)
	}
	seq, world, parts, err := newestLeagueState(env.SeatStates, seats)
	if err != nil {
		return nil, err
	}
	env.State, env.SeatStates = world, parts
	l, err := d.League(ctx, env, seats)
	if err != nil || env.CheckOnly || env.ToolsOnly {
		return l, err
	}
	if l == nil || len(l.Seats) != len(seats) {
		return nil, fmt.Errorf("game.OpenLeague: driver %s opened the wrong number of seats", driver)
	}
	wrapSeats(l, seats, seq)
	return l, nil
}

// wrapSeats gives every seat the league's secrets and a Save that wraps the world's.
func wrapSeats(l *League, seats []string, seq int64) {
	var secrets []string
	for _, s := range l.Seats {
		secrets = append(secrets, s.Secrets...)
	}
	counter := &saveCounter{n: seq}
	for i := range l.Seats {
		s := &l.Seats[i]
		s.Name = seats[i]
		s.Secrets = secrets
		save := l.Save
		if l.Parts {
			save = s.Save
		}
		if save != nil {
			name := s.Name
			s.Save = func() ([]byte, error) { return counter.save(save, seats, name, l.Parts) }
		}
	}
}

// saveCounter numbers the league's saves across seats.
type saveCounter struct {
	mu sync.Mutex
	n  int64
}

// leagueState is the envelope of one seat's saved state. The world is kept as it is
// when it is JSON (WorldJSON; every driver's save is), else as bytes (World, base64 in
// the envelope). Decision: JSON kept as JSON, because the notebook stores each save as
// its changes since the one before, cut at JSON's punctuation (notes/statediff.go):
// base64 has none, so a whole world a save (a league's, every seat's world) was
// deflated and stored again at every save of every seat, which cost most of a
// 6-seat arena's CPU.
type leagueState struct {
	League    int             `json:"coplay_league"` // leagueStateVersion
	Seq       int64           `json:"seq"`
	Seats     []string        `json:"seats"`
	Seat      string          `json:"seat"`
	Part      bool            `json:"part,omitempty"` // the world is Seat's part of it (League.Parts)
	World     []byte          `json:"world,omitempty"`
	WorldJSON json.RawMessage `json:"world_json,omitempty"`
}

// world is the world the envelope holds.
func (s *leagueState) world() []byte {
	if len(s.WorldJSON) > 0 {
		return s.WorldJSON
	}
	return s.World
}

// setWorld puts b in the envelope: as JSON when it is.
func (s *leagueState) setWorld(b []byte) {
	s.World, s.WorldJSON = nil, nil
	if json.Valid(b) {
		s.WorldJSON = b
	} else {
		s.World = b
	}
}

const leagueStateVersion = 1

// save saves the world (seat's part of it when part) and wraps it, numbered after every
// earlier save.
func (c *saveCounter) save(world func() ([]byte, error), seats []string, seat string, part bool) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, err := world()
	if err != nil {
		return nil, err
	}
	c.n++
	st := leagueState{League: leagueStateVersion, Seq: c.n, Seats: seats, Seat: seat, Part: part}
	st.setWorld(b)
	return json.Marshal(st)
}

// newestLeagueState returns what to open a resumed league from: the newest whole world
// among the seats' saved states, or every seat's part when they saved parts; and the
// highest sequence number. Nothing (0, nil, nil) for a new league (no state saved).
func newestLeagueState(states map[string][]byte, seats []string) (int64, []byte, map[string][]byte, error) {
	var best *leagueState
	var parts map[string][]byte
	for seat, b := range states {
		if len(b) == 0 {
			continue
		}
		var s leagueState
		if err := json.Unmarshal(b, &s); err != nil || s.League != leagueStateVersion {
			return 0, nil, nil, fmt.Errorf("seat %s's saved state is not a league's (a session played alone cannot resume as a league)", seat)
		}
		if !sameSeats(s.Seats, seats) {
			return 0, nil, nil, fmt.Errorf("the league was played with seats %s, not %s: resume it with the same seats", strings.Join(s.Seats, ", "), strings.Join(seats, ", "))
		}
		if s.Part {
			if s.Seat != seat {
				return 0, nil, nil, fmt.Errorf("seat %s's saved state is seat %s's", seat, s.Seat)
			}
			if parts == nil {
				parts = map[string][]byte{}
			}
			parts[seat] = s.world()
		}
		if best == nil || s.Seq > best.Seq {
			best = &s
		}
	}
	switch {
	case best == nil:
		return 0, nil, nil, nil
	case parts == nil:
		return best.Seq, best.world(), nil, nil
	case len(parts) != len(seats):
		return 0, nil, nil, fmt.Errorf("the league's seats saved their parts of the world, and %d of its %d seats have none: it cannot resume", len(seats)-len(parts), len(seats))
	}
	return best.Seq, nil, parts, nil
}

// RewindSeatState is Driver.Rewind for a state a league seat saved: it rewinds the
// world inside and keeps the envelope, so that a fork of a league (every seat's session
// forked at one step) resumes as a league. A driver without Rewind cannot be rewound.
func RewindSeatState(d Driver, state []byte, ago time.Duration) ([]byte, error) {
	if d.Rewind == nil {
		return nil, fmt.Errorf("--game %s cannot be rewound", d.Name)
	}
	var s leagueState
	if err := json.Unmarshal(state, &s); err != nil || s.League != leagueStateVersion {
		return nil, errors.New("not a league seat's saved state")
	}
	world, err := d.Rewind(s.world(), ago)
	if err != nil {
		return nil, err
	}
	s.setWorld(world)
	return json.Marshal(s)
}

// sameSeats reports whether a and b name the same seats, in any order.
func sameSeats(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	have := map[string]bool{}
	for _, s := range a {
		have[s] = true
	}
	for _, s := range b {
		if !have[s] {
			return false
		}
	}
	return true
}
