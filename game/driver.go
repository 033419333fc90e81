package game

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// Driver is one kind of game coplay can play. Each driver lives in its own package and
// registers itself from an init function with RegisterDriver; the program imports the
// package for that side effect. Adding a game is a new folder and one import.
type Driver struct {
	// Name is what --game takes, e.g. "universe", "spacetraders", "mcp".
	Name string
	// Summary is one line for `coplay help` and error messages.
	Summary string
	// Options are the driver's settings from the command line, as data (option.go):
	// coplay makes a flag of each. Drivers may declare the same name (--seed,
	// --base-url) when they agree on its kind; there is then one flag for both, with
	// the help of the first driver by name.
	Options []Option
	// Open opens a game with env.Options holding the options' values (Open, below).
	// nil: the driver cannot play alone.
	Open Opener
	// Saves says the driver's games save and restore their state with the session.
	Saves bool
	// Rewind, for an offline world whose saved state is the whole world, turns a state
	// saved `ago` in the past into one that restores the world as it stood then, its
	// clocks included (a ship in transit is still in transit, for the time it had left).
	// A fork (coplay --fork NAME@STEP) plays from it. nil: the world lives elsewhere
	// (a server), and a fork can only say that it has moved on.
	Rewind func(state []byte, ago time.Duration) ([]byte, error)
	// League, for a game whose world several seats can share, opens it for seats with
	// the same options: see league.go for the contract. nil: the game cannot host a
	// league.
	League LeagueOpener
}

// Opener opens a game with the options in env.Options. It checks them first: a missing
// or bad option or environment variable is an error that says which and what to do,
// before anything is started.
type Opener func(ctx context.Context, env Env) (*Opened, error)

// Env is what coplay gives a driver to open a game with.
type Env struct {
	// State is the session's saved game state; nil for a new game.
	State []byte
	// Resuming is set when an existing session is continued.
	Resuming bool
	// Dir is a directory where the driver may keep files (a server's log).
	Dir string
	// Getenv reads the environment (os.Getenv; tests give their own).
	Getenv func(string) string
	// ToolsOnly is set when the game is opened only to list its tools (`coplay tools`):
	// a driver may skip what playing needs and listing does not.
	ToolsOnly bool
	// CheckOnly asks the opener only to check its flags and environment and return
	// (nil, err): coplay does this before it opens the notebook, so that a mistake never
	// leaves a session behind.
	CheckOnly bool
	// Clock, for an offline world, is the clock to read (nil: the machine's): a fork
	// opens a rewound world on a HeldClock so that it stands still until observed.
	Clock Clock
	// Model is set when a model plays (not the autopilot, not a cassette): a game may
	// then offer it to its server (MCP sampling), each use approved by the person.
	Model bool
	// SeatStates, for a league being resumed (FlagSet.OpenLeague), is each seat's last
	// saved state by seat name; the newest is restored. OpenLeague hands a driver whose
	// seats save parts (League.Parts) every seat's part here, unwrapped.
	SeatStates map[string][]byte
	// Options are the driver's options as given on the command line. Open and
	// OpenLeague complete them: the driver sees every option it declares, the ones not
	// given at their default.
	Options Values
	// MaxSeats, for a league, is the most seats OpenLeague takes; 0 is MaxSeats. A
	// served world (coplay serve) takes up to MaxServedSeats: its agents play elsewhere.
	MaxSeats int
}

// Opened is a game ready to play, and how to put it away.
type Opened struct {
	Game Game
	// Title names the game for the screen, e.g. "SpaceTraders (offline universe)".
	Title string
	// Save returns the game's state for the session; nil when the driver saves none.
	Save func() ([]byte, error)
	// Close releases the game (stops a server, closes connections); may be nil.
	Close func() error
	// Secrets are values the process holds that must never be shown, written or sent to
	// a model (tokens); coplay scrubs them from everything it emits.
	Secrets []string
}

var drivers = struct {
	sync.Mutex
	m map[string]Driver
}{m: map[string]Driver{}}

// RegisterDriver makes a driver available to --game. It panics on an empty or duplicate
// name or a bad option (one of another kind than another driver's of the same name), a
// programming error found at start-up.
func RegisterDriver(d Driver) {
	drivers.Lock()
	defer drivers.Unlock()
	if d.Name == "" {
		panic("game.RegisterDriver: driver has no name")
	}
	if _, dup := drivers.m[d.Name]; dup {
		panic(fmt.Sprintf("game.RegisterDriver: driver %q registered twice", d.Name))
	}
	if err := checkOptions(d, drivers.m); err != nil {
		panic(fmt.Sprintf("game.RegisterDriver: driver %q: %v", d.Name, err))
	}
	drivers.m[d.Name] = d
}

// Drivers returns the registered drivers sorted by name.
func Drivers() []Driver {
	drivers.Lock()
	defer drivers.Unlock()
	out := make([]Driver, 0, len(drivers.m))
	for _, d := range drivers.m {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ErrUnknownDriver is wrapped by LookupDriver's error for a name no driver has.
var ErrUnknownDriver = errors.New("unknown game")

// LookupDriver returns the driver named name, or an error that lists the drivers and
// the closest name.
func LookupDriver(name string) (Driver, error) {
	drivers.Lock()
	d, ok := drivers.m[name]
	drivers.Unlock()
	if ok {
		return d, nil
	}
	var names []string
	for _, d := range Drivers() {
		names = append(names, d.Name)
	}
	msg := fmt.Sprintf("%q is not a game coplay knows (games: %s)", name, strings.Join(names, ", "))
	if near := Closest(name, names, 1); len(near) > 0 {
		msg += "; did you mean " + near[0] + "?"
	}
	return Driver{}, fmt.Errorf("%w: %s", ErrUnknownDriver, msg)
}

// Open opens a game of the driver named name with env, its options completed: every
// option the driver declares, the ones env.Options does not give at their default.
func Open(ctx context.Context, name string, env Env) (*Opened, error) {
	d, err := LookupDriver(name)
	if err != nil {
		return nil, err
	}
	if d.Open == nil {
		return nil, fmt.Errorf("--game %s cannot be opened alone", name)
	}
	if env.Options, err = d.valuesFor(env.Options); err != nil {
		return nil, err
	}
	return d.Open(ctx, env)
}

// FlagError is a mistake in a driver's flags (a bad value, a missing flag): coplay
// treats it as a mistake in the command line.
type FlagError struct{ Msg string }

// Error returns the message.
func (e *FlagError) Error() string { return e.Msg }

// FlagErrorf makes a FlagError.
func FlagErrorf(format string, a ...any) error { return &FlagError{Msg: fmt.Sprintf(format, a...)} }
